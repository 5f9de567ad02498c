// Periodic compaction, as kube-apiserver does against etcd: every interval, compact the store up
// to the revision it had one interval ago, so watchers and lists keep a window of history while
// the store does not grow without bound.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "store/store.h"

namespace apiserver::storage {

class Compactor {
 public:
  // interval 0 disables compaction. `clock` times the intervals; it must outlive the compactor.
  Compactor(store::Store& store, std::chrono::milliseconds interval,
            const common::Clock& clock = common::Clock::real());
  ~Compactor();

 private:
  void run();

  store::Store& store_;
  const std::chrono::milliseconds interval_;
  const common::Clock& clock_;
  std::mutex mu_;  // protects stop_
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace apiserver::storage
