#include "controllers/controller_queue.h"

#include "apiserver/log.h"
#include "guard.h"

namespace apiserver::controllers {

common::WorkQueueOptions queue_options() {
  common::WorkQueueOptions options;
  options.capacity = kMaxQueued;
  return options;
}

std::string name_of(const std::string& key) {
  return key.substr(key.rfind('/') + 1);
}

void cancel_watches(std::vector<std::shared_ptr<store::Watcher>>& watchers) {
  for (auto& w : watchers) {
    w->set_notify(nullptr);
    w->cancel();
  }
  watchers.clear();
}

void stop_following(common::WorkQueue& queue, std::thread& thread,
                    std::vector<std::shared_ptr<store::Watcher>>& watchers) {
  queue.shutdown();
  if (thread.joinable()) {
    thread.join();
  }
  cancel_watches(watchers);
}

void serve_keys(common::WorkQueue& queue, const std::function<void()>& follow,
                const std::function<void()>& progress,
                const std::function<void(const std::string&)>& work) {
  while (auto key = queue.get()) {
    if (*key == kFollowKey) {
      follow();
    } else if (*key == kProgressKey) {
      progress();
    } else {
      work(*key);
    }
    queue.done(*key);
  }
}

bool work_guarded(common::WorkQueue& queue, const std::string& key, const KeyLog& names,
                  const std::function<void()>& work) {
  const bool ok = run_guarded(std::string(names.controller) + ": " + std::string(names.action) +
                                  " " + std::string(names.kind) + " " + key,
                              work);
  if (ok) {
    queue.forget(key);
  } else if (!queue.add_rate_limited(key)) {
    log::error(std::string(names.controller) + ": too many failing " + std::string(names.kind) +
               "s; " + key + " waits for " + std::string(names.later));
  }
  return ok;
}

}  // namespace apiserver::controllers
