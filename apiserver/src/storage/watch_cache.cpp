#include "storage/watch_cache.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "guard.h"
#include "storage/stored_values.h"

namespace apiserver::storage {
namespace {

bool key_in(const std::string& key, const std::string& prefix, bool exact) {
  return exact ? key == prefix : key.compare(0, prefix.size(), prefix) == 0;
}

// One API watcher served by a cache: a bounded queue of store responses, filtered to its keys
// and revisions.
class CacheWatcher final : public store::Watcher {
 public:
  CacheWatcher(int64_t id, std::string prefix, bool exact, int64_t from, size_t capacity,
               std::function<void()> ask_progress)
      : id_(id),
        prefix_(std::move(prefix)),
        exact_(exact),
        from_(from),
        capacity_(capacity),
        ask_progress_(std::move(ask_progress)) {
    store::WatchResponse created;
    created.watch_id = id_;
    created.created = true;
    created.header.revision = from - 1;
    queue_.push_back(std::move(created));
  }

  int64_t id() const override { return id_; }

  bool next(store::WatchResponse& out, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return !queue_.empty(); });
    return pop_locked(out);
  }

  bool try_next(store::WatchResponse& out) override {
    std::lock_guard lock(mu_);
    return pop_locked(out);
  }

  void set_notify(std::function<void()> notify) override {
    bool pending = false;
    {
      std::lock_guard lock(mu_);
      notify_ = notify;
      pending = !queue_.empty();
    }
    if (pending && notify) {
      notify();
    }
  }

  void request_progress() override {
    {
      std::lock_guard lock(mu_);
      if (ended_) {
        return;
      }
      progress_wanted_ = true;
    }
    ask_progress_();
  }

  void cancel() override { end("", 0); }

  bool finished() const override {
    std::lock_guard lock(mu_);
    return ended_ && queue_.empty();
  }

  // Whether an event for `key` is this watcher's (its keys; set once, read without the lock).
  bool covers(const std::string& key) const { return key_in(key, prefix_, exact_); }

  // Cache side. The events of one store response that concern this watcher.
  void deliver(const store::WatchResponse& response) {
    if (response.header.revision < from_) {
      return;
    }
    store::WatchResponse mine;
    mine.watch_id = id_;
    mine.header = response.header;
    for (const auto& e : response.events) {
      if (key_in(e.kv.key, prefix_, exact_)) {
        mine.events.push_back(e);
      }
    }
    if (!mine.events.empty()) {
      push(std::move(mine));
    }
  }

  void deliver_progress(int64_t revision) {
    {
      std::lock_guard lock(mu_);
      if (!progress_wanted_) {
        return;
      }
      progress_wanted_ = false;
    }
    store::WatchResponse progress;
    progress.watch_id = id_;
    progress.header.revision = revision;
    push(std::move(progress));
  }

  // Ends the watch with a final canceled response (no-op when it already ended);
  // `compact_revision` > 0 says the history it needs is gone (the API answers 410 Expired).
  void end(const std::string& reason, int64_t compact_revision) {
    std::function<void()> notify;
    {
      std::lock_guard lock(mu_);
      if (ended_) {
        return;
      }
      ended_ = true;
      store::WatchResponse canceled;
      canceled.watch_id = id_;
      canceled.canceled = true;
      canceled.cancel_reason = reason;
      canceled.compact_revision = compact_revision;
      queue_.push_back(std::move(canceled));
      notify = notify_;
    }
    cv_.notify_all();
    if (notify) {
      notify();
    }
  }

  bool ended() const {
    std::lock_guard lock(mu_);
    return ended_;
  }

  int64_t from() const { return from_; }

 private:
  void push(store::WatchResponse response) {
    std::function<void()> notify;
    bool cut_off = false;
    {
      std::lock_guard lock(mu_);
      if (ended_) {
        return;
      }
      if (queue_.size() >= capacity_) {
        cut_off = true;
      } else {
        queue_.push_back(std::move(response));
        notify = notify_;
      }
    }
    if (cut_off) {
      // Never wait for a slow client: end its watch; it resumes from the last revision it saw.
      end("the watcher fell behind and was cut off", 0);
      return;
    }
    cv_.notify_all();
    if (notify) {
      notify();
    }
  }

  bool pop_locked(store::WatchResponse& out) {
    if (queue_.empty()) {
      return false;
    }
    out = std::move(queue_.front());
    queue_.pop_front();
    return true;
  }

  const int64_t id_;
  const std::string prefix_;
  const bool exact_;
  const int64_t from_;
  const size_t capacity_;
  const std::function<void()> ask_progress_;
  mutable std::mutex mu_;  // protects queue_, ended_, notify_, progress_wanted_
  std::condition_variable cv_;
  std::deque<store::WatchResponse> queue_;
  bool ended_ = false;
  bool progress_wanted_ = false;
  std::function<void()> notify_;
};

}  // namespace

// The cache of one resource: the store watch, the window of recent responses and the watchers.
class WatchCache {
 public:
  WatchCache(WatchCacheSet& set, store::Store& store, std::string root, WatchCacheLimits limits)
      : set_(set), store_(store), root_(std::move(root)), limits_(limits) {
    std::lock_guard lock(mu_);
    restart_locked(store_.current_revision() + 1);
    window_start_ = next_revision_;
  }

  ~WatchCache() {
    std::lock_guard lock(mu_);
    if (source_) {
      source_->set_notify(nullptr);
      source_->cancel();
    }
  }

  std::shared_ptr<store::Watcher> add(const std::string& prefix, bool exact, int64_t from) {
    std::lock_guard lock(mu_);
    if (from <= 0) {
      from = next_revision_;
    }
    // Older than what the cache holds, or compacted (the cache keeps nothing the store has
    // dropped, so every watch follows one rule: any revision that is not compacted): the caller
    // reads the store, whose history answers or says "compacted".
    if (from < window_start_ || from <= store_.compacted_revision()) {
      return nullptr;
    }
    auto watcher = std::make_shared<CacheWatcher>(
        ++last_id_, prefix, exact, from, limits_.watcher_queue, [this] { ask_progress(); });
    for (const auto& response : window_) {
      watcher->deliver(response);
    }
    watchers_.push_back(watcher);
    return watcher;
  }

  // The open watchers an event for `key` goes to.
  size_t covering(const std::string& key) {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto& weak : watchers_) {
      auto w = weak.lock();
      if (w && !w->ended() && w->covers(key)) {
        ++n;
      }
    }
    return n;
  }

  // Dispatcher thread: takes what the store watch has and fans it out.
  void drain() {
    std::lock_guard lock(mu_);
    store::WatchResponse response;
    while (source_ && source_->try_next(response)) {
      if (response.created && !response.canceled) {
        continue;
      }
      if (response.canceled) {
        if (response.compact_revision > 0) {
          lose_history_locked(response.compact_revision);
        } else {
          restart_locked(next_revision_);  // our own store watch fell behind: resume it
        }
        continue;
      }
      if (response.is_progress_notify()) {
        next_revision_ = std::max(next_revision_, response.header.revision + 1);
        for (auto& w : live_locked()) {
          w->deliver_progress(response.header.revision);
        }
        continue;
      }
      next_revision_ = response.header.revision + 1;
      for (auto& w : live_locked()) {
        w->deliver(response);
      }
      window_.push_back(std::move(response));
      if (window_.size() > limits_.window_responses) {
        window_start_ = window_.front().header.revision + 1;
        window_.pop_front();
      }
    }
  }

  void close_all() {
    std::lock_guard lock(mu_);
    for (auto& w : live_locked()) {
      w->end("", 0);
    }
    watchers_.clear();
  }

  // The store's history below `floor` is gone (Store::replace_all): unless the store watch
  // already told drain() so, start over from `floor`.
  void reset(int64_t floor) {
    std::lock_guard lock(mu_);
    if (next_revision_ < floor) {
      lose_history_locked(floor);
    }
  }

 private:
  void ask_progress() {
    std::lock_guard lock(mu_);
    if (source_) {
      source_->request_progress();
    }
  }

  void restart_locked(int64_t from) {
    if (source_) {
      source_->set_notify(nullptr);
      source_->cancel();
    }
    store::WatchRequest request;
    request.key = root_;
    request.range_end = store::prefix_range_end(root_);
    request.start_revision = from;
    request.prev_kv = true;
    source_ = decoding(store_.watch(request));  // JSON, whoever stored the values
    next_revision_ = from;
    if (source_) {
      source_->set_notify([this] { set_.wake(this); });
    }
  }

  // The store's history below `floor` is gone while the cache was still short of it. Watchers
  // that start below `floor` cannot be served any more and end with 410 Expired (they relist);
  // the window only held older revisions; the store watch starts again at `floor`, which keeps
  // watchers that start there or later whole.
  void lose_history_locked(int64_t floor) {
    for (auto& w : live_locked()) {
      if (w->from() < floor) {
        w->end("the watch cache lost its place in the store's history", floor);
      }
    }
    live_locked();
    window_.clear();
    restart_locked(floor);
    window_start_ = floor;
  }

  // The watchers still open; forgets the others.
  std::vector<std::shared_ptr<CacheWatcher>> live_locked() {
    std::vector<std::shared_ptr<CacheWatcher>> live;
    auto keep = std::remove_if(watchers_.begin(), watchers_.end(), [&](const auto& weak) {
      auto w = weak.lock();
      if (!w || w->ended()) {
        return true;
      }
      live.push_back(std::move(w));
      return false;
    });
    watchers_.erase(keep, watchers_.end());
    return live;
  }

  WatchCacheSet& set_;
  store::Store& store_;
  const std::string root_;
  const WatchCacheLimits limits_;
  std::mutex mu_;  // protects everything below
  std::shared_ptr<store::Watcher> source_;
  std::deque<store::WatchResponse> window_;
  int64_t window_start_ = 0;   // every event at or after this revision is in window_
  int64_t next_revision_ = 0;  // the store watch continues from here
  int64_t last_id_ = 0;
  std::vector<std::weak_ptr<CacheWatcher>> watchers_;
};

WatchCacheSet::WatchCacheSet(store::Store& store, WatchCacheLimits limits)
    : store_(store), limits_(limits), thread_([this] { run(); }) {}

WatchCacheSet::~WatchCacheSet() {
  {
    std::lock_guard lock(ready_mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  close_all();
  std::lock_guard lock(mu_);
  caches_.clear();
}

std::shared_ptr<store::Watcher> WatchCacheSet::watch(const std::string& resource_prefix,
                                                     const std::string& prefix, bool exact,
                                                     int64_t from_revision) {
  std::shared_ptr<WatchCache> cache;
  {
    std::lock_guard lock(mu_);
    auto& slot = caches_[resource_prefix];
    if (!slot) {
      slot = std::make_shared<WatchCache>(*this, store_, resource_prefix, limits_);
    }
    cache = slot;
  }
  return cache->add(prefix, exact, from_revision);
}

void WatchCacheSet::reset_all(int64_t floor) {
  std::vector<std::shared_ptr<WatchCache>> caches;
  {
    std::lock_guard lock(mu_);
    for (auto& [prefix, cache] : caches_) {
      caches.push_back(cache);
    }
  }
  for (auto& cache : caches) {
    cache->reset(floor);
  }
}

void WatchCacheSet::close_all() {
  std::vector<std::shared_ptr<WatchCache>> caches;
  {
    std::lock_guard lock(mu_);
    for (auto& [prefix, cache] : caches_) {
      caches.push_back(cache);
    }
  }
  for (auto& cache : caches) {
    cache->close_all();
  }
}

size_t WatchCacheSet::watchers_of(const std::string& key) const {
  std::vector<std::shared_ptr<WatchCache>> caches;
  {
    std::lock_guard lock(mu_);
    for (const auto& [root, cache] : caches_) {
      if (key.compare(0, root.size(), root) == 0) {
        caches.push_back(cache);
      }
    }
  }
  size_t n = 0;
  for (const auto& cache : caches) {
    n += cache->covering(key);
  }
  return n;
}

size_t WatchCacheSet::caches() const {
  std::lock_guard lock(mu_);
  return caches_.size();
}

void WatchCacheSet::wake(WatchCache* cache) {
  {
    std::lock_guard lock(ready_mu_);
    if (std::find(ready_.begin(), ready_.end(), cache) == ready_.end()) {
      ready_.push_back(cache);
    }
  }
  cv_.notify_one();
}

void WatchCacheSet::run() {
  std::unique_lock lock(ready_mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !ready_.empty(); });
    if (stop_) {
      return;
    }
    std::vector<WatchCache*> ready;
    ready.swap(ready_);
    lock.unlock();
    for (WatchCache* cache : ready) {
      // Caches live as long as the set, and the set outlives this thread.
      run_guarded("the watch cache", [cache] { cache->drain(); });
    }
    lock.lock();
  }
}

}  // namespace apiserver::storage
