// A controller's work queue, as client-go's workqueue (a rate-limiting, delaying queue): keys to
// work on, each processed by one worker at a time, failures retried after a per-key backoff.
//
// - Deduplicating: a key added while queued is queued once. A key added while a worker
//   processes it is not handed to another worker; it is queued again when done() is called.
// - Delays: add_after() queues a key once its delay passed on the injected clock (an earlier
//   due time replaces a later one). add_rate_limited() delays by base·2^n for the key's n-th
//   retry in a row, at most `max_delay` (client-go's per-item exponential failure limiter);
//   forget() starts the key over.
// - Bounded: at most `capacity` keys are queued, at most `capacity` wait for a delay, and at
//   most `capacity` have a retry count. An add beyond that returns false and the key is
//   dropped (the caller logs it; controllers find it again on a resync or its next change).
//   A delayed key that comes due while `capacity` keys are queued is dropped the same way.
// - Idle signal: idle()/wait_idle() tell a test that nothing is queued, nothing is being
//   processed and no delayed key is due by a given time, so it waits on that, not a sleep.
//
// Worked example (base 5 ms, one worker):
//   add("a"); add("a")            queue [a]            (deduplicated)
//   get() -> "a"; add("a")        queue [], a dirty    (re-added while processing)
//   done("a")                     queue [a]            (processed again)
//   get() -> "a"; add_rate_limited("a"); done("a")     a due in 5 ms; another failure: 10 ms
//   forget("a")                   the next add_rate_limited("a") waits 5 ms again
//
// Thread safety: every member may be called from any thread; get() blocks. Each key handed out
// by get() must be passed to done() once. Shut the queue down and join the workers before
// destroying it; the clock must outlive it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/clock.h"

namespace common {

struct WorkQueueOptions {
  std::chrono::milliseconds base_delay{5};                          // add_rate_limited's first
  std::chrono::milliseconds max_delay{std::chrono::seconds(1000)};  // and its cap
  size_t capacity = 10000;  // each of: keys queued, keys delayed, keys with a retry count
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {}, const Clock& clock = Clock::real());
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is queued already. False when it was dropped: the queue is full or
  // shut down.
  bool add(const std::string& key);
  // Queues `key` once `delay` has passed (at once when it is not positive). False when it was
  // dropped: `capacity` keys are delayed already, or the queue is shut down.
  bool add_after(const std::string& key, Clock::duration delay);
  // add_after() with the key's backoff, which doubles with each call until forget(). False when
  // it was dropped (as add_after, or `capacity` keys have a retry count).
  bool add_rate_limited(const std::string& key);
  // Clears the key's retry count (its work succeeded). A delayed add stays.
  void forget(const std::string& key);
  // add_rate_limited() calls for `key` since its last forget().
  int requeues(const std::string& key) const;

  // The next key to work on, waiting for one; nullopt once the queue is shut down (keys still
  // queued then are dropped).
  std::optional<std::string> get();
  // The next key if one is ready now, without waiting (for tests and polling callers).
  std::optional<std::string> try_get();
  // The worker is done with `key` (from get()); if it was added meanwhile, it is queued again.
  void done(const std::string& key);

  // Wakes every get() (they return nullopt) and refuses further adds.
  void shutdown();
  bool shutting_down() const;

  // Keys queued and not yet handed out.
  size_t size() const;
  // True when nothing is queued, nothing is being processed, and no delayed key is due at or
  // before `horizon` (on the queue's clock). Clock::time_point::max(): no delayed key at all.
  bool idle(Clock::time_point horizon) const;
  // Waits up to `timeout` of real time (a test's bound, not the queue's clock) until idle(horizon)
  // holds; returns it. A key due by `horizon` is waited for, so with a fake clock pick a horizon
  // the test advances the clock to.
  bool wait_idle(Clock::time_point horizon, std::chrono::milliseconds timeout) const;
  // Counts the adds that changed the queue (a key queued, or delayed, or due sooner). A caller
  // that saw several queues idle one after another and this count unchanged in each knows they
  // were all idle together.
  uint64_t changes() const;
  // Waits up to `timeout` of real time until changes() exceeds `seen`; returns whether it did.
  bool wait_changed(uint64_t seen, std::chrono::milliseconds timeout) const;

 private:
  bool add_locked(const std::string& key);
  bool add_after_locked(const std::string& key, Clock::duration delay);
  // Queues the delayed keys due at `now`.
  void promote_locked(Clock::time_point now);
  std::string take_locked();
  bool idle_locked(Clock::time_point horizon) const;

  const WorkQueueOptions options_;
  const Clock& clock_;
  // Protects every member below. Held only for bookkeeping, never while a worker works.
  mutable std::mutex mu_;
  // Notified on every change: get() waits for a key (or the next due time, on clock_), and
  // wait_idle() for idleness.
  mutable std::condition_variable changed_;
  std::deque<std::string> queue_;     // ready keys in order; each is in dirty_ and not processing_
  std::set<std::string> dirty_;       // keys to be processed (queued, or re-added while processing)
  std::set<std::string> processing_;  // keys handed out by get() and not yet done()
  std::map<std::string, Clock::time_point> delayed_;         // key -> when it is due
  std::set<std::pair<Clock::time_point, std::string>> due_;  // the same, earliest first
  std::map<std::string, int> retries_;                       // add_rate_limited counts
  uint64_t changes_ = 0;
  bool shut_down_ = false;
};

}  // namespace common
