#include "webconsole/login_throttle.h"

#include <algorithm>

namespace apiserver::webconsole {

LoginThrottle::LoginThrottle(std::size_t max_failures, Clock::duration window)
    : max_failures_(std::max<std::size_t>(max_failures, 1)), window_(window) {}

void LoginThrottle::forget_old(Clock::time_point now) {
  while (!failures_.empty() && now - failures_.front() >= window_) {
    failures_.pop_front();
  }
}

std::chrono::seconds LoginThrottle::wait(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  forget_old(now);
  if (failures_.size() < max_failures_) {
    return std::chrono::seconds(0);
  }
  const auto left = failures_.front() + window_ - now;
  return std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(left));
}

void LoginThrottle::failed(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  forget_old(now);
  failures_.push_back(now);
  while (failures_.size() > max_failures_) {
    failures_.pop_front();
  }
}

}  // namespace apiserver::webconsole
