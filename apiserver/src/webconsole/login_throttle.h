// A bound on failed sign-ins at the web console: after `max_failures` failures within `window`,
// sign-ins are refused (429) until the oldest of them is `window` old. The secrets are 256 bits,
// so guessing is hopeless anyway; this keeps a loop of guesses from costing CPU (each token
// sign-in asks the API server). Failures are counted for the whole listener, not per client:
// every client of a loopback listener has the same address. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>

namespace apiserver::webconsole {

class LoginThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  LoginThrottle(std::size_t max_failures, Clock::duration window);

  // Zero when a sign-in may be tried at `now`, else how long until one may (at least a second).
  std::chrono::seconds wait(Clock::time_point now);
  // A sign-in failed at `now`.
  void failed(Clock::time_point now);

 private:
  void forget_old(Clock::time_point now);

  std::size_t max_failures_;
  Clock::duration window_;
  std::mutex mutex_;
  std::deque<Clock::time_point> failures_;  // at most max_failures_, oldest first
};

}  // namespace apiserver::webconsole
