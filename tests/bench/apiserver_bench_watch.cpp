// The watch phase: watchers on one namespace, then writes one at a time and back to back, each
// delivery timed from the start of its write and matched against it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "apiserver_bench_figures.h"

namespace apiserver_bench {

namespace {

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

}  // namespace

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

}  // namespace apiserver_bench
