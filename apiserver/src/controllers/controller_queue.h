// What the controllers' work queues have in common: their bound, the keys that name no object,
// the thread loop that hands keys out, and how the work on one key is guarded and retried.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/work_queue.h"
#include "store/store.h"

namespace apiserver::controllers {

// At most this many keys wait; a key refused is looked at on its next change (or resync).
inline constexpr std::size_t kMaxQueued = 10000;
// The key that means "drain the watch": no object name contains a '/'.
inline const std::string kFollowKey = "/follow";
// The key that means "ask the watch for progress" (request_progress()).
inline const std::string kProgressKey = "/progress";

// Bounded at kMaxQueued.
common::WorkQueueOptions queue_options();

// The object name a storage key ends with: /registry/<x>/.../<name> -> <name>.
std::string name_of(const std::string& key);

// The controller thread: takes keys until the queue shuts down and hands each to `follow`
// (kFollowKey), `progress` (kProgressKey) or `work` (an object name), then marks it done.
void serve_keys(common::WorkQueue& queue, const std::function<void()>& follow,
                const std::function<void()>& progress,
                const std::function<void(const std::string&)>& work);

// Cancels a controller's storage watches (their notifications first) and forgets them.
void cancel_watches(std::vector<std::shared_ptr<store::Watcher>>& watchers);
// Ends a controller that follows watches: its queue shut down, its thread joined, its watches
// cancelled.
void stop_following(common::WorkQueue& queue, std::thread& thread,
                    std::vector<std::shared_ptr<store::Watcher>>& watchers);

// How a controller speaks of a key in the log.
struct KeyLog {
  std::string_view controller;  // "crd controller"
  std::string_view action;      // "reconcile"
  std::string_view kind;        // "customresourcedefinition"; the plural adds an 's'
  std::string_view later;       // when a key the full queue refused comes back: "its next change"
};

// Runs `work` for `key` under run_guarded ("<controller>: <action> <kind> <key>" in the log).
// Returns true when it returned, and forgets the key's retries; when it threw, retries the key
// with a backoff, or logs that it waits for `later` when the queue is full.
bool work_guarded(common::WorkQueue& queue, const std::string& key, const KeyLog& names,
                  const std::function<void()>& work);

}  // namespace apiserver::controllers
