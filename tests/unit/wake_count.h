// Test support: counts wake-ups (a stream's, a queue's, a server's) so that a test blocks until
// the next one instead of sleeping and polling. Read count() before checking for work, then
// wait_past() it: a wake-up that comes in between is not lost.
// Thread-safe; hand it to callbacks as a shared_ptr when they may outlive the test's scope.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace testing_support {

class WakeCount {
 public:
  void notify() {
    {
      std::lock_guard lock(mu_);
      ++count_;
    }
    cv_.notify_all();
  }
  uint64_t count() const {
    std::lock_guard lock(mu_);
    return count_;
  }
  // Waits until a wake-up after the `seen`-th; false at `deadline`.
  bool wait_past(uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
    std::unique_lock lock(mu_);
    return cv_.wait_until(lock, deadline, [&] { return count_ > seen; });
  }

 private:
  mutable std::mutex mu_;  // protects count_
  mutable std::condition_variable cv_;
  uint64_t count_ = 0;
};

}  // namespace testing_support
