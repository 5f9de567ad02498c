// etcd's side, through its JSON gateway over HTTP/1.1 keep-alive connections: puts with each
// writer count, a range over the loaded keys, and the watch fan-out on streaming /v3/watch
// requests.
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"
#include "store_bench.h"

namespace store_bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

namespace {

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

}  // namespace

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

}  // namespace store_bench
