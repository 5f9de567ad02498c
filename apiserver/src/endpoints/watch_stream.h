// A watch's response body, and the ticker that ends watches at their deadline.
//
// WatchStream turns a store watcher's events into JSON watch events (ADDED, MODIFIED, DELETED,
// BOOKMARK, ERROR), filtered by the watch's selectors: an object that starts matching is ADDED
// and one that stops matching is DELETED, as kube-apiserver's watch cache does. Events waiting
// for one client go out together, one chunk per batch.
//
// Thread-safety: the server's writer thread calls next/finished/set_wakeup, the ticker thread
// tick, and close may come from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "endpoints/collection.h"
#include "errors/result.h"
#include "store/watch.h"

namespace apiserver::endpoints {

// A streamed response the ticker looks after: it is ticked every second (to end it at its
// deadline, or to let it produce what is due), and counted while not done.
class TickedStream : public http::ChunkStream {
 public:
  virtual void tick(std::chrono::steady_clock::time_point now) = 0;
  virtual bool done() const = 0;
  virtual const std::string& user() const = 0;
  // Watches count against the per-user watch limit; other streams (logs) do not.
  virtual bool is_watch() const { return true; }
};

class WatchStream final : public TickedStream {
 public:
  // What an event carries for an object: the object itself, or a Table of one row. A failure
  // (a conversion webhook that did not answer) becomes an ERROR event carrying its Status.
  using Presenter = std::function<errors::Result<nlohmann::json>(const nlohmann::json&)>;

  // `initial`: events already rendered (a watch from resourceVersion 0 starts with the list).
  // `bookmark_type` is {"kind", "apiVersion"} of the BOOKMARK objects, or null for none.
  // `requested_rv` is named in the 410 when the watcher's revision was compacted; `user` opened it.
  WatchStream(std::shared_ptr<store::Watcher> watcher, std::deque<std::string> initial,
              std::chrono::steady_clock::time_point deadline, nlohmann::json bookmark_type,
              int64_t requested_rv, Selection selection, Presenter present, std::string user);

  bool next(std::string& chunk) override;
  bool finished() const override;
  void set_wakeup(std::function<void()> wakeup) override;
  void close() override { finish(); }

  // Called by the ticker: ends the watch at its deadline; asks for a bookmark now and then.
  void tick(std::chrono::steady_clock::time_point now) override;

  bool done() const override { return closed_; }
  const std::string& user() const override { return user_; }

 private:
  void finish();
  static std::string error_event(int code, const std::string& reason, const std::string& message);
  // A store event as a watch event line ("" when the selectors drop it).
  std::string convert(const store::Event& e) const;

  const std::string user_;  // who opened it (the per-user watch limit)
  const Selection selection_;
  const Presenter present_;
  const int64_t requested_rv_;
  std::shared_ptr<store::Watcher> watcher_;
  mutable std::mutex mu_;  // protects pending_, wakeup_
  std::deque<std::string> pending_;
  std::function<void()> wakeup_;
  std::atomic<bool> closed_{false};
  const std::chrono::steady_clock::time_point deadline_;
  const nlohmann::json bookmark_type_;
  std::chrono::steady_clock::time_point last_bookmark_;  // used by the ticker thread only
};

// Ends watches at their deadline (timeoutSeconds) and on shutdown, and counts the open ones;
// ticks the other streamed responses (followed logs) too.
class WatchTicker {
 public:
  WatchTicker();
  ~WatchTicker();

  void add(const std::shared_ptr<TickedStream>& stream);
  size_t count();
  size_t count_for(const std::string& user);
  void close_all();

 private:
  void run();

  std::mutex mu_;  // protects streams_, stop_
  std::condition_variable cv_;
  std::vector<std::weak_ptr<TickedStream>> streams_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace apiserver::endpoints
