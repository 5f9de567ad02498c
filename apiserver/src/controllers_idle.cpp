// ApiServer's waits on its in-process controllers (for tests): whether they are idle, and waiting
// until they are, past the writes their storage watches have not delivered yet.
#include <algorithm>
#include <functional>
#include <thread>

#include "apiserver/apiserver.h"
#include "authorization/policy_cache.h"
#include "common/work_queue.h"
#include "controllers/clusterrole_aggregation.h"
#include "controllers/crd_controller.h"
#include "controllers/namespace_controller.h"
#include "controllers/namespace_defaults.h"
#include "controllers/token_controller.h"
#include "store/store.h"

namespace apiserver {

bool ApiServer::controllers_idle() const {
  const auto any_time = common::Clock::time_point::max();
  return namespaces_->queue().idle(any_time) && namespace_defaults_->queue().idle(any_time) &&
         crds_->queue().idle(any_time) && (!aggregation_ || aggregation_->queue().idle(any_time)) &&
         (!token_controller_ || token_controller_->queue().idle(any_time));
}

bool ApiServer::wait_controllers_idle(std::chrono::milliseconds within,
                                      std::chrono::milliseconds timeout) const {
  // The controllers that follow storage watches: how to ask each for progress and how far it got.
  struct Follower {
    const common::WorkQueue* queue;
    std::function<void()> request_progress;
    std::function<int64_t()> followed;
  };
  std::vector<Follower> followers = {{&crds_->queue(), [this] { crds_->request_progress(); },
                                      [this] { return crds_->followed_revision(); }}};
  if (namespace_defaults_running()) {
    followers.push_back({&namespace_defaults_->queue(),
                         [this] { namespace_defaults_->request_progress(); },
                         [this] { return namespace_defaults_->followed_revision(); }});
  }
  if (token_controller_) {
    followers.push_back({&token_controller_->queue(),
                         [this] { token_controller_->request_progress(); },
                         [this] { return token_controller_->followed_revision(); }});
  }
  std::vector<const common::WorkQueue*> queues = {&namespaces_->queue()};
  for (const auto& f : followers) {
    queues.push_back(f.queue);
  }
  // Fed by the authorizers' policy cache, which follows its own watch.
  if (aggregation_) {
    queues.push_back(&aggregation_->queue());
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()));
  };
  // Done at a fixpoint: the watches followed every write up to `target`, every queue was idle
  // (one after another, no work arriving meanwhile), and nothing was written since `target`.
  while (true) {
    const int64_t target = store_.current_revision();
    while (true) {
      // Asked on every pass: a watch cache answers one request at a time, so an answer that
      // came may be to an older request.
      for (const auto& f : followers) {
        f.request_progress();
      }
      policy_->follower().request_progress();
      // Read before the queues: once it has followed `target`, the aggregation work of every
      // change up to it is queued (the follower queues it first), and the waits below see it.
      const bool policy_behind = policy_->follower().followed_revision() < target;
      std::vector<uint64_t> before;
      for (const auto* q : queues) {
        before.push_back(q->changes());
      }
      for (const auto* q : queues) {
        if (!q->wait_idle(common::Clock::real().now() + within, left())) {
          return false;
        }
      }
      bool changed = false;
      for (size_t i = 0; i < queues.size(); ++i) {
        changed = changed || queues[i]->changes() != before[i];
      }
      if (changed) {
        continue;
      }
      const Follower* behind = nullptr;
      for (const auto& f : followers) {
        if (f.followed() < target) {
          behind = &f;
          break;
        }
      }
      if (behind == nullptr && !policy_behind) {
        break;
      }
      if (behind == nullptr) {
        if (!policy_->follower().wait_revision(target, left())) {
          return false;
        }
        continue;
      }
      // The answer is on its way; it queues work when it arrives. A progress request can be
      // answered by an answer already seen (one request at a time), so a while without one asks
      // again rather than waiting out the whole timeout.
      const size_t index = static_cast<size_t>(behind - followers.data()) + 1;
      if (!behind->queue->wait_changed(before[index],
                                       std::min(left(), std::chrono::milliseconds(200))) &&
          left().count() == 0) {
        return false;
      }
    }
    if (store_.current_revision() == target) {
      return true;
    }
  }
}

}  // namespace apiserver
