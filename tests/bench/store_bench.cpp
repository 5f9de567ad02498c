// store_bench: the same workload against the embedded store and against an etcd 3.4 server on
// loopback, reported side by side as a markdown table (stdout; progress goes to stderr).
//
//   puts      durable puts/s and per-put latency with 1, 16 and 256 concurrent writers
//   range     one range over 10k keys (whole result in the caller's hands), p50
//   watch     1,000 watchers on a prefix; time from issuing a put to its event being in the
//             hands of every watcher (the slowest of the 1,000), p50/p99 over the rounds
//
// The embedded store runs in process with Durability::Sync in a temp dir. etcd is driven through
// its JSON gateway (POST /v3/kv/put, /v3/kv/range, /v3/kv/txn, /v3/watch) over HTTP/1.1
// keep-alive connections, one per writer or watcher: that path adds HTTP, JSON and base64 and
// the gateway's internal gRPC hop, so etcd's figures are those a JSON client sees, an upper
// bound of what a native gRPC client would. Every loop has a fixed count and a time cap; only
// loopback addresses are accepted. A benchmark, not a test: nothing here asserts timings.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "store/store.h"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
using bench::Clock;
using bench::fixed;
using bench::ms_since;
using bench::percentile;

namespace {

// Configuration ---------------------------------------------------------------------------------

struct Config {
  std::string etcd_host = "127.0.0.1";
  std::string etcd_port = "2379";
  bool run_embedded = true;
  bool run_etcd = true;
  std::vector<int> writers = {1, 16, 256};
  int64_t puts = 10000;  // per writer count (the time cap may end it first)
  int range_keys = 10000;
  int range_rounds = 50;
  int watchers = 1000;
  int watch_rounds = 100;
  size_t value_bytes = 256;
  std::chrono::seconds time_cap{15};  // per phase
};

const char* kUsage =
    "Usage: ks_store_bench [flags]\n\n"
    "Runs the same workload against the embedded store and an etcd 3.4 server on loopback and\n"
    "prints a markdown table.\n\n"
    "Flags:\n"
    "  --etcd HOST:PORT      etcd's client URL on loopback (default 127.0.0.1:2379)\n"
    "  --only embedded|etcd  run one side only\n"
    "  --writers LIST        concurrent writers, comma-separated (default 1,16,256)\n"
    "  --puts N              puts per writer count (default 10000)\n"
    "  --range-keys N        keys in the ranged prefix (default 10000)\n"
    "  --range-rounds N      ranges to time (default 50)\n"
    "  --watchers N          watchers on the watched prefix (default 1000)\n"
    "  --watch-rounds N      puts whose fan-out is timed (default 100)\n"
    "  --value-bytes N       value size (default 256)\n"
    "  --time-cap SECONDS    upper bound of each phase (default 15)\n";

std::optional<Config> parse_args(int argc, char** argv) {
  Config config;
  auto number = bench::parse_count;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::cerr << "ks_store_bench: " << flag << " needs a value\n" << kUsage;
      return std::nullopt;
    }
    std::string value = argv[++i];
    std::optional<int64_t> n;
    if (flag == "--etcd") {
      auto colon = value.rfind(':');
      if (colon == std::string::npos) {
        std::cerr << "ks_store_bench: --etcd wants HOST:PORT\n";
        return std::nullopt;
      }
      config.etcd_host = value.substr(0, colon);
      config.etcd_port = value.substr(colon + 1);
      continue;
    }
    if (flag == "--only") {
      if (value != "embedded" && value != "etcd") {
        std::cerr << "ks_store_bench: --only wants embedded or etcd\n";
        return std::nullopt;
      }
      config.run_embedded = value == "embedded";
      config.run_etcd = value == "etcd";
      continue;
    }
    if (flag == "--writers") {
      config.writers.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) {
        auto w = number(item);
        if (!w || *w < 1 || *w > 4096) {
          std::cerr << "ks_store_bench: --writers wants numbers in 1..4096\n";
          return std::nullopt;
        }
        config.writers.push_back(static_cast<int>(*w));
      }
      continue;
    }
    n = number(value);
    if (!n) {
      std::cerr << "ks_store_bench: " << flag << " wants a non-negative integer\n";
      return std::nullopt;
    }
    if (flag == "--puts") {
      config.puts = *n;
    } else if (flag == "--range-keys") {
      config.range_keys = static_cast<int>(*n);
    } else if (flag == "--range-rounds") {
      config.range_rounds = static_cast<int>(*n);
    } else if (flag == "--watchers") {
      config.watchers = static_cast<int>(std::min<int64_t>(*n, 10000));
    } else if (flag == "--watch-rounds") {
      config.watch_rounds = static_cast<int>(*n);
    } else if (flag == "--value-bytes") {
      config.value_bytes = static_cast<size_t>(std::min<int64_t>(*n, 1 << 20));
    } else if (flag == "--time-cap") {
      config.time_cap = std::chrono::seconds(std::max<int64_t>(*n, 1));
    } else {
      std::cerr << "ks_store_bench: unknown flag " << flag << "\n" << kUsage;
      return std::nullopt;
    }
  }
  return config;
}

// Results ---------------------------------------------------------------------------------------

struct PutFigures {
  int64_t done = 0;
  double seconds = 0;
  std::vector<double> latencies_ms;
  bool capped = false;
  std::string error;
};

struct Figures {
  std::map<int, PutFigures> puts;  // by writer count
  std::vector<double> range_ms;
  int64_t range_count = 0;
  std::vector<double> watch_all_ms;   // per round: put issued -> last watcher has it
  std::vector<double> watch_each_ms;  // per round and watcher
  int watch_rounds_done = 0;
  std::vector<std::string> notes;
};

std::string key_of(const std::string& prefix, int64_t n) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%08lld", static_cast<long long>(n));
  return prefix + digits;
}

// The embedded store ----------------------------------------------------------------------------

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ks-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

PutFigures embedded_puts(store::Store& db, const Config& config, int writers) {
  PutFigures figures;
  std::atomic<int64_t> next{0};
  std::mutex mu;  // guards figures while writers merge their samples
  const std::string value(config.value_bytes, 'v');
  auto start = Clock::now();
  auto deadline = start + config.time_cap;
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&] {
      std::vector<double> samples;
      std::string error;
      for (int64_t i = next++; i < config.puts; i = next++) {
        if (Clock::now() > deadline) {
          break;
        }
        store::PutRequest request;
        request.key = key_of("/bench/put/", i % 10000);
        request.value = value;
        auto t0 = Clock::now();
        auto result = db.put(request);
        if (!result.is_ok()) {
          error = result.status().message();
          break;
        }
        samples.push_back(ms_since(t0, Clock::now()));
      }
      std::lock_guard lock(mu);
      figures.latencies_ms.insert(figures.latencies_ms.end(), samples.begin(), samples.end());
      if (!error.empty()) {
        figures.error = error;
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  figures.seconds = ms_since(start, Clock::now()) / 1000;
  figures.done = static_cast<int64_t>(figures.latencies_ms.size());
  figures.capped = figures.done < config.puts && figures.error.empty();
  return figures;
}

bool embedded_load(store::Store& db, const std::string& prefix, int count, size_t value_bytes,
                   std::string& error) {
  const std::string value(value_bytes, 'r');
  for (int base = 0; base < count; base += 128) {
    store::TxnRequest txn;
    for (int i = base; i < std::min(count, base + 128); ++i) {
      store::PutRequest put;
      put.key = key_of(prefix, i);
      put.value = value;
      txn.success.push_back(store::RequestOp::of(std::move(put)));
    }
    auto result = db.txn(txn);
    if (!result.is_ok()) {
      error = result.status().message();
      return false;
    }
  }
  return true;
}

// Drains a share of the watchers on its own thread. The store's notify callback only queues the
// watcher's index here, as the Watcher contract asks.
class WatchConsumer {
 public:
  WatchConsumer(std::vector<std::shared_ptr<store::Watcher>>& watchers,
                std::vector<Clock::time_point>& delivered, std::atomic<int>& events)
      : watchers_(watchers), delivered_(delivered), events_(events) {
    thread_ = std::thread([this] { loop(); });
  }
  ~WatchConsumer() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void notify(size_t index) {
    {
      std::lock_guard lock(mu_);
      ready_.push_back(index);
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    std::vector<size_t> batch;
    for (;;) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !ready_.empty(); });
        if (stop_) {
          return;
        }
        batch.swap(ready_);
      }
      for (size_t index : batch) {
        store::WatchResponse response;
        while (watchers_[index]->try_next(response)) {
          if (!response.events.empty()) {
            delivered_[index] = Clock::now();
            events_.fetch_add(1);
          }
        }
      }
      batch.clear();
    }
  }

  std::vector<std::shared_ptr<store::Watcher>>& watchers_;
  std::vector<Clock::time_point>& delivered_;  // slot i written only by watcher i's consumer
  std::atomic<int>& events_;
  std::mutex mu_;  // guards ready_ and stop_
  std::condition_variable cv_;
  std::vector<size_t> ready_;
  bool stop_ = false;
  std::thread thread_;
};

void embedded_watch(store::Store& db, const Config& config, Figures& figures) {
  const int n = config.watchers;
  std::vector<std::shared_ptr<store::Watcher>> watchers;
  store::WatchRequest request;
  request.key = "/bench/watch/";
  request.range_end = store::prefix_range_end(request.key);
  for (int i = 0; i < n; ++i) {
    watchers.push_back(db.watch(request));
    store::WatchResponse created;
    if (!watchers.back()->next(created, std::chrono::seconds(5)) || !created.created) {
      figures.notes.push_back("embedded: watcher " + std::to_string(i) + " was not created");
      return;
    }
  }
  std::vector<Clock::time_point> delivered(n);
  std::atomic<int> events{0};
  {
    std::vector<std::unique_ptr<WatchConsumer>> consumers;
    for (int c = 0; c < 2; ++c) {
      consumers.push_back(std::make_unique<WatchConsumer>(watchers, delivered, events));
    }
    for (int i = 0; i < n; ++i) {
      WatchConsumer* consumer = consumers[i % consumers.size()].get();
      watchers[i]->set_notify([consumer, i] { consumer->notify(i); });
    }
    auto phase_deadline = Clock::now() + config.time_cap;
    const std::string value(config.value_bytes, 'w');
    for (int round = 0; round < config.watch_rounds && Clock::now() < phase_deadline; ++round) {
      store::PutRequest put;
      put.key = key_of("/bench/watch/", round);
      put.value = value;
      auto t0 = Clock::now();
      if (auto r = db.put(put); !r.is_ok()) {
        figures.notes.push_back("embedded watch put: " + r.status().message());
        break;
      }
      const int want = n * (round + 1);
      auto round_deadline = Clock::now() + std::chrono::seconds(10);
      while (events.load() < want && Clock::now() < round_deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (events.load() < want) {
        figures.notes.push_back("embedded: round " + std::to_string(round) + " reached only " +
                                std::to_string(events.load() - n * round) + " watchers");
        break;
      }
      Clock::time_point last = t0;
      for (const auto& at : delivered) {
        figures.watch_each_ms.push_back(ms_since(t0, at));
        last = std::max(last, at);
      }
      figures.watch_all_ms.push_back(ms_since(t0, last));
      ++figures.watch_rounds_done;
    }
    for (auto& w : watchers) {
      w->set_notify([] {});
    }
  }
  for (auto& w : watchers) {
    w->cancel();
  }
}

Figures run_embedded(const Config& config) {
  Figures figures;
  TempDir dir;
  store::Options options;
  options.dir = dir.path() / "store";
  options.durability = store::Durability::Sync;
  options.watcher_buffer = 4096;
  auto opened = store::Store::open(options);
  if (!opened.is_ok()) {
    figures.notes.push_back("embedded: open failed: " + opened.status().message());
    return figures;
  }
  auto& db = *opened.value();
  for (int writers : config.writers) {
    std::cerr << "embedded: puts with " << writers << " writers\n";
    figures.puts[writers] = embedded_puts(db, config, writers);
  }
  std::cerr << "embedded: loading " << config.range_keys << " keys\n";
  std::string error;
  if (!embedded_load(db, "/bench/range/", config.range_keys, config.value_bytes, error)) {
    figures.notes.push_back("embedded: load failed: " + error);
  } else {
    store::RangeRequest range;
    range.key = "/bench/range/";
    range.range_end = store::prefix_range_end(range.key);
    auto deadline = Clock::now() + config.time_cap;
    for (int i = 0; i < config.range_rounds && Clock::now() < deadline; ++i) {
      auto t0 = Clock::now();
      auto result = db.range(range);
      figures.range_ms.push_back(ms_since(t0, Clock::now()));
      if (!result.is_ok()) {
        figures.notes.push_back("embedded range: " + result.status().message());
        break;
      }
      figures.range_count = static_cast<int64_t>(result->kvs.size());
    }
  }
  std::cerr << "embedded: watch fan-out to " << config.watchers << " watchers\n";
  embedded_watch(db, config, figures);
  return figures;
}

// etcd through its JSON gateway ------------------------------------------------------------------

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int have = 0;
  for (unsigned char c : bytes) {
    bits = bits << 8 | c;
    have += 8;
    while (have >= 6) {
      have -= 6;
      out += kAlphabet[bits >> have & 63];
    }
  }
  if (have > 0) {
    out += kAlphabet[bits << (6 - have) & 63];
  }
  while (out.size() % 4 != 0) {
    out += '=';
  }
  return out;
}

constexpr auto kIoTimeout = std::chrono::seconds(10);
constexpr size_t kBodyLimit = 256u << 20;

struct EtcdClient {
  tcp::endpoint endpoint;
  std::string host_header;
};

http::request<http::string_body> json_post(const EtcdClient& etcd, const std::string& target,
                                           std::string body) {
  http::request<http::string_body> request{http::verb::post, target, 11};
  request.set(http::field::host, etcd.host_header);
  request.set(http::field::content_type, "application/json");
  request.keep_alive(true);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

awaitable<beast::tcp_stream> connect(const EtcdClient& etcd) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  stream.expires_after(kIoTimeout);
  co_await stream.async_connect(etcd.endpoint, use_awaitable);
  stream.socket().set_option(tcp::no_delay(true));
  co_return stream;
}

// One request/response on a keep-alive connection; throws on transport errors and non-200.
awaitable<std::string> post(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                            const EtcdClient& etcd, const std::string& target, std::string body) {
  auto request = json_post(etcd, target, std::move(body));
  stream.expires_after(kIoTimeout);
  co_await http::async_write(stream, request, use_awaitable);
  http::response_parser<http::string_body> parser;
  parser.body_limit(kBodyLimit);
  co_await http::async_read(stream, buffer, parser, use_awaitable);
  auto& response = parser.get();
  if (response.result() != http::status::ok) {
    throw std::runtime_error(target + ": HTTP " + std::to_string(response.result_int()) + " " +
                             response.body().substr(0, 200));
  }
  co_return std::move(response.body());
}

std::string put_body(const std::string& key, const std::string& value) {
  return R"({"key":")" + base64(key) + R"(","value":")" + base64(value) + "\"}";
}

awaitable<void> etcd_puts(const EtcdClient& etcd, const Config& config, int writers,
                          PutFigures& figures) {
  std::vector<beast::tcp_stream> streams;
  for (int w = 0; w < writers; ++w) {
    streams.push_back(co_await connect(etcd));
  }
  int64_t next = 0;
  int running = writers;
  const std::string value(config.value_bytes, 'v');
  auto start = Clock::now();
  auto deadline = start + config.time_cap;
  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer all_done(executor, Clock::time_point::max());
  for (auto& s : streams) {
    asio::co_spawn(
        executor,
        [&, stream = &s]() -> awaitable<void> {
          beast::flat_buffer buffer;
          for (int64_t i = next++; i < config.puts && Clock::now() < deadline; i = next++) {
            auto t0 = Clock::now();
            co_await post(*stream, buffer, etcd, "/v3/kv/put",
                          put_body(key_of("/bench/put/", i % 10000), value));
            figures.latencies_ms.push_back(ms_since(t0, Clock::now()));
          }
        },
        [&](std::exception_ptr e) {
          if (e) {
            try {
              std::rethrow_exception(e);
            } catch (const std::exception& error) {
              figures.error = error.what();
            }
          }
          if (--running == 0) {
            all_done.cancel();
          }
        });
  }
  // The writers start only once this coroutine suspends, so `running` is still positive here.
  boost::system::error_code ec;
  co_await all_done.async_wait(asio::redirect_error(use_awaitable, ec));
  figures.seconds = ms_since(start, Clock::now()) / 1000;
  figures.done = static_cast<int64_t>(figures.latencies_ms.size());
  figures.capped = figures.done < config.puts && figures.error.empty();
}

awaitable<void> etcd_range(const EtcdClient& etcd, const Config& config, Figures& figures) {
  auto stream = co_await connect(etcd);
  beast::flat_buffer buffer;
  const std::string prefix = "/bench/range/";
  const std::string value(config.value_bytes, 'r');
  // etcd's default --max-txn-ops is 128.
  for (int base = 0; base < config.range_keys; base += 128) {
    std::string ops;
    for (int i = base; i < std::min(config.range_keys, base + 128); ++i) {
      ops += (ops.empty() ? "" : ",") + std::string(R"({"request_put":)") +
             put_body(key_of(prefix, i), value) + "}";
    }
    co_await post(stream, buffer, etcd, "/v3/kv/txn", R"({"success":[)" + ops + "]}");
  }
  const std::string range = R"({"key":")" + base64(prefix) + R"(","range_end":")" +
                            base64(store::prefix_range_end(prefix)) + "\"}";
  auto deadline = Clock::now() + config.time_cap;
  for (int i = 0; i < config.range_rounds && Clock::now() < deadline; ++i) {
    auto t0 = Clock::now();
    std::string body = co_await post(stream, buffer, etcd, "/v3/kv/range", range);
    figures.range_ms.push_back(ms_since(t0, Clock::now()));
    if (i == 0) {
      // Checked once, outside the timing: the gateway encodes int64 as JSON strings.
      auto doc = nlohmann::json::parse(body);
      figures.range_count = static_cast<int64_t>(doc.value("kvs", nlohmann::json::array()).size());
    }
  }
}

// One streaming /v3/watch request: the gateway answers with newline-separated JSON messages in
// a chunked body. Only the arrival of a message with events is timed; it is not decoded.
struct EtcdWatcher {
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  http::response_parser<http::empty_body> parser;
  std::string pending;  // bytes of a message not yet ended by '\n'
  bool created = false;
  int events = 0;
  Clock::time_point delivered;

  explicit EtcdWatcher(beast::tcp_stream s) : stream(std::move(s)) {}
};

awaitable<void> etcd_watch_reader(EtcdWatcher& w, int& created_count, int& event_count) {
  w.parser.body_limit(boost::none);
  auto on_chunk = [&](std::uint64_t, beast::string_view body, boost::system::error_code&) {
    w.pending.append(body.data(), body.size());
    for (size_t end; (end = w.pending.find('\n')) != std::string::npos;) {
      std::string_view line(w.pending.data(), end);
      if (line.find("\"events\"") != std::string_view::npos) {
        w.delivered = Clock::now();
        ++w.events;
        ++event_count;
      } else if (!w.created && line.find("\"created\":true") != std::string_view::npos) {
        w.created = true;
        ++created_count;
      }
      w.pending.erase(0, end + 1);
    }
    return body.size();
  };
  w.parser.on_chunk_body(on_chunk);
  w.stream.expires_never();
  co_await http::async_read_header(w.stream, w.buffer, w.parser, use_awaitable);
  if (w.parser.get().result() != http::status::ok) {
    throw std::runtime_error("/v3/watch: HTTP " + std::to_string(w.parser.get().result_int()));
  }
  while (!w.parser.is_done()) {
    co_await http::async_read_some(w.stream, w.buffer, w.parser, use_awaitable);
  }
}

// Waits, polling, until `done` holds or the deadline passes; returns whether it holds.
template <typename Done>
awaitable<bool> wait_until(Done done, Clock::time_point deadline) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!done()) {
    if (Clock::now() > deadline) {
      co_return false;
    }
    timer.expires_after(std::chrono::microseconds(200));
    co_await timer.async_wait(use_awaitable);
  }
  co_return true;
}

awaitable<void> etcd_watch(const EtcdClient& etcd, const Config& config, Figures& figures) {
  auto executor = co_await asio::this_coro::executor;
  const std::string prefix = "/bench/watch/";
  const std::string create = R"({"create_request":{"key":")" + base64(prefix) +
                             R"(","range_end":")" + base64(store::prefix_range_end(prefix)) +
                             "\"}}";
  std::vector<std::unique_ptr<EtcdWatcher>> watchers;
  int created = 0;
  int events = 0;
  int live_readers = 0;  // the readers refer to these locals: wait for them all to end
  bool closing = false;
  std::string reader_error;
  for (int i = 0; i < config.watchers; ++i) {
    watchers.push_back(std::make_unique<EtcdWatcher>(co_await connect(etcd)));
    auto& w = *watchers.back();
    auto request = json_post(etcd, "/v3/watch", create);
    w.stream.expires_after(kIoTimeout);
    co_await http::async_write(w.stream, request, use_awaitable);
    ++live_readers;
    asio::co_spawn(executor, etcd_watch_reader(w, created, events), [&](std::exception_ptr e) {
      --live_readers;
      if (e && reader_error.empty() && !closing) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& error) {
          reader_error = error.what();
        }
      }
    });
  }
  const int n = config.watchers;
  if (!co_await wait_until([&] { return created == n || !reader_error.empty(); },
                           Clock::now() + config.time_cap)) {
    figures.notes.push_back("etcd: only " + std::to_string(created) + " watchers were created");
  } else {
    auto stream = co_await connect(etcd);
    beast::flat_buffer buffer;
    const std::string value(config.value_bytes, 'w');
    auto phase_deadline = Clock::now() + config.time_cap;
    for (int round = 0; round < config.watch_rounds && Clock::now() < phase_deadline; ++round) {
      auto t0 = Clock::now();
      co_await post(stream, buffer, etcd, "/v3/kv/put", put_body(key_of(prefix, round), value));
      const int want = n * (round + 1);
      if (!co_await wait_until([&] { return events >= want || !reader_error.empty(); },
                               Clock::now() + std::chrono::seconds(10)) ||
          !reader_error.empty()) {
        figures.notes.push_back("etcd: round " + std::to_string(round) + " reached only " +
                                std::to_string(events - n * round) + " watchers");
        break;
      }
      Clock::time_point last = t0;
      for (const auto& w : watchers) {
        figures.watch_each_ms.push_back(ms_since(t0, w->delivered));
        last = std::max(last, w->delivered);
      }
      figures.watch_all_ms.push_back(ms_since(t0, last));
      ++figures.watch_rounds_done;
    }
  }
  if (!reader_error.empty()) {
    figures.notes.push_back("etcd watch: " + reader_error);
  }
  closing = true;
  for (auto& w : watchers) {
    boost::system::error_code ec;
    w->stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    w->stream.close();
  }
  co_await wait_until([&] { return live_readers == 0; }, Clock::now() + kIoTimeout);
}

awaitable<void> etcd_all(const EtcdClient& etcd, const Config& config, Figures& figures) {
  for (int writers : config.writers) {
    std::cerr << "etcd: puts with " << writers << " writers\n";
    co_await etcd_puts(etcd, config, writers, figures.puts[writers]);
  }
  std::cerr << "etcd: loading " << config.range_keys << " keys and ranging\n";
  co_await etcd_range(etcd, config, figures);
  std::cerr << "etcd: watch fan-out to " << config.watchers << " watchers\n";
  co_await etcd_watch(etcd, config, figures);
}

bool is_loopback(const tcp::endpoint& endpoint) {
  return endpoint.address().is_loopback();
}

Figures run_etcd(const Config& config) {
  Figures figures;
  asio::io_context io;
  EtcdClient etcd;
  try {
    tcp::resolver resolver(io);
    auto results = resolver.resolve(config.etcd_host, config.etcd_port);
    for (const auto& entry : results) {
      if (is_loopback(entry.endpoint())) {
        etcd.endpoint = entry.endpoint();
        break;
      }
    }
    if (etcd.endpoint.port() == 0) {
      figures.notes.push_back("etcd: " + config.etcd_host +
                              " is not a loopback address; refusing to benchmark it");
      return figures;
    }
  } catch (const std::exception& e) {
    figures.notes.push_back(std::string("etcd: cannot resolve: ") + e.what());
    return figures;
  }
  etcd.host_header = config.etcd_host + ":" + config.etcd_port;
  asio::co_spawn(io, etcd_all(etcd, config, figures), [&](std::exception_ptr e) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& error) {
        figures.notes.push_back(std::string("etcd: ") + error.what());
      }
    }
  });
  io.run();
  return figures;
}

// Report ----------------------------------------------------------------------------------------

std::string put_cell(const Figures* f, int writers, int which) {
  if (f == nullptr || !f->puts.count(writers) || f->puts.at(writers).done == 0) {
    return "—";
  }
  const auto& p = f->puts.at(writers);
  switch (which) {
    case 0:
      return fixed(static_cast<double>(p.done) / p.seconds, 0) + (p.capped ? " (capped)" : "");
    case 1:
      return fixed(percentile(p.latencies_ms, 50), 2);
    default:
      return fixed(percentile(p.latencies_ms, 99), 2);
  }
}

// The disk's own cost of one durable write, the yardstick for a single writer's latency: a 4 KiB
// write at the end of a file followed by fdatasync, p50 over `samples` rounds.
double fsync_p50_ms(int samples) {
  std::string pattern = (std::filesystem::temp_directory_path() / "ks-fsync-XXXXXX").string();
  int fd = mkstemp(pattern.data());
  if (fd < 0) {
    return -1;
  }
  std::string block(4096, 'x');
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) ||
        fdatasync(fd) != 0) {
      break;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  close(fd);
  unlink(pattern.c_str());
  return ms.empty() ? -1 : percentile(ms, 50);
}

void print_report(const Config& config, const Figures* embedded, const Figures* etcd) {
  auto row = [](const std::string& what, const std::string& a, const std::string& b) {
    std::cout << "| " << what << " | " << a << " | " << b << " |\n";
  };
  auto both = [&](const std::string& what, auto cell) {
    row(what, embedded ? cell(*embedded) : "—", etcd ? cell(*etcd) : "—");
  };
  std::cout << "One fsync on this disk (4 KiB write + fdatasync), p50: "
            << fixed(fsync_p50_ms(200), 2) << " ms\n\n";
  std::cout << "| workload | embedded store (Sync) | etcd 3.4 (JSON gateway) |\n"
            << "|---|---:|---:|\n";
  for (int w : config.writers) {
    std::string n = std::to_string(w) + (w == 1 ? " writer" : " writers");
    row("durable puts/s, " + n, put_cell(embedded, w, 0), put_cell(etcd, w, 0));
    row("put p50 / p99 ms, " + n, put_cell(embedded, w, 1) + " / " + put_cell(embedded, w, 2),
        put_cell(etcd, w, 1) + " / " + put_cell(etcd, w, 2));
  }
  both("range " + std::to_string(config.range_keys) + " keys, p50 ms", [](const Figures& f) {
    return fixed(percentile(f.range_ms, 50), 2) + " (" + std::to_string(f.range_count) + " kvs)";
  });
  both("watch fan-out to " + std::to_string(config.watchers) + ", all delivered p50 / p99 ms",
       [](const Figures& f) {
         return fixed(percentile(f.watch_all_ms, 50), 2) + " / " +
                fixed(percentile(f.watch_all_ms, 99), 2) + " (" +
                std::to_string(f.watch_rounds_done) + " rounds)";
       });
  both("watch, each watcher p50 / p99 ms", [](const Figures& f) {
    return fixed(percentile(f.watch_each_ms, 50), 2) + " / " +
           fixed(percentile(f.watch_each_ms, 99), 2);
  });
  std::cout << "\nValues of " << config.value_bytes << " bytes; up to " << config.puts
            << " puts per writer count; each phase capped at " << config.time_cap.count()
            << " s. Puts and latencies are measured from the call (embedded) or the request "
               "(etcd) to its acknowledgement; watch delivery is from issuing the put to the "
               "event being in the consumer's hands.\n";
  auto notes = [](const char* side, const Figures* f) {
    if (f == nullptr) {
      return;
    }
    for (const auto& [w, p] : f->puts) {
      if (!p.error.empty()) {
        std::cout << "\n- " << side << ", " << w << " writers: " << p.error;
      }
    }
    for (const auto& note : f->notes) {
      std::cout << "\n- " << note;
    }
  };
  notes("embedded", embedded);
  notes("etcd", etcd);
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  auto config = parse_args(argc, argv);
  if (!config) {
    return 2;
  }
  bench::raise_open_file_limit();
  try {
    std::optional<Figures> embedded;
    std::optional<Figures> etcd;
    if (config->run_embedded) {
      embedded = run_embedded(*config);
    }
    if (config->run_etcd) {
      etcd = run_etcd(*config);
    }
    print_report(*config, embedded ? &*embedded : nullptr, etcd ? &*etcd : nullptr);
  } catch (const std::exception& e) {
    std::cerr << "ks_store_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
