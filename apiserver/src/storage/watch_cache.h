// The watch cache: one store watch per resource feeds every API watcher of that resource, as
// kube-apiserver's cacher does. The cache keeps a bounded window of the newest events so that a
// watcher starting at a recent revision is served from memory; each watcher has its own bounded
// queue and is cut off (its watch ends, the client watches again) when it falls behind, so a slow
// client never holds up the others or the store.
//
// Watchers implement store::Watcher, so the code that turns store events into API watch events
// does not care whether it reads the store or the cache. A watcher asking for a revision older
// than the window, or compacted, gets nullptr from WatchCacheSet::watch, and the caller watches
// the store directly (the store keeps history until compaction, then answers "compacted").
//
// Threads: one dispatcher thread drains every cache's store watch and fans the responses out.
// All methods are thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"

namespace apiserver::storage {

struct WatchCacheLimits {
  size_t window_responses = 4096;  // newest store responses kept per resource for replay
  size_t watcher_queue = 1024;     // responses one watcher may have waiting before it is cut off
};

class WatchCache;

class WatchCacheSet {
 public:
  explicit WatchCacheSet(store::Store& store, WatchCacheLimits limits = {});
  ~WatchCacheSet();
  WatchCacheSet(const WatchCacheSet&) = delete;
  WatchCacheSet& operator=(const WatchCacheSet&) = delete;

  // A watcher of the keys under `prefix` (or of exactly the key `prefix` when `exact`) from
  // `from_revision` on, served by the cache of `resource_prefix` (created on first use; `prefix`
  // must start with it). nullptr when the cache cannot serve that revision: it is older than
  // the cache's window.
  std::shared_ptr<store::Watcher> watch(const std::string& resource_prefix,
                                        const std::string& prefix, bool exact,
                                        int64_t from_revision);

  // The store's history below `floor` is gone and nothing before it may be replayed (after
  // Store::replace_all): every watcher that started below `floor` ends with compact_revision
  // `floor` (410 Expired for API clients) and each cache follows the store again from `floor`.
  // Done by the dispatcher too once the store cancels its watches; calling it makes it happen
  // before the caller goes on.
  void reset_all(int64_t floor);
  // Ends every watcher (shutdown).
  void close_all();
  size_t caches() const;
  // How many open watchers an event for `key` goes to (for the request trace; the API may still
  // drop it for a watcher whose selectors do not match).
  size_t watchers_of(const std::string& key) const;

 private:
  friend class WatchCache;
  void run();
  void wake(WatchCache* cache);

  store::Store& store_;
  const WatchCacheLimits limits_;
  mutable std::mutex mu_;  // protects caches_
  std::map<std::string, std::shared_ptr<WatchCache>> caches_;
  // Separate from mu_: store watch notifications arrive here and must never wait for mu_.
  std::mutex ready_mu_;  // protects ready_, stop_
  std::condition_variable cv_;
  std::vector<WatchCache*> ready_;  // caches whose store watch has responses waiting
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace apiserver::storage
