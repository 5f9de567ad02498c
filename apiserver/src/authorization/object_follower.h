// Keeps a reader of stored objects current: lists the keys under some storage prefixes, then
// follows the storage watch of each prefix on a thread of its own and hands every batch of
// changes to a sink, as an informer feeds kube-apiserver's authorizers. A watch that is cut off
// (it fell behind, or the store was replaced by a snapshot restore) is followed by a fresh list.
//
// Read-your-writes: the storage tells the follower of every write under its prefixes, before it
// goes to the store and once it is done (Storage::observe_writes), and wait_current() waits until
// the writes begun so far are done and the sink has been handed each of them (so a watcher that
// acts on a write before the writing thread returns is covered too). A request that follows a write
// of a Role on the same server thus sees the Role, which upstream's informers only promise
// eventually (its clients retry).
//
// Threads: the sink is called on the follower's thread (and by start() on the caller's), one
// call at a time. Every public method is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/storage.h"

namespace apiserver::authorization {

struct ObjectChange {
  bool deleted = false;
  std::string key;
  std::string value;  // the object's JSON; empty for a delete
};

class ObjectFollower {
 public:
  // `reset`: the batch is a full list, and what the sink held before is gone.
  using Sink = std::function<void(bool reset, const std::vector<ObjectChange>& changes)>;

  // `name` names the follower in the log. Registers the write observers: construct before
  // serving. `storage` must outlive the follower.
  ObjectFollower(storage::Storage& storage, std::vector<std::string> prefixes, Sink sink,
                 std::string name);
  ~ObjectFollower();
  ObjectFollower(const ObjectFollower&) = delete;
  ObjectFollower& operator=(const ObjectFollower&) = delete;

  // Lists every prefix and hands the sink the objects on the caller's thread, then follows the
  // watches on the follower's thread. A list that fails is logged and tried again there.
  void start();
  // Stops following (the sink is called no more once it returns). Idempotent.
  void stop();
  // Waits up to `timeout` until the sink has been handed every write made through the storage
  // under the prefixes so far; false on timeout (the caller goes on with what it has).
  bool wait_current(std::chrono::milliseconds timeout);
  // wait_current() for a reader that must decide now: up to 5 s, then a warning in the log and
  // the caller goes on with what the sink has.
  void catch_up();
  // For tests: every change up to the store's revision of now reaches the sink soon; then
  // followed_revision() is at least that revision.
  void request_progress();
  // The least revision the watches have been followed to.
  int64_t followed_revision() const;
  // Waits up to `timeout` until followed_revision() reaches `revision`; false on timeout.
  bool wait_revision(int64_t revision, std::chrono::milliseconds timeout);

 private:
  // `list_failed`: the first list did not read every prefix; list again after the relist delay.
  void run(bool list_failed);
  // Watches every prefix from the store's revision of now and lists them at that revision
  // (nothing falls between the two); the sink gets the list as a reset.
  // Watches every prefix and hands the sink what they hold; false (logged) when a prefix could
  // not be listed (the others are followed all the same).
  bool watch_and_list();
  // Drains the watches into one batch for the sink; false when a watch ended (relist).
  bool drain();

  storage::Storage& storage_;
  const std::vector<std::string> prefixes_;
  const Sink sink_;
  const std::string name_;

  // Owned by the follower's thread (and start() before the thread runs).
  std::vector<std::shared_ptr<store::Watcher>> watchers_;

  mutable std::mutex mu_;           // protects everything below
  std::condition_variable wake_;    // the thread: news, or stop
  std::condition_variable caught_;  // wait_current(): followed_ moved
  bool news_ = false;
  bool progress_ = false;
  bool stop_ = false;
  // Per prefix: the newest write observed, and the revision its watch has been followed to.
  std::vector<int64_t> written_;
  std::vector<int64_t> followed_;
  // The writes under the prefixes announced and not yet done (Storage::WriteObserver), by
  // ticket, and the next ticket: wait_current() also waits for the writes that began before it.
  std::set<uint64_t> in_flight_;
  uint64_t next_ticket_ = 1;
  std::thread thread_;
};

}  // namespace apiserver::authorization
