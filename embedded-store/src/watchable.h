// The watch hub: every watcher of the store, fed either live by the commit loop (synced
// watchers) or from the history in the database by the hub's own sync thread (unsynced
// watchers, which started at a past revision or are catching up).
//
// A synced watcher gets each committed revision's events pushed into its bounded buffer; when
// the buffer is full it is cancelled on the spot, so the commit loop never waits for a reader.
// An unsynced watcher is filled only as far as its buffer has room, and becomes synced once it
// has read up to the hub's published revision while holding the hub lock.
//
// Lock order: WatchHub::mu_ before WatcherImpl::mu_. Notify callbacks run with no lock held.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "key_index.h"
#include "store/status.h"
#include "store/watch.h"

namespace store {

// All events committed at one revision.
struct RevisionEvents {
  Revision revision = 0;
  std::vector<Event> events;
};

// Where unsynced watchers read history from (implemented by the store).
class HistorySource {
 public:
  virtual ~HistorySource() = default;
  // Appends to `out` the revisions in [from, to] that have events, oldest first, at most
  // `max_revisions` of them, each with every event of that revision (prev_kv filled). Sets
  // `next` to the first revision not read. Fails with Code::Compacted when `from` was compacted.
  virtual Status read_history(Revision from, Revision to, size_t max_revisions,
                              std::vector<RevisionEvents>& out, Revision& next) = 0;
};

class WatchHub;

class WatcherImpl final : public Watcher {
 public:
  WatcherImpl(int64_t id, const WatchRequest& request, size_t capacity,
              std::weak_ptr<WatchHub> hub);

  int64_t id() const override { return id_; }
  bool next(WatchResponse& out, std::chrono::milliseconds timeout) override;
  bool try_next(WatchResponse& out) override;
  void set_notify(std::function<void()> notify) override;
  void request_progress() override;
  void cancel() override;
  bool finished() const override;

 private:
  friend class WatchHub;

  // The watcher's response for one revision, or nullopt if no event passes its filters.
  std::optional<WatchResponse> filter(const RevisionEvents& revision) const;
  // Queues a response unless the buffer is full; returns false when full.
  bool push(WatchResponse response, std::function<void()>& notify);
  // Queues the final response regardless of room and ends the watch.
  void push_final(WatchResponse response, std::function<void()>& notify);
  size_t room() const;
  bool pop_locked(WatchResponse& out);

  const int64_t id_;
  const WatchRequest request_;
  const KeyBounds bounds_;
  const size_t capacity_;
  const std::weak_ptr<WatchHub> hub_;

  mutable std::mutex mu_;  // protects queue_, ended_, notify_
  std::condition_variable cv_;
  std::deque<WatchResponse> queue_;
  bool ended_ = false;
  std::function<void()> notify_;

  // Guarded by WatchHub::mu_.
  bool synced_ = false;
  Revision next_rev_ = 0;  // first revision not yet queued
  bool progress_pending_ = false;
  std::chrono::steady_clock::time_point last_sent_;
};

class WatchHub : public std::enable_shared_from_this<WatchHub> {
 public:
  WatchHub(HistorySource* history, size_t watcher_capacity,
           std::chrono::milliseconds progress_interval, Revision current, Revision compacted);
  ~WatchHub();

  void start();  // starts the sync thread
  void close();  // cancels every watcher and stops the sync thread

  std::shared_ptr<Watcher> add(const WatchRequest& request);
  // Called by the commit loop after a batch is visible to readers.
  void publish(const std::vector<RevisionEvents>& batch, Revision revision);
  void set_compacted(Revision compacted);
  // No watch may start below `floor` any more (as if compacted there), whatever set_compacted
  // says later: the revision before it cannot be replayed (Store::replace_all's).
  void raise_floor(Revision floor);
  // After Store::replace_all: the revision is now `revision`, the history below `compacted` is
  // gone and watches must start at `floor` or later; every watcher is cancelled with that
  // compact_revision, so its client relists.
  void restart(Revision revision, Revision compacted, Revision floor);
  size_t watcher_count() const;

  // For watchers.
  void remove(int64_t id, const std::string& reason, Revision compact_revision = 0);
  void request_progress(int64_t id);
  void kick();  // a watcher made room: the sync thread may have work

 private:
  void sync_loop();
  // One pass over the unsynced watchers; returns true if any made progress.
  bool sync_once();
  void send_periodic_progress();

  HistorySource* history_;
  const size_t capacity_;
  const std::chrono::milliseconds progress_interval_;

  mutable std::mutex mu_;  // protects watchers_, revision_, compacted_, floor_, next_id_, closed_
  std::map<int64_t, std::shared_ptr<WatcherImpl>> watchers_;
  Revision revision_;
  Revision compacted_;  // watches may start here or later: max(store's compacted, floor_)
  Revision floor_ = 0;
  int64_t next_id_ = 1;
  bool closed_ = false;

  std::mutex kick_mu_;  // protects kicked_
  std::condition_variable kick_cv_;
  bool kicked_ = false;
  std::atomic<bool> stop_{false};
  std::thread sync_thread_;
};

}  // namespace store
