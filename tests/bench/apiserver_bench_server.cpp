// The server process: the files it leaves and what /proc says about it (the process itself is
// ServerProcess, in the header).
#include "apiserver_bench_server.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace apiserver_bench {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string tail(const std::string& text, size_t bytes) {
  return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

ProcStats proc_stats(pid_t pid) {
  ProcStats out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    auto value = [&](const char* name, int64_t& into) {
      size_t n = std::strlen(name);
      if (line.compare(0, n, name) == 0) {
        into = std::atoll(line.c_str() + n);
      }
    };
    value("VmRSS:", out.vm_rss_kb);
    value("VmHWM:", out.vm_hwm_kb);
    value("RssAnon:", out.rss_anon_kb);
    value("RssFile:", out.rss_file_kb);
    int64_t threads = 0;
    value("Threads:", threads);
    if (threads > 0) {
      out.threads = static_cast<int>(threads);
    }
  }
  return out;
}

double cpu_seconds(pid_t pid) {
  std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos) {
    return 0;
  }
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  // After the command: state is field 3; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) {
      ticks += std::atof(field.c_str());
    }
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

Endpoint read_ready_file(const fs::path& path) {
  json doc;
  try {
    doc = json::parse(read_text(path));
  } catch (const std::exception& e) {
    throw BenchError("ready file " + path.string() + ": " + e.what());
  }
  Endpoint out;
  out.url = doc.value("url", "");
  out.ca_file = doc.value("caFile", "");
  fs::path kubeconfig = doc.value("kubeconfig", "");
  const std::string scheme = "https://";
  auto colon = out.url.rfind(':');
  if (out.url.rfind(scheme, 0) != 0 || colon == std::string::npos || colon < scheme.size()) {
    throw BenchError("ready file " + path.string() + ": url \"" + out.url + "\"");
  }
  out.host = out.url.substr(scheme.size(), colon - scheme.size());
  out.port = out.url.substr(colon + 1);
  out.data_dir = kubeconfig.parent_path();
  return out;
}

}  // namespace apiserver_bench
