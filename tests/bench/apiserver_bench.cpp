// apiserver_bench: `kube-sandbox serve` measured in detail (its two store modes, latencies,
// watch delivery, CPU shares), as a markdown table on stdout (progress goes to stderr). The side
// by side comparison with a stock kube-apiserver is tests/bench/reference_compare.py.
//
//   ready     exec of `serve` -> ready file written -> GET /readyz answers 200, median of N starts
//   rss       VmRSS of the server after it is ready and has idled a while
//   create    16 clients, each on its own keep-alive TLS connection, POST 256-byte ConfigMaps
//   get       the same clients GET random existing ConfigMaps
//   update    GET then PUT with the resourceVersion just read (each client on its own objects,
//             so no conflicts are expected)
//   list      one client LISTs a namespace holding 3,000 ConfigMaps, p50/p99 over the rounds;
//             then the same with Accept-Encoding: gzip, as client-go asks by default
//   watch     200 watchers (watch=true&resourceVersion=<current>) on one namespace, then 200
//             writes (100 creates, 100 updates) by one writer, twice: one write at a time (the
//             next once every watcher has the last), and back to back (the next as soon as the
//             previous one is answered). Each of the 40,000 deliveries per round is timed from
//             the start of its write to the watcher having the event.
//
// The benchmark starts the server itself (fork/exec of the binary named on the command line),
// once per store mode: --ephemeral (no fsync) and a data directory (Durability::Sync, every
// write fsynced, as etcd does). Any HTTP status other than the one expected, any transport
// error, a missing or unexpected watch event, or a server that does not exit 0 on SIGTERM ends
// the run with exit code 1: a benchmark must not silently measure errors. Server and clients
// share the machine, so each phase also reports the CPU used by the server, by this benchmark
// and by every other process (the last one tells a disturbed run).
// A benchmark, not a test: nothing here asserts timings.
//
// This file holds the flags and main; tests/README.md lists the other parts.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "apiserver_bench.h"
#include "apiserver_bench_figures.h"

namespace apiserver_bench {

namespace {

const char* kUsage =
    "Usage: ks_apiserver_bench KUBE_SANDBOX_BINARY [flags]\n\n"
    "Starts `KUBE_SANDBOX_BINARY serve` on a free loopback port, drives it over HTTPS with\n"
    "keep-alive connections and prints a markdown table of what it measured.\n"
    "Exits 1 on any HTTP or transport error.\n\n"
    "Flags:\n"
    "  --modes LIST          store modes, comma-separated: ephemeral, durable (default both)\n"
    "  --ready-runs N        starts timed per mode, median reported (default 5)\n"
    "  --idle-seconds N      idle time before reading RSS (default 2)\n"
    "  --clients N           concurrent clients, one connection each (default 16)\n"
    "  --creates N           ConfigMaps created (default 20000)\n"
    "  --gets N              GETs (default 50000)\n"
    "  --updates N           GET+PUT pairs (default 20000)\n"
    "  --applies N           server-side applies of a 200-line Deployment, one client "
    "(default 1000)\n"
    "  --list-items N        ConfigMaps in the listed namespace (default 3000)\n"
    "  --list-rounds N       LISTs timed (default 20)\n"
    "  --watchers N          watch connections (default 200)\n"
    "  --watch-writes N      writes per watch round, half creates, half updates (default 200)\n"
    "  --object-bytes N      size of a ConfigMap's JSON as sent (default 256)\n"
    "  --time-cap SECONDS    upper bound of each throughput phase (default 20)\n"
    "  --json FILE           also write every figure as JSON to FILE (- for stdout)\n"
    "  --keep                keep the work directory (server logs, data dir)\n";

std::optional<Config> parse_args(int argc, char** argv) {
  Config config;
  auto number = bench::parse_count;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (flag == "--keep") {
      config.keep = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) {
      if (!config.binary.empty()) {
        std::cerr << "ks_apiserver_bench: unexpected argument " << flag << "\n" << kUsage;
        return std::nullopt;
      }
      config.binary = flag;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "ks_apiserver_bench: " << flag << " needs a value\n" << kUsage;
      return std::nullopt;
    }
    std::string value = argv[++i];
    if (flag == "--modes") {
      config.modes.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) {
        if (item != "ephemeral" && item != "durable") {
          std::cerr << "ks_apiserver_bench: --modes takes ephemeral and durable\n";
          return std::nullopt;
        }
        config.modes.push_back(item);
      }
      continue;
    }
    if (flag == "--json") {
      config.json_file = value;
      continue;
    }
    auto n = number(value);
    if (!n) {
      std::cerr << "ks_apiserver_bench: " << flag << " wants a non-negative integer\n";
      return std::nullopt;
    }
    auto small = [&](int64_t lo, int64_t hi) { return static_cast<int>(std::clamp(*n, lo, hi)); };
    if (flag == "--ready-runs") {
      config.ready_runs = small(1, 100);
    } else if (flag == "--idle-seconds") {
      config.idle_seconds = small(0, 600);
    } else if (flag == "--clients") {
      config.clients = small(1, 1024);
    } else if (flag == "--creates") {
      config.creates = std::max<int64_t>(*n, 1);
    } else if (flag == "--gets") {
      config.gets = *n;
    } else if (flag == "--updates") {
      config.updates = *n;
    } else if (flag == "--applies") {
      config.applies = *n;
    } else if (flag == "--list-items") {
      config.list_items = small(0, 1000000);
    } else if (flag == "--list-rounds") {
      config.list_rounds = small(1, 10000);
    } else if (flag == "--watchers") {
      config.watchers = small(1, 10000);
    } else if (flag == "--watch-writes") {
      config.watch_writes = small(2, 100000) / 2 * 2;
    } else if (flag == "--object-bytes") {
      config.object_bytes = static_cast<size_t>(std::clamp<int64_t>(*n, 128, 1 << 20));
    } else if (flag == "--time-cap") {
      config.time_cap = std::chrono::seconds(std::max<int64_t>(*n, 1));
    } else {
      std::cerr << "ks_apiserver_bench: unknown flag " << flag << "\n" << kUsage;
      return std::nullopt;
    }
  }
  if (config.binary.empty()) {
    std::cerr << "ks_apiserver_bench: name the kube-sandbox binary\n" << kUsage;
    return std::nullopt;
  }
  return config;
}

}  // namespace

}  // namespace apiserver_bench

namespace fs = std::filesystem;
using apiserver_bench::ModeFigures;
using apiserver_bench::parse_args;
using apiserver_bench::print_report;
using apiserver_bench::report_json;
using apiserver_bench::run_mode;

int main(int argc, char** argv) {
  auto config = parse_args(argc, argv);
  if (!config) {
    return 2;
  }
  if (access(config->binary.c_str(), X_OK) != 0) {
    std::cerr << "ks_apiserver_bench: " << config->binary << " is not an executable\n";
    return 2;
  }
  bench::raise_open_file_limit();
  signal(SIGPIPE, SIG_IGN);
  std::string pattern = (fs::temp_directory_path() / "ks-apiserver-bench-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::cerr << "ks_apiserver_bench: mkdtemp failed\n";
    return 1;
  }
  fs::path work = pattern;
  std::vector<ModeFigures> results;
  bool failed = false;
  for (const auto& mode : config->modes) {
    results.push_back({});
    results.back().mode = mode;
    try {
      run_mode(*config, work, results.back());
    } catch (const std::exception& e) {
      results.back().error = e.what();
      std::cerr << "ks_apiserver_bench: " << mode << ": " << e.what() << "\n";
      failed = true;
      break;
    }
  }
  print_report(*config, results);
  if (!config->json_file.empty()) {
    std::string text = report_json(*config, results).dump(2) + "\n";
    if (config->json_file == "-") {
      std::cout << text;
    } else {
      std::ofstream(config->json_file) << text;
    }
  }
  if (config->keep || failed) {
    std::cerr << "ks_apiserver_bench: work directory (server logs) kept at " << work << "\n";
  } else {
    std::error_code ec;
    fs::remove_all(work, ec);
  }
  return failed ? 1 : 0;
}
