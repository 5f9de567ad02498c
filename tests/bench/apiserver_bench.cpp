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
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench_util.h"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
namespace fs = std::filesystem;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
using bench::Clock;
using bench::fixed;
using bench::ms_since;
using bench::percentile;
using json = nlohmann::json;

namespace {

// Configuration ---------------------------------------------------------------------------------

struct Config {
  fs::path binary;
  std::vector<std::string> modes = {"ephemeral", "durable"};
  int ready_runs = 5;
  int idle_seconds = 2;
  int clients = 16;
  int64_t creates = 20000;
  int64_t gets = 50000;
  int64_t updates = 20000;
  int64_t applies = 1000;
  int list_items = 3000;
  int list_rounds = 20;
  int watchers = 200;
  int watch_writes = 200;
  size_t object_bytes = 256;
  std::chrono::seconds time_cap{20};  // per throughput phase
  std::string json_file;              // "-" for stdout
  bool keep = false;
};

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
    "  --applies N           server-side applies of a 200-line Deployment, one client (default 1000)\n"
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

// What ends the run with exit code 1: an HTTP or transport error, a lost or unexpected watch
// event, a server that fails to start or to stop cleanly.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string tail(const std::string& text, size_t bytes) {
  return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

// The server process ----------------------------------------------------------------------------

// A few lines of /proc/<pid>/status and /proc/<pid>/stat.
struct ProcStats {
  int64_t vm_rss_kb = 0;
  int64_t vm_hwm_kb = 0;
  int64_t rss_anon_kb = 0;
  int64_t rss_file_kb = 0;
  int threads = 0;
};

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

// User + system CPU seconds the process has used so far.
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

struct Endpoint {
  std::string url;
  std::string host;
  std::string port;
  fs::path ca_file;
  fs::path data_dir;
  std::string token;
};

// One `kube-sandbox serve` child. Killed (SIGKILL) by the destructor if still running.
class ServerProcess {
 public:
  ServerProcess(const fs::path& binary, const std::vector<std::string>& args,
                const fs::path& ready_file, const fs::path& log_file)
      : ready_file_(ready_file), log_file_(log_file) {
    fs::remove(ready_file);
    // Watch the ready file's directory before the child exists, so its creation is not missed.
    inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0 || inotify_add_watch(inotify_fd_, ready_file.parent_path().c_str(),
                                             IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
      throw BenchError("inotify on " + ready_file.parent_path().string() + ": " +
                       std::strerror(errno));
    }
    std::vector<std::string> argv_text = {binary.string()};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv_ptrs;
    for (auto& a : argv_text) {
      argv_ptrs.push_back(a.data());
    }
    argv_ptrs.push_back(nullptr);
    started_ = Clock::now();
    pid_ = fork();
    if (pid_ < 0) {
      throw BenchError(std::string("fork: ") + std::strerror(errno));
    }
    if (pid_ == 0) {
      int log = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
      }
      execv(argv_ptrs[0], argv_ptrs.data());
      _exit(127);
    }
  }

  ~ServerProcess() {
    if (running()) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (inotify_fd_ >= 0) {
      close(inotify_fd_);
    }
  }

  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  pid_t pid() const { return pid_; }
  Clock::time_point started() const { return started_; }

  bool running() {
    if (exited_) {
      return false;
    }
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      exit_status_ = status;
      return false;
    }
    return r == 0;
  }

  // Waits (inotify, no busy polling) for the ready file; returns when it exists.
  Clock::time_point wait_for_ready_file(std::chrono::seconds cap) {
    auto deadline = Clock::now() + cap;
    while (true) {
      if (fs::exists(ready_file_)) {
        return Clock::now();
      }
      if (!running()) {
        throw BenchError("serve exited before it was ready (" + describe_exit() + "); log:\n" +
                         tail(read_text(log_file_), 2000));
      }
      if (Clock::now() > deadline) {
        throw BenchError("no ready file after " + std::to_string(cap.count()) + " s");
      }
      pollfd p{inotify_fd_, POLLIN, 0};
      if (poll(&p, 1, 10) > 0) {
        char events[4096];
        while (read(inotify_fd_, events, sizeof events) > 0) {
        }
      }
    }
  }

  // SIGTERM, then SIGKILL after `grace`. Returns the milliseconds it took to exit; throws unless
  // it exited with status 0.
  double stop(std::chrono::seconds grace) {
    auto t0 = Clock::now();
    if (running()) {
      kill(pid_, SIGTERM);
      auto deadline = t0 + grace;
      while (running() && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      if (running()) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        exited_ = true;
        exit_status_ = status;
        throw BenchError("serve did not exit within " + std::to_string(grace.count()) +
                         " s of SIGTERM (killed); log:\n" + tail(read_text(log_file_), 2000));
      }
    }
    double ms = ms_since(t0, Clock::now());
    if (!WIFEXITED(exit_status_) || WEXITSTATUS(exit_status_) != 0) {
      throw BenchError("serve " + describe_exit() + " on SIGTERM; log:\n" +
                       tail(read_text(log_file_), 2000));
    }
    return ms;
  }

 private:
  std::string describe_exit() const {
    if (WIFEXITED(exit_status_)) {
      return "exited " + std::to_string(WEXITSTATUS(exit_status_));
    }
    if (WIFSIGNALED(exit_status_)) {
      return std::string("was killed by ") + strsignal(WTERMSIG(exit_status_));
    }
    return "ended";
  }

  fs::path ready_file_;
  fs::path log_file_;
  pid_t pid_ = -1;
  int inotify_fd_ = -1;
  bool exited_ = false;
  int exit_status_ = 0;
  Clock::time_point started_;
};

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

// HTTPS client ----------------------------------------------------------------------------------

constexpr auto kIoTimeout = std::chrono::seconds(30);
constexpr size_t kBodyLimit = 512u << 20;

// Where and how to connect; shared read-only by every client thread.
struct Target {
  tcp::endpoint endpoint;
  std::string host;         // for certificate verification
  std::string host_header;  // host:port
  std::string authorization;
  std::shared_ptr<ssl::context> tls;
};

Target make_target(const Endpoint& e, bool with_token) {
  Target t;
  asio::io_context io;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(e.host, e.port);
  if (results.empty() || !results.begin()->endpoint().address().is_loopback()) {
    throw BenchError("the server's url " + e.url + " is not a loopback address");
  }
  t.endpoint = results.begin()->endpoint();
  t.host = e.host;
  t.host_header = e.host + ":" + e.port;
  if (with_token) {
    t.authorization = "Bearer " + e.token;
  }
  t.tls = std::make_shared<ssl::context>(ssl::context::tls_client);
  boost::system::error_code ec;
  t.tls->load_verify_file(e.ca_file.string(), ec);
  if (ec) {
    throw BenchError("CA file " + e.ca_file.string() + ": " + ec.message());
  }
  t.tls->set_verify_mode(ssl::verify_peer);
  return t;
}

struct Reply {
  unsigned status = 0;
  std::string body;
  std::string content_encoding;
};

// One keep-alive HTTPS connection; used by one coroutine at a time.
class Connection {
 public:
  Connection(asio::any_io_executor executor, const Target& target)
      : target_(target), stream_(executor, *target.tls) {}

  awaitable<void> open() {
    auto& layer = beast::get_lowest_layer(stream_);
    layer.expires_after(kIoTimeout);
    co_await layer.async_connect(target_.endpoint, use_awaitable);
    layer.socket().set_option(tcp::no_delay(true));
    stream_.set_verify_callback(ssl::host_name_verification(target_.host));
    co_await stream_.async_handshake(ssl::stream_base::client, use_awaitable);
  }

  http::request<http::string_body> make_request(http::verb verb, const std::string& path,
                                                std::string body,
                                                const char* content_type) const {
    http::request<http::string_body> request{verb, path, 11};
    request.set(http::field::host, target_.host_header);
    request.set(http::field::user_agent, "ks-apiserver-bench");
    request.set(http::field::accept, "application/json");
    if (!target_.authorization.empty()) {
      request.set(http::field::authorization, target_.authorization);
    }
    if (!body.empty()) {
      request.set(http::field::content_type, content_type);
    }
    request.keep_alive(true);
    request.body() = std::move(body);
    request.prepare_payload();
    return request;
  }

  // One request and its whole response. Throws on transport errors and when the server does not
  // keep the connection open (every phase relies on keep-alive).
  awaitable<Reply> call(http::verb verb, const std::string& path, std::string body = {},
                        bool accept_gzip = false,
                        const char* content_type = "application/json") {
    auto request = make_request(verb, path, std::move(body), content_type);
    if (accept_gzip) {
      request.set(http::field::accept_encoding, "gzip");
    }
    auto& layer = beast::get_lowest_layer(stream_);
    layer.expires_after(kIoTimeout);
    co_await http::async_write(stream_, request, use_awaitable);
    http::response_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    co_await http::async_read(stream_, buffer_, parser, use_awaitable);
    auto& response = parser.get();
    if (!response.keep_alive()) {
      throw BenchError(std::string(request.method_string()) + " " + path +
                       ": the server closed the keep-alive connection (HTTP " +
                       std::to_string(response.result_int()) + ")");
    }
    co_return Reply{response.result_int(), std::move(response.body()),
                    std::string(response[http::field::content_encoding])};
  }

  beast::ssl_stream<beast::tcp_stream>& stream() { return stream_; }
  beast::flat_buffer& buffer() { return buffer_; }

 private:
  const Target& target_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
};

// One keep-alive HTTPS connection for the throughput phases, used by one thread with blocking
// calls: OpenSSL on a blocking socket (send and receive timeouts bound every call), the response
// framed by Beast's parser. A request costs the client a write and a read or two, where the Asio
// connection above adds the reactor's wait and a timer per operation; on two cores shared with
// the server, what the clients do not spend is left to the server being measured.
class BlockingConnection {
 public:
  explicit BlockingConnection(const Target& target) : target_(target) {}
  BlockingConnection(const BlockingConnection&) = delete;
  BlockingConnection& operator=(const BlockingConnection&) = delete;
  ~BlockingConnection() {
    if (ssl_ != nullptr) {
      SSL_free(ssl_);
    }
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  void open() {
    const auto& endpoint = target_.endpoint;
    fd_ = ::socket(endpoint.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
      throw BenchError(std::string("socket: ") + std::strerror(errno));
    }
    timeval timeout{std::chrono::duration_cast<std::chrono::seconds>(kIoTimeout).count(), 0};
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);  // bounds connect too
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd_, endpoint.data(), static_cast<socklen_t>(endpoint.size())) != 0) {
      throw BenchError(std::string("connect: ") + std::strerror(errno));
    }
    ssl_ = SSL_new(target_.tls->native_handle());  // verifies the peer against the sandbox CA
    boost::system::error_code ec;
    asio::ip::make_address(target_.host, ec);
    if (!ec) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), target_.host.c_str());
    } else {
      SSL_set1_host(ssl_, target_.host.c_str());
      SSL_set_tlsext_host_name(ssl_, target_.host.c_str());
    }
    SSL_set_fd(ssl_, fd_);
    if (SSL_connect(ssl_) != 1) {
      throw BenchError("TLS handshake: " + tls_error(0));
    }
  }

  // One request and its whole response; throws as Connection::call does.
  Reply call(http::verb verb, const std::string& path, const std::string& body = {},
             const char* content_type = "application/json") {
    request_.clear();
    request_.append(http::to_string(verb)).append(" ").append(path).append(" HTTP/1.1\r\n");
    request_.append("Host: ").append(target_.host_header).append("\r\n");
    request_.append("User-Agent: ks-apiserver-bench\r\nAccept: application/json\r\n");
    if (!target_.authorization.empty()) {
      request_.append("Authorization: ").append(target_.authorization).append("\r\n");
    }
    if (!body.empty()) {
      request_.append("Content-Type: ").append(content_type).append("\r\n");
    }
    if (!body.empty() || verb == http::verb::post || verb == http::verb::put ||
        verb == http::verb::patch) {
      request_.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    }
    request_.append("\r\n").append(body);
    for (size_t sent = 0; sent < request_.size();) {
      int n = SSL_write(ssl_, request_.data() + sent, static_cast<int>(request_.size() - sent));
      if (n <= 0) {
        throw BenchError(what(verb, path) + ": sending: " + tls_error(n));
      }
      sent += static_cast<size_t>(n);
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    parser.eager(true);
    while (!parser.is_done()) {
      if (!in_.empty()) {
        boost::system::error_code ec;
        size_t used = parser.put(asio::buffer(in_), ec);
        in_.erase(0, used);
        if (ec && ec != http::error::need_more) {
          throw BenchError(what(verb, path) + ": bad response: " + ec.message());
        }
        if (parser.is_done()) {
          break;
        }
        if (used > 0 && !in_.empty()) {
          continue;
        }
      }
      char chunk[16384];
      int n = SSL_read(ssl_, chunk, sizeof chunk);
      if (n <= 0) {
        throw BenchError(what(verb, path) + ": receiving: " + tls_error(n));
      }
      in_.append(chunk, static_cast<size_t>(n));
    }
    auto& response = parser.get();
    if (!response.keep_alive()) {
      throw BenchError(what(verb, path) + ": the server closed the keep-alive connection (HTTP " +
                       std::to_string(response.result_int()) + ")");
    }
    return Reply{response.result_int(), std::move(response.body()),
                 std::string(response[http::field::content_encoding])};
  }

 private:
  static std::string what(http::verb verb, const std::string& path) {
    return std::string(http::to_string(verb)) + " " + path;
  }

  std::string tls_error(int result) const {
    int code = ssl_ != nullptr ? SSL_get_error(ssl_, result) : SSL_ERROR_SYSCALL;
    if (code == SSL_ERROR_ZERO_RETURN) {
      return "the server closed the connection";
    }
    if (code == SSL_ERROR_SYSCALL) {
      return errno == EAGAIN ? std::string("timed out") : std::strerror(errno);
    }
    char text[256];
    ERR_error_string_n(ERR_get_error(), text, sizeof text);
    return text;
  }

  const Target& target_;
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string request_;
  std::string in_;  // received, not yet parsed
};

void expect(const Reply& reply, unsigned status, const std::string& what) {
  if (reply.status != status) {
    throw BenchError(what + ": HTTP " + std::to_string(reply.status) + " (wanted " +
                     std::to_string(status) + "): " + reply.body.substr(0, 400));
  }
}

// Runs one coroutine to completion on a private io_context; rethrows what it threw.
template <typename T>
T run_blocking(std::function<awaitable<T>()> task) {
  asio::io_context io;
  std::optional<T> out;
  std::exception_ptr error;
  asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T value) {
    if (e) {
      error = e;
    } else {
      out = std::move(value);
    }
  });
  io.run();
  if (error) {
    std::rethrow_exception(error);
  }
  return std::move(*out);
}

// metadata.resourceVersion of a served object: the only "resourceVersion" in a ConfigMap.
std::optional<int64_t> find_resource_version(std::string_view text) {
  constexpr std::string_view kKey = "\"resourceVersion\":\"";
  auto at = text.find(kKey);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  int64_t value = 0;
  size_t i = at + kKey.size();
  if (i >= text.size() || text[i] < '0' || text[i] > '9') {
    return std::nullopt;
  }
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// metadata.name of a served object (keys come sorted, and nothing before "name" in a
// ConfigMap's metadata has a "name" key of its own), or empty.
std::string_view find_name(std::string_view text) {
  constexpr std::string_view kMetadata = "\"metadata\":{";
  constexpr std::string_view kName = "\"name\":\"";
  auto meta = text.find(kMetadata);
  auto at = meta == std::string_view::npos ? meta : text.find(kName, meta);
  if (at == std::string_view::npos) {
    return {};
  }
  auto begin = at + kName.size();
  auto end = text.find('"', begin);
  return end == std::string_view::npos ? std::string_view() : text.substr(begin, end - begin);
}

// The workload ----------------------------------------------------------------------------------

std::string name_of(const char* prefix, int64_t n) {
  char text[40];
  std::snprintf(text, sizeof text, "%s-%07lld", prefix, static_cast<long long>(n));
  return text;
}

// A ConfigMap whose JSON, as sent on create, is `bytes` long: the data value pads it. Updates
// carry the same value length plus their resourceVersion.
std::string configmap(const std::string& ns, const std::string& name, size_t bytes, char fill,
                      int64_t resource_version = 0) {
  auto build = [&](size_t pad, int64_t rv) {
    std::string out = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                      R"(","namespace":")" + ns + "\"";
    if (rv > 0) {
      out += R"(,"resourceVersion":")" + std::to_string(rv) + "\"";
    }
    out += R"(},"data":{"value":")" + std::string(pad, fill) + "\"}}";
    return out;
  };
  size_t frame = build(0, 0).size();
  return build(bytes > frame ? bytes - frame : 1, resource_version);
}

std::string configmaps_path(const std::string& ns) {
  return "/api/v1/namespaces/" + ns + "/configmaps";
}

double self_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// CPU time over a stretch of the run, in cores (CPU seconds per second): the server's, this
// benchmark's (the clients'), and every other process's. The last one says how much the figures
// were disturbed by whatever else ran on the machine.
struct CpuShare {
  double server = 0;
  double bench = 0;
  double others = 0;
};

class CpuMeter {
 public:
  explicit CpuMeter(pid_t server) : server_(server), start_(now()) {}

  CpuShare read() const {
    Sample end = now();
    double wall = ms_since(start_.at, end.at) / 1000;
    if (wall <= 0) {
      return {};
    }
    CpuShare out;
    out.server = (end.server - start_.server) / wall;
    out.bench = (end.bench - start_.bench) / wall;
    out.others = std::max(0.0, (end.machine - start_.machine) / wall - out.server - out.bench);
    return out;
  }

 private:
  struct Sample {
    Clock::time_point at;
    double server;
    double bench;
    double machine;  // busy CPU seconds of the whole machine, from /proc/stat
  };

  Sample now() const {
    Sample s{Clock::now(), cpu_seconds(server_), self_cpu_seconds(), 0};
    std::ifstream in("/proc/stat");
    std::string cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    s.machine =
        (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
    return s;
  }

  const pid_t server_;
  const Sample start_;
};

struct Throughput {
  int64_t ops = 0;
  double seconds = 0;
  std::vector<double> latencies_ms;
  bool capped = false;
  CpuShare cpu;

  double rate() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
};

// Hands out operation numbers to the clients of a phase until the count, the time cap or an
// error ends it.
class Work {
 public:
  explicit Work(int64_t total) : total_(total) {}

  // Sets the time cap; called before the clients are released.
  void begin(Clock::time_point deadline) { deadline_ = deadline; }

  // The next operation number, or -1 when the phase is over.
  int64_t take() {
    if (stop_.load()) {
      return -1;
    }
    if (Clock::now() >= deadline_) {
      capped_ = true;
      return -1;
    }
    int64_t i = next_++;
    return i < total_ ? i : -1;
  }
  void stop() { stop_ = true; }
  bool capped() const { return capped_.load(); }

 private:
  const int64_t total_;
  Clock::time_point deadline_ = Clock::time_point::max();  // written before the clients start
  std::atomic<int64_t> next_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> capped_{false};
};

// One client: a connection, its number, the work dispenser, and where its latencies go.
using ClientBody =
    std::function<void(BlockingConnection&, int client, Work&, std::vector<double>& samples)>;

// `clients` threads, each with its own keep-alive connection, opened before the clock starts;
// every operation's latency is sampled.
Throughput run_clients(const Target& target, pid_t server, int clients, int64_t total,
                       std::chrono::seconds cap, const ClientBody& body) {
  Throughput out;
  std::barrier ready(clients + 1);
  std::mutex mu;  // guards out.latencies_ms and error while clients merge their results
  std::string error;
  Work work(total);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      BlockingConnection conn(target);
      std::vector<double> samples;
      std::string failure;
      try {
        conn.open();
      } catch (const std::exception& e) {
        failure = std::string("connecting: ") + e.what();
      }
      ready.arrive_and_wait();  // the main thread starts the clock
      if (failure.empty()) {
        try {
          body(conn, c, work, samples);
        } catch (const std::exception& e) {
          failure = e.what();
        }
      }
      std::lock_guard lock(mu);
      out.latencies_ms.insert(out.latencies_ms.end(), samples.begin(), samples.end());
      if (!failure.empty()) {
        if (error.empty()) {
          error = failure;
        }
        work.stop();
      }
    });
  }
  CpuMeter meter(server);
  auto start = Clock::now();
  work.begin(start + cap);
  ready.arrive_and_wait();
  for (auto& t : threads) {
    t.join();
  }
  out.seconds = ms_since(start, Clock::now()) / 1000;
  out.cpu = meter.read();
  out.ops = static_cast<int64_t>(out.latencies_ms.size());
  out.capped = work.capped();
  if (!error.empty()) {
    throw BenchError(error);
  }
  return out;
}

// Creates ConfigMaps name_of(prefix, 0..) in `ns` with `clients` clients.
Throughput create_configmaps(const Target& target, pid_t server, const Config& config,
                             const std::string& ns, const char* prefix, int64_t count,
                             std::chrono::seconds cap) {
  return run_clients(target, server, config.clients, count, cap,
                     [&, prefix](BlockingConnection& conn, int, Work& work,
                                 std::vector<double>& samples) {
                       const std::string path = configmaps_path(ns);
                       for (int64_t i = work.take(); i >= 0; i = work.take()) {
                         std::string name = name_of(prefix, i);
                         std::string body = configmap(ns, name, config.object_bytes, 'c');
                         auto t0 = Clock::now();
                         Reply reply = conn.call(http::verb::post, path, body);
                         samples.push_back(ms_since(t0, Clock::now()));
                         expect(reply, 201, "POST " + path + " " + name);
                       }
                     });
}

// A Deployment manifest of 200 lines of YAML, as people write them: three containers with env,
// ports, probes, resources, security context and mounts. The two variants differ in image tags, env values and
// replicas, so every apply changes the object.
const std::string& deployment_yaml(int variant) {
  static const std::array<std::string, 2> manifests = [] {
    std::array<std::string, 2> out;
    for (int v = 0; v < 2; ++v) {
      std::string y;
      y += "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: bench\n";
      y += "  labels:\n    app: web\n    tier: frontend\n    team: platform\n";
      y += "  annotations:\n    example.com/owner: platform-team\n    example.com/revision: \"" +
           std::to_string(v) + "\"\n";
      y += "spec:\n  replicas: " + std::to_string(3 + v) + "\n  revisionHistoryLimit: 5\n";
      y += "  selector:\n    matchLabels:\n      app: web\n";
      y += "  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 1\n"
           "      maxUnavailable: 0\n";
      y += "  template:\n    metadata:\n      labels:\n        app: web\n        tier: frontend\n";
      y += "    spec:\n      terminationGracePeriodSeconds: 30\n      containers:\n";
      const char* names[] = {"app", "sidecar", "metrics"};
      for (int c = 0; c < 3; ++c) {
        std::string port = std::to_string(8080 + c);
        y += "      - name: " + std::string(names[c]) + "\n";
        y += "        image: registry.example.com/" + std::string(names[c]) + ":1." +
             std::to_string(v) + "." + std::to_string(c) + "\n";
        y += "        imagePullPolicy: IfNotPresent\n";
        y += "        args:\n        - --port=" + port + "\n        - --log-level=info\n";
        y += "        ports:\n        - name: http-" + std::to_string(c) +
             "\n          containerPort: " + port + "\n          protocol: TCP\n";
        y += "        env:\n";
        for (int e = 0; e < 10; ++e) {
          y += "        - name: SETTING_" + std::to_string(e) + "\n          value: \"value-" +
               std::to_string(e * 10 + v) + "\"\n";
        }
        y += "        resources:\n          requests:\n            cpu: 100m\n"
             "            memory: 128Mi\n          limits:\n            cpu: 500m\n"
             "            memory: 256Mi\n";
        y += "        readinessProbe:\n          httpGet:\n            path: /ready\n"
             "            port: " + port + "\n          periodSeconds: 10\n";
        y += "        livenessProbe:\n          httpGet:\n            path: /live\n"
             "            port: " + port + "\n          initialDelaySeconds: 5\n";
        y += "        securityContext:\n          runAsNonRoot: true\n"
             "          readOnlyRootFilesystem: true\n          allowPrivilegeEscalation: false\n";
        y += "        volumeMounts:\n        - name: config\n          mountPath: /etc/" +
             std::string(names[c]) + "\n";
      }
      y += "      volumes:\n      - name: config\n        configMap:\n          name: web-config\n";
      out[v] = y;
    }
    return out;
  }();
  return manifests[variant % 2];
}

awaitable<void> create_namespace(Connection& conn, const std::string& name) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  Reply reply = co_await conn.call(http::verb::post, "/api/v1/namespaces", ns.dump());
  expect(reply, 201, "create namespace " + name);
}

struct WatchFigures {
  std::vector<double> delivery_ms;  // per (write, watcher): write start -> watcher has it
  std::vector<double> write_ms;     // each write's own latency
  double seconds = 0;               // first write start -> last delivery
};

struct ModeFigures {
  std::string mode;
  std::vector<double> ready_file_ms;  // exec -> ready file
  std::vector<double> ready_ms;       // exec -> /readyz 200
  std::vector<double> stop_ms;        // SIGTERM -> exit 0
  ProcStats idle;
  ProcStats after_load;  // after the creates, gets, updates and lists, before the watchers
  ProcStats after;       // after the watch rounds, the watchers still open
  size_t stored_object_bytes = 0;
  std::optional<Throughput> creates;
  std::optional<Throughput> gets;
  std::optional<Throughput> updates;
  std::optional<Throughput> applies;
  size_t apply_lines = 0;  // of the applied manifest
  std::vector<double> list_ms;
  std::vector<double> list_gzip_ms;  // the same list with Accept-Encoding: gzip, as client-go asks
  size_t list_gzip_bytes = 0;
  size_t list_bytes = 0;
  size_t list_total_items = 0;  // the benchmark's and what controllers add (kube-root-ca.crt)
  int watch_other_events = 0;
  std::optional<CpuShare> list_cpu;   // both kinds of list
  std::optional<CpuShare> watch_cpu;  // both watch rounds
  std::optional<WatchFigures> watch_paced;
  std::optional<WatchFigures> watch_burst;
  std::string error;
};

// Watch -----------------------------------------------------------------------------------------

struct Delivery {
  int64_t resource_version;
  char type;  // first letter of ADDED, MODIFIED, DELETED, ERROR, BOOKMARK
  Clock::time_point at;
};

// Counts deliveries across the watchers; the writer waits here for a total to be reached.
class DeliveryCount {
 public:
  void add() {
    int64_t now = ++count_;
    if (now >= want_.load()) {
      std::lock_guard lock(mu_);
      cv_.notify_all();
    }
  }
  void fail(const std::string& why) {
    std::lock_guard lock(mu_);
    if (error_.empty()) {
      error_ = why;
    }
    cv_.notify_all();
  }
  // Waits until `total` deliveries or an error; false on timeout.
  bool wait_for(int64_t total, std::chrono::seconds cap) {
    std::unique_lock lock(mu_);
    want_ = total;
    return cv_.wait_for(lock, cap, [&] { return count_.load() >= total || !error_.empty(); });
  }
  int64_t count() const { return count_.load(); }
  std::string error() const {
    std::lock_guard lock(mu_);
    return error_;
  }

 private:
  std::atomic<int64_t> count_{0};
  std::atomic<int64_t> want_{INT64_MAX};
  mutable std::mutex mu_;  // guards error_; cv_ waits under it
  std::condition_variable cv_;
  std::string error_;
};

// One watch connection. Its deliveries are written only by its own reader coroutine and read by
// the main thread once the readers have ended.
struct Watcher {
  Watcher(asio::any_io_executor executor, const Target& target) : conn(executor, target) {}
  Connection conn;
  http::response_parser<http::empty_body> parser;
  std::string pending;               // the part of a line not yet ended by '\n'
  std::vector<Delivery> deliveries;  // events for the benchmark's own objects
  int others = 0;  // events for objects the benchmark did not write (kube-root-ca.crt)
};

awaitable<void> watch_reader(Watcher& w, const std::string& path, std::atomic<int>& established,
                             DeliveryCount& count) {
  co_await w.conn.open();
  auto request = w.conn.make_request(http::verb::get, path, {}, "application/json");
  auto& layer = beast::get_lowest_layer(w.conn.stream());
  layer.expires_after(kIoTimeout);
  co_await http::async_write(w.conn.stream(), request, use_awaitable);
  w.parser.body_limit(boost::none);
  // The parser keeps a reference to the callback: it lives in this coroutine's frame.
  auto on_chunk = [&](std::uint64_t, beast::string_view body, beast::error_code&) {
    auto now = Clock::now();
    w.pending.append(body.data(), body.size());
    for (size_t end; (end = w.pending.find('\n')) != std::string::npos;) {
      std::string_view line(w.pending.data(), end);
      constexpr std::string_view kType = "\"type\":\"";
      auto t = line.find(kType);
      char type = t == std::string_view::npos || t + kType.size() >= line.size()
                      ? '?'
                      : line[t + kType.size()];
      auto rv = find_resource_version(line);
      auto name = find_name(line);
      if (type == 'E' || !rv) {
        count.fail("watch " + path + " sent: " + std::string(line.substr(0, 400)));
      } else if (!name.starts_with("paced-") && !name.starts_with("burst-")) {
        ++w.others;  // the namespace's kube-root-ca.crt, written by a controller
      } else {
        w.deliveries.push_back({*rv, type, now});
        count.add();
      }
      w.pending.erase(0, end + 1);
    }
    return body.size();
  };
  w.parser.on_chunk_body(on_chunk);
  co_await http::async_read_header(w.conn.stream(), w.conn.buffer(), w.parser, use_awaitable);
  if (w.parser.get().result() != http::status::ok || !w.parser.chunked()) {
    throw BenchError("watch " + path + ": HTTP " + std::to_string(w.parser.get().result_int()) +
                     (w.parser.chunked() ? "" : " (not chunked)"));
  }
  ++established;
  layer.expires_never();  // a watch is idle between events
  while (!w.parser.is_done()) {
    co_await http::async_read_some(w.conn.stream(), w.conn.buffer(), w.parser, use_awaitable);
  }
}

struct WriteRecord {
  int64_t resource_version = 0;
  char type = 'A';
  Clock::time_point start;
  Clock::time_point answered;
};

// One writer on its own connection: `writes` writes to `ns`, half creates of name_of(prefix, i),
// then half updates of the same objects. Paced: before each write, wait until every watcher has
// every earlier one. Otherwise back to back.
std::vector<WriteRecord> run_watch_writes(const Target& target, const Config& config,
                                          const std::string& ns, const char* prefix, bool paced,
                                          DeliveryCount& count, int64_t base) {
  return run_blocking<std::vector<WriteRecord>>([&]() -> awaitable<std::vector<WriteRecord>> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    std::vector<WriteRecord> out;
    const int half = config.watch_writes / 2;
    const std::string path = configmaps_path(ns);
    for (int k = 0; k < config.watch_writes; ++k) {
      WriteRecord record;
      std::string name = name_of(prefix, k % half);
      Reply reply;
      if (k < half) {
        std::string body = configmap(ns, name, config.object_bytes, 'w');
        record.type = 'A';
        record.start = Clock::now();
        reply = co_await conn.call(http::verb::post, path, std::move(body));
        record.answered = Clock::now();
        expect(reply, 201, "POST " + path + " " + name);
      } else {
        std::string body =
            configmap(ns, name, config.object_bytes, 'u', out[k - half].resource_version);
        record.type = 'M';
        record.start = Clock::now();
        reply = co_await conn.call(http::verb::put, path + "/" + name, std::move(body));
        record.answered = Clock::now();
        expect(reply, 200, "PUT " + path + "/" + name);
      }
      auto rv = find_resource_version(reply.body);
      if (!rv) {
        throw BenchError("no resourceVersion in the answer to write " + std::to_string(k));
      }
      record.resource_version = *rv;
      out.push_back(record);
      if (paced) {
        int64_t want = base + static_cast<int64_t>(config.watchers) * (k + 1);
        if (!count.wait_for(want, std::chrono::seconds(10)) || !count.error().empty()) {
          throw BenchError("watch: 10 s after write " + std::to_string(k) + ", " +
                           std::to_string(count.count() - base) + " of " +
                           std::to_string(want - base) + " deliveries" +
                           (count.error().empty() ? "" : ": " + count.error()));
        }
      }
    }
    if (!paced) {
      int64_t want = base + static_cast<int64_t>(config.watchers) * config.watch_writes;
      if (!count.wait_for(want, std::chrono::seconds(30)) || !count.error().empty()) {
        throw BenchError("watch: 30 s after the last write, " +
                         std::to_string(count.count() - base) + " of " +
                         std::to_string(want - base) + " deliveries" +
                         (count.error().empty() ? "" : ": " + count.error()));
      }
    }
    co_return out;
  });
}

// Matches deliveries [offset, offset + writes) of every watcher against the writes: each write
// exactly once, in order, with the right type.
WatchFigures match_deliveries(const std::vector<std::unique_ptr<Watcher>>& watchers, size_t offset,
                              const std::vector<WriteRecord>& writes) {
  WatchFigures out;
  std::map<int64_t, size_t> by_rv;
  for (size_t k = 0; k < writes.size(); ++k) {
    by_rv[writes[k].resource_version] = k;
    out.write_ms.push_back(ms_since(writes[k].start, writes[k].answered));
  }
  Clock::time_point last = writes.front().start;
  for (size_t i = 0; i < watchers.size(); ++i) {
    const auto& got = watchers[i]->deliveries;
    if (got.size() < offset + writes.size()) {
      throw BenchError("watcher " + std::to_string(i) + " got " + std::to_string(got.size()) +
                       " events, wanted at least " + std::to_string(offset + writes.size()));
    }
    for (size_t j = offset; j < offset + writes.size(); ++j) {
      auto it = by_rv.find(got[j].resource_version);
      if (it == by_rv.end() || it->second != j - offset) {
        throw BenchError("watcher " + std::to_string(i) + ": event " + std::to_string(j) +
                         " has resourceVersion " + std::to_string(got[j].resource_version) +
                         ", which is not the matching write's");
      }
      const auto& write = writes[it->second];
      if (got[j].type != write.type) {
        throw BenchError("watcher " + std::to_string(i) + ": event for resourceVersion " +
                         std::to_string(write.resource_version) + " has type " + got[j].type +
                         "..., wanted " + write.type + "...");
      }
      out.delivery_ms.push_back(ms_since(write.start, got[j].at));
      last = std::max(last, got[j].at);
    }
  }
  out.seconds = ms_since(writes.front().start, last) / 1000;
  return out;
}

// Opens the watchers, runs the one-at-a-time and the back-to-back rounds, reads the server's RSS
// and calls `stop_server` with the watches still open, as a real shutdown meets them.
void run_watch(const Target& target, const Config& config, ModeFigures& figures, pid_t server,
               const std::function<void()>& stop_server) {
  const std::string ns = "bench-watch";
  std::string rv_text;
  run_blocking<int>([&]() -> awaitable<int> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    co_await create_namespace(conn, ns);
    Reply reply = co_await conn.call(http::verb::get, configmaps_path(ns));
    expect(reply, 200, "LIST " + configmaps_path(ns));
    rv_text = json::parse(reply.body)["metadata"].value("resourceVersion", "");
    co_return 0;
  });
  const std::string path = configmaps_path(ns) + "?watch=true&resourceVersion=" + rv_text;

  // The clients' side of the watchers: two threads (as many as the machine has cores), a strand
  // per watcher.
  asio::io_context io;
  auto guard = asio::make_work_guard(io);
  std::vector<std::unique_ptr<Watcher>> watchers;
  std::atomic<int> established{0};
  std::atomic<bool> closing{false};
  DeliveryCount count;
  for (int i = 0; i < config.watchers; ++i) {
    watchers.push_back(std::make_unique<Watcher>(asio::make_strand(io), target));
    Watcher& w = *watchers.back();
    asio::co_spawn(w.conn.stream().get_executor(), watch_reader(w, path, established, count),
                   [&, i](std::exception_ptr e) {
                     if (closing.load()) {
                       return;
                     }
                     std::string why = "the server ended the watch";
                     if (e) {
                       try {
                         std::rethrow_exception(e);
                       } catch (const std::exception& x) {
                         why = x.what();
                       }
                     }
                     count.fail("watcher " + std::to_string(i) + ": " + why);
                   });
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] { io.run(); });
  }
  auto stop_readers = [&] {
    closing = true;
    for (auto& w : watchers) {
      asio::post(w->conn.stream().get_executor(), [&w] {
        boost::system::error_code ec;
        auto& layer = beast::get_lowest_layer(w->conn.stream());
        layer.socket().shutdown(tcp::socket::shutdown_both, ec);
        layer.close();
      });
    }
    guard.reset();
    for (auto& t : threads) {
      t.join();
    }
    threads.clear();
  };
  try {
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (established.load() < config.watchers && count.error().empty() &&
           Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (established.load() < config.watchers) {
      throw BenchError("only " + std::to_string(established.load()) + " of " +
                       std::to_string(config.watchers) + " watches were established" +
                       (count.error().empty() ? "" : ": " + count.error()));
    }
    std::cerr << "  watch: " << config.watchers << " watchers, " << config.watch_writes
              << " writes one at a time\n";
    CpuMeter meter(server);
    auto paced = run_watch_writes(target, config, ns, "paced", true, count, 0);
    std::cerr << "  watch: " << config.watch_writes << " writes back to back\n";
    auto burst = run_watch_writes(target, config, ns, "burst", false, count, count.count());
    figures.watch_cpu = meter.read();
    figures.after = proc_stats(server);
    closing = true;  // from here on the server ends the watches
    stop_server();
    stop_readers();
    const size_t writes = static_cast<size_t>(config.watch_writes);
    for (size_t i = 0; i < watchers.size(); ++i) {
      if (watchers[i]->deliveries.size() != 2 * writes) {
        throw BenchError("watcher " + std::to_string(i) + " got " +
                         std::to_string(watchers[i]->deliveries.size()) + " events for " +
                         std::to_string(2 * writes) + " writes");
      }
    }
    for (const auto& w : watchers) {
      figures.watch_other_events += w->others;
    }
    figures.watch_paced = match_deliveries(watchers, 0, paced);
    figures.watch_burst = match_deliveries(watchers, writes, burst);
  } catch (...) {
    if (!threads.empty()) {
      stop_readers();
    }
    throw;
  }
}

// One store mode ----------------------------------------------------------------------------------

struct Started {
  std::unique_ptr<ServerProcess> process;
  Endpoint endpoint;
  double ready_file_ms = 0;
  double ready_ms = 0;
};

Started start_server(const Config& config, const fs::path& work, const std::string& mode,
                     const std::string& label) {
  fs::path ready_file = work / ("ready-" + label + ".json");
  std::vector<std::string> args = {"serve", "--secure-port", "0", "--ready-file",
                                   ready_file.string()};
  if (mode == "ephemeral") {
    args.push_back("--ephemeral");
  } else {
    args.push_back("--data-dir");
    args.push_back((work / "data").string());
  }
  Started s;
  s.process = std::make_unique<ServerProcess>(config.binary, args, ready_file,
                                              work / ("serve-" + label + ".log"));
  auto file_at = s.process->wait_for_ready_file(std::chrono::seconds(60));
  s.ready_file_ms = ms_since(s.process->started(), file_at);
  s.endpoint = read_ready_file(ready_file);
  // /readyz on a fresh connection, as a probe would: anonymous callers may read it.
  Target anonymous = make_target(s.endpoint, false);
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (true) {
    unsigned status = 0;
    std::string failure;
    try {
      status = run_blocking<unsigned>([&]() -> awaitable<unsigned> {
        Connection conn(co_await asio::this_coro::executor, anonymous);
        co_await conn.open();
        Reply reply = co_await conn.call(http::verb::get, "/readyz");
        co_return reply.status;
      });
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (status == 200) {
      break;
    }
    if (Clock::now() > deadline) {
      throw BenchError("/readyz did not answer 200 within 30 s of the ready file (last: " +
                       (failure.empty() ? "HTTP " + std::to_string(status) : failure) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  s.ready_ms = ms_since(s.process->started(), Clock::now());
  std::string token = read_text(s.endpoint.data_dir / "pki" / "admin.token");
  token.erase(token.find_last_not_of(" \t\r\n") + 1);
  s.endpoint.token = token;
  return s;
}

void run_mode(const Config& config, const fs::path& work, ModeFigures& figures) {
  const std::string& mode = figures.mode;
  const auto grace = std::chrono::seconds(20);
  if (mode == "durable") {
    // The first start creates the data directory and its PKI; the timed ones are restarts.
    std::cerr << mode << ": first start (creates the data directory)\n";
    auto first = start_server(config, work, mode, mode + "-first");
    first.process->stop(grace);
  }
  Started server;
  for (int r = 0; r < config.ready_runs; ++r) {
    std::cerr << mode << ": timed start " << r + 1 << " of " << config.ready_runs << "\n";
    server = start_server(config, work, mode, mode + "-" + std::to_string(r));
    figures.ready_file_ms.push_back(server.ready_file_ms);
    figures.ready_ms.push_back(server.ready_ms);
    if (r + 1 < config.ready_runs) {
      figures.stop_ms.push_back(server.process->stop(grace));
    }
  }
  // The last one started serves the workload.
  pid_t pid = server.process->pid();
  std::this_thread::sleep_for(std::chrono::seconds(config.idle_seconds));
  figures.idle = proc_stats(pid);
  Target target = make_target(server.endpoint, true);

  run_blocking<int>([&]() -> awaitable<int> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    co_await create_namespace(conn, "bench");
    co_await create_namespace(conn, "bench-list");
    co_return 0;
  });

  std::cerr << mode << ": " << config.creates << " creates, " << config.clients << " clients\n";
  figures.creates =
      create_configmaps(target, pid, config, "bench", "cm", config.creates, config.time_cap);
  const int64_t created = figures.creates->ops;
  if (created == 0) {
    throw BenchError("no ConfigMap was created");
  }

  figures.stored_object_bytes = run_blocking<size_t>([&]() -> awaitable<size_t> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    std::string path = configmaps_path("bench") + "/" + name_of("cm", 0);
    Reply reply = co_await conn.call(http::verb::get, path);
    expect(reply, 200, "GET " + path);
    co_return reply.body.size();
  });

  std::cerr << mode << ": " << config.gets << " gets\n";
  figures.gets = run_clients(target, pid, config.clients, config.gets, config.time_cap,
                             [&](BlockingConnection& conn, int client, Work& work,
                                 std::vector<double>& samples) {
                               std::mt19937_64 rng(1000 + client);
                               std::uniform_int_distribution<int64_t> pick(0, created - 1);
                               const std::string base = configmaps_path("bench") + "/";
                               for (int64_t i = work.take(); i >= 0; i = work.take()) {
                                 std::string path = base + name_of("cm", pick(rng));
                                 auto t0 = Clock::now();
                                 Reply reply = conn.call(http::verb::get, path);
                                 samples.push_back(ms_since(t0, Clock::now()));
                                 expect(reply, 200, "GET " + path);
                               }
                             });

  std::cerr << mode << ": " << config.updates << " get+updates\n";
  figures.updates = run_clients(
      target, pid, config.clients, config.updates, config.time_cap,
      [&](BlockingConnection& conn, int client, Work& work, std::vector<double>& samples) {
        // Client c updates only the objects numbered c modulo the client count: no conflicts.
        const int64_t own = (created - 1 - client) / config.clients + 1;
        if (own <= 0) {
          return;
        }
        std::mt19937_64 rng(2000 + client);
        std::uniform_int_distribution<int64_t> pick(0, own - 1);
        const std::string base = configmaps_path("bench") + "/";
        for (int64_t i = work.take(); i >= 0; i = work.take()) {
          std::string name = name_of("cm", client + pick(rng) * config.clients);
          std::string path = base + name;
          auto t0 = Clock::now();
          Reply got = conn.call(http::verb::get, path);
          expect(got, 200, "GET " + path);
          auto rv = find_resource_version(got.body);
          if (!rv) {
            throw BenchError("GET " + path + ": no resourceVersion in " + got.body.substr(0, 200));
          }
          std::string body = configmap("bench", name, config.object_bytes, i % 2 ? 'a' : 'b', *rv);
          Reply put = conn.call(http::verb::put, path, body);
          samples.push_back(ms_since(t0, Clock::now()));
          expect(put, 200, "PUT " + path);
        }
      });

  if (config.applies > 0) {
    std::cerr << mode << ": " << config.applies << " applies\n";
    figures.apply_lines = static_cast<size_t>(
        std::count(deployment_yaml(0).begin(), deployment_yaml(0).end(), '\n'));
    figures.applies = run_clients(
        target, pid, 1, config.applies, config.time_cap,
        [&](BlockingConnection& conn, int, Work& work, std::vector<double>& samples) {
          const std::string path = "/apis/apps/v1/namespaces/bench/deployments/web" 
                                   "?fieldManager=ks-apiserver-bench";
          for (int64_t i = work.take(); i >= 0; i = work.take()) {
            auto t0 = Clock::now();
            Reply reply = conn.call(http::verb::patch, path, deployment_yaml(i % 2),
                                    "application/apply-patch+yaml");
            samples.push_back(ms_since(t0, Clock::now()));
            expect(reply, i == 0 ? 201 : 200, "apply " + path);
          }
        });
  }

  std::cerr << mode << ": loading " << config.list_items << " ConfigMaps to list\n";
  auto loaded = create_configmaps(target, pid, config, "bench-list", "item", config.list_items,
                                  std::chrono::seconds(600));
  if (loaded.ops != config.list_items) {
    throw BenchError("loaded only " + std::to_string(loaded.ops) + " ConfigMaps to list");
  }
  std::cerr << mode << ": " << config.list_rounds << " lists\n";
  CpuMeter list_meter(pid);
  run_blocking<int>([&]() -> awaitable<int> {
    Connection conn(co_await asio::this_coro::executor, target);
    co_await conn.open();
    const std::string path = configmaps_path("bench-list");
    for (int r = 0; r < config.list_rounds; ++r) {
      auto t0 = Clock::now();
      Reply reply = co_await conn.call(http::verb::get, path);
      figures.list_ms.push_back(ms_since(t0, Clock::now()));
      expect(reply, 200, "LIST " + path);
      if (r == 0) {
        // Checked once, outside the timing.
        figures.list_bytes = reply.body.size();
        auto doc = json::parse(reply.body);
        int ours = 0;
        for (const auto& item : doc.value("items", json::array())) {
          ours += item["metadata"].value("name", "").rfind("item-", 0) == 0 ? 1 : 0;
        }
        figures.list_total_items = doc.value("items", json::array()).size();
        if (ours != config.list_items) {
          throw BenchError("LIST " + path + " returned " + std::to_string(ours) + " of the " +
                           std::to_string(config.list_items) + " ConfigMaps created");
        }
      }
    }
    // client-go sends Accept-Encoding: gzip unless told not to; the body is not decompressed.
    for (int r = 0; r < config.list_rounds; ++r) {
      auto t0 = Clock::now();
      Reply reply = co_await conn.call(http::verb::get, path, {}, true);
      figures.list_gzip_ms.push_back(ms_since(t0, Clock::now()));
      expect(reply, 200, "LIST " + path + " (gzip)");
      figures.list_gzip_bytes = reply.body.size();
      if (reply.content_encoding != "gzip" && reply.body.size() != figures.list_bytes) {
        throw BenchError("LIST " + path + " (gzip): " + std::to_string(reply.body.size()) +
                         " bytes, not gzipped, unlike the plain list's " +
                         std::to_string(figures.list_bytes));
      }
    }
    co_return 0;
  });
  figures.list_cpu = list_meter.read();

  figures.after_load = proc_stats(pid);
  std::cerr << mode << ": watch\n";
  run_watch(target, config, figures, pid,
            [&] { figures.stop_ms.push_back(server.process->stop(grace)); });
}

// Report ----------------------------------------------------------------------------------------

double median(const std::vector<double>& v) {
  return percentile(v, 50);
}

std::string mb(int64_t kb) {
  return fixed(static_cast<double>(kb) / 1024.0, 1);
}

std::string rate_cell(const std::optional<Throughput>& t) {
  if (!t || t->ops == 0) {
    return "—";
  }
  return fixed(t->rate(), 0) + "/s" + (t->capped ? " capped" : "");
}

std::string latency_cell(const std::optional<Throughput>& t) {
  if (!t || t->ops == 0) {
    return "—";
  }
  return fixed(percentile(t->latencies_ms, 50), 2) + " / " +
         fixed(percentile(t->latencies_ms, 99), 2);
}

std::string cpu_cell(const std::optional<CpuShare>& c) {
  if (!c) {
    return "—";
  }
  return fixed(c->server, 2) + " / " + fixed(c->bench, 2) + " / " + fixed(c->others, 2);
}

std::optional<CpuShare> cpu_of(const std::optional<Throughput>& t) {
  return t ? std::optional<CpuShare>(t->cpu) : std::nullopt;
}

std::string watch_cell(const std::optional<WatchFigures>& w) {
  if (!w) {
    return "—";
  }
  return fixed(percentile(w->delivery_ms, 50), 1) + " / " +
         fixed(percentile(w->delivery_ms, 99), 1) + " (" + std::to_string(w->delivery_ms.size()) +
         ")";
}

void print_report(const Config& config, const std::vector<ModeFigures>& modes) {
  std::cout << "| measure |";
  for (const auto& m : modes) {
    std::cout << " kube-sandbox, " << (m.mode == "ephemeral" ? "--ephemeral" : "--data-dir (Sync)")
              << " |";
  }
  std::cout << "\n|---|";
  for (size_t i = 0; i < modes.size(); ++i) {
    std::cout << "---:|";
  }
  std::cout << "\n";
  auto row = [&](const std::string& what,
                 const std::function<std::string(const ModeFigures&)>& cell) {
    std::cout << "| " << what << " |";
    for (const auto& m : modes) {
      std::cout << " " << cell(m) << " |";
    }
    std::cout << "\n";
  };
  std::string runs = std::to_string(config.ready_runs);
  row("ready: exec → /readyz 200, median of " + runs + " ms", [](const ModeFigures& m) {
    return fixed(median(m.ready_ms), 1) +
           (m.mode == "ephemeral" ? " (fresh data dir and PKI)" : " (restart)");
  });
  row("ready: exec → ready file, median ms",
      [](const ModeFigures& m) { return fixed(median(m.ready_file_ms), 1); });
  row("RSS idle, MB (VmRSS; anon + file)", [](const ModeFigures& m) {
    return m.idle.vm_rss_kb == 0 ? "—"
                                 : mb(m.idle.vm_rss_kb) + " (" + mb(m.idle.rss_anon_kb) + " + " +
                                       mb(m.idle.rss_file_kb) + ")";
  });
  std::string clients = std::to_string(config.clients) + " clients";
  row("creates/s, " + clients, [](const ModeFigures& m) { return rate_cell(m.creates); });
  row("create p50 / p99 ms", [](const ModeFigures& m) { return latency_cell(m.creates); });
  row("gets/s, " + clients, [](const ModeFigures& m) { return rate_cell(m.gets); });
  row("get p50 / p99 ms", [](const ModeFigures& m) { return latency_cell(m.gets); });
  row("get+update/s, " + clients, [](const ModeFigures& m) { return rate_cell(m.updates); });
  row("get+update p50 / p99 ms", [](const ModeFigures& m) { return latency_cell(m.updates); });
  row("server-side apply of a " + std::to_string(modes.empty() ? 0 : modes[0].apply_lines) +
          "-line Deployment, p50 / p99 ms (one client)",
      [](const ModeFigures& m) {
        return m.applies ? latency_cell(m.applies) + " (" + std::to_string(m.applies->ops) + ")"
                         : std::string("—");
      });
  row("list " + std::to_string(config.list_items) + " ConfigMaps, p50 / p99 ms (" +
          std::to_string(config.list_rounds) + " lists)",
      [](const ModeFigures& m) {
        if (m.list_ms.empty()) {
          return std::string("—");
        }
        double p50 = percentile(m.list_ms, 50);
        return fixed(p50, 1) + " / " + fixed(percentile(m.list_ms, 99), 1);
      });
  row("the same list, Accept-Encoding: gzip, p50 / p99 ms", [](const ModeFigures& m) {
    if (m.list_gzip_ms.empty()) {
      return std::string("—");
    }
    return fixed(percentile(m.list_gzip_ms, 50), 1) + " / " +
           fixed(percentile(m.list_gzip_ms, 99), 1) + " (" +
           std::to_string(m.list_gzip_bytes / 1024) + " KiB)";
  });
  std::string fan = std::to_string(config.watch_writes) + " writes to " +
                    std::to_string(config.watchers) + " watchers";
  row("watch, " + fan + ", one at a time: p50 / p99 ms (deliveries)",
      [](const ModeFigures& m) { return watch_cell(m.watch_paced); });
  row("watch, " + fan + ", back to back: p50 / p99 ms (deliveries)",
      [](const ModeFigures& m) { return watch_cell(m.watch_burst); });
  row("watch writes, p50 / p99 ms (one at a time; back to back)", [](const ModeFigures& m) {
    if (!m.watch_paced || !m.watch_burst) {
      return std::string("—");
    }
    return fixed(percentile(m.watch_paced->write_ms, 50), 2) + " / " +
           fixed(percentile(m.watch_paced->write_ms, 99), 2) + "; " +
           fixed(percentile(m.watch_burst->write_ms, 50), 2) + " / " +
           fixed(percentile(m.watch_burst->write_ms, 99), 2);
  });
  row("back-to-back round: first write → last delivery, ms", [](const ModeFigures& m) {
    return m.watch_burst ? fixed(m.watch_burst->seconds * 1000, 1) : "—";
  });
  const std::string cpu = "CPU cores, server / bench / other processes: ";
  row(cpu + "creates", [](const ModeFigures& m) { return cpu_cell(cpu_of(m.creates)); });
  row(cpu + "gets", [](const ModeFigures& m) { return cpu_cell(cpu_of(m.gets)); });
  row(cpu + "get+updates", [](const ModeFigures& m) { return cpu_cell(cpu_of(m.updates)); });
  row(cpu + "lists", [](const ModeFigures& m) { return cpu_cell(m.list_cpu); });
  row(cpu + "watch rounds", [](const ModeFigures& m) { return cpu_cell(m.watch_cpu); });
  row("RSS after the lists; after the watch rounds, watchers open, MB", [](const ModeFigures& m) {
    return m.after_load.vm_rss_kb == 0 ? "—"
                                       : mb(m.after_load.vm_rss_kb) + "; " +
                                             (m.after.vm_rss_kb == 0 ? "—" : mb(m.after.vm_rss_kb));
  });
  row("stop on SIGTERM, median ms",
      [](const ModeFigures& m) { return fixed(median(m.stop_ms), 1); });
  std::cout << "\nConfigMaps of " << config.object_bytes << " bytes as sent";
  if (!modes.empty() && modes.front().stored_object_bytes > 0) {
    std::cout << " (" << modes.front().stored_object_bytes << " bytes as served back)";
  }
  if (!modes.empty()) {
    std::cout << "; the list returns " << modes.front().list_total_items << " items in "
              << modes.front().list_bytes << " bytes";
    if (modes.front().watch_other_events > 0) {
      std::cout << "; the watchers also got " << modes.front().watch_other_events
                << " events for objects the benchmark did not write (not timed)";
    }
  }
  std::cout << "; every phase over HTTPS keep-alive connections; " << config.creates << " creates, "
            << config.gets << " gets, " << config.updates << " get+updates, each phase capped at "
            << config.time_cap.count() << " s.\n";
  for (const auto& m : modes) {
    if (!m.error.empty()) {
      std::cout << "\n- " << m.mode << ": FAILED: " << m.error << "\n";
    }
  }
}

json stats_json(const std::vector<double>& v) {
  return {{"n", v.size()},
          {"p50", percentile(v, 50)},
          {"p99", percentile(v, 99)},
          {"max", v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end())}};
}

json cpu_json(const std::optional<CpuShare>& c) {
  if (!c) {
    return nullptr;
  }
  return {{"server", c->server}, {"bench", c->bench}, {"others", c->others}};
}

json throughput_json(const std::optional<Throughput>& t) {
  if (!t) {
    return nullptr;
  }
  return {{"ops", t->ops},
          {"seconds", t->seconds},
          {"perSecond", t->rate()},
          {"capped", t->capped},
          {"latencyMs", stats_json(t->latencies_ms)},
          {"cpuCores", cpu_json(t->cpu)}};
}

json watch_json(const std::optional<WatchFigures>& w) {
  if (!w) {
    return nullptr;
  }
  return {{"deliveryMs", stats_json(w->delivery_ms)},
          {"writeMs", stats_json(w->write_ms)},
          {"seconds", w->seconds}};
}

json report_json(const Config& config, const std::vector<ModeFigures>& modes) {
  json out = {{"clients", config.clients},
              {"objectBytes", config.object_bytes},
              {"cpus", std::thread::hardware_concurrency()},
              {"modes", json::array()}};
  auto proc = [](const ProcStats& p) {
    return json{{"vmRssKb", p.vm_rss_kb},
                {"vmHwmKb", p.vm_hwm_kb},
                {"rssAnonKb", p.rss_anon_kb},
                {"rssFileKb", p.rss_file_kb},
                {"threads", p.threads}};
  };
  for (const auto& m : modes) {
    out["modes"].push_back({{"mode", m.mode},
                            {"readyMs", m.ready_ms},
                            {"readyFileMs", m.ready_file_ms},
                            {"stopMs", m.stop_ms},
                            {"idle", proc(m.idle)},
                            {"afterLoad", proc(m.after_load)},
                            {"afterWatch", proc(m.after)},
                            {"storedObjectBytes", m.stored_object_bytes},
                            {"creates", throughput_json(m.creates)},
                            {"gets", throughput_json(m.gets)},
                            {"getUpdates", throughput_json(m.updates)},
                            {"applies", throughput_json(m.applies)},
                            {"applyLines", m.apply_lines},
                            {"listMs", stats_json(m.list_ms)},
                            {"listBytes", m.list_bytes},
                            {"listGzipMs", stats_json(m.list_gzip_ms)},
                            {"listCpuCores", cpu_json(m.list_cpu)},
                            {"watchCpuCores", cpu_json(m.watch_cpu)},
                            {"listGzipBytes", m.list_gzip_bytes},
                            {"listItems", m.list_total_items},
                            {"watchOtherEvents", m.watch_other_events},
                            {"watchOneAtATime", watch_json(m.watch_paced)},
                            {"watchBackToBack", watch_json(m.watch_burst)},
                            {"error", m.error.empty() ? json(nullptr) : json(m.error)}});
  }
  return out;
}

}  // namespace

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
