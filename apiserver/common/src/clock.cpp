#include "common/clock.h"

#include <vector>

namespace common {
namespace {

class RealClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point system_now() const override {
    return std::chrono::system_clock::now();
  }
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  time_point deadline) const override {
    cv.wait_until(lock, deadline);
  }
};

// 2024-01-01T00:00:00Z: a fixed start, so that timestamps in tests are reproducible.
constexpr std::chrono::seconds kFakeEpoch{1704067200};

}  // namespace

void Clock::sleep_until(time_point deadline) const {
  std::mutex mu;
  std::condition_variable cv;  // never notified: only the deadline ends the wait
  std::unique_lock lock(mu);
  while (now() < deadline) {
    wait_until(lock, cv, deadline);
  }
}

const Clock& Clock::real() {
  static const RealClock clock;
  return clock;
}

FakeClock::FakeClock() : FakeClock(std::chrono::system_clock::time_point(kFakeEpoch)) {}

FakeClock::FakeClock(std::chrono::system_clock::time_point system_start)
    : now_(time_point(std::chrono::hours(1))), system_now_(system_start) {}

Clock::time_point FakeClock::now() const {
  std::lock_guard lock(mu_);
  return now_;
}

std::chrono::system_clock::time_point FakeClock::system_now() const {
  std::lock_guard lock(mu_);
  return system_now_;
}

void FakeClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                           time_point deadline) const {
  std::list<Waiter>::iterator self;
  {
    std::lock_guard guard(mu_);
    if (now_ >= deadline) {
      return;
    }
    self = waiters_.insert(waiters_.end(), Waiter{deadline, lock.mutex(), &cv});
  }
  changed_.notify_all();
  cv.wait(lock);
  // An advance() may be about to notify `cv` under our mutex: release it, and stay registered
  // until that is done, so that it never touches a mutex or cv that the caller has destroyed.
  lock.unlock();
  {
    std::unique_lock guard(mu_);
    changed_.wait(guard, [&] { return self->notifying == 0; });
    waiters_.erase(self);
  }
  changed_.notify_all();
  lock.lock();
}

void FakeClock::advance(duration delta) {
  std::vector<Waiter*> due;
  {
    std::lock_guard lock(mu_);
    now_ += delta;
    system_now_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(delta);
    for (auto& w : waiters_) {
      if (w.deadline <= now_) {
        ++w.notifying;
        due.push_back(&w);
      }
    }
  }
  for (Waiter* w : due) {
    std::lock_guard lock(*w->mutex);  // the waiter is inside cv.wait, or sees the new time first
    w->cv->notify_all();
  }
  {
    std::lock_guard lock(mu_);
    for (Waiter* w : due) {
      --w->notifying;
    }
  }
  changed_.notify_all();
}

size_t FakeClock::waiters_locked() const {
  size_t count = 0;
  for (const auto& w : waiters_) {
    count += w.deadline > now_ ? 1 : 0;
  }
  return count;
}

size_t FakeClock::waiters() const {
  std::lock_guard lock(mu_);
  return waiters_locked();
}

bool FakeClock::wait_for_waiters(size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return waiters_locked() >= count; });
}

}  // namespace common
