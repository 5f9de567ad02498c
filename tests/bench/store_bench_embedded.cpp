// The embedded store's side: puts with each writer count, a range over the loaded keys, and the
// watch fan-out, all in process.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "store_bench.h"

namespace store_bench {

namespace {

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

}  // namespace

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

}  // namespace store_bench
