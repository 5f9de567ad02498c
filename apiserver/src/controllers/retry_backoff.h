// When to try a controller's key again after its work failed unexpectedly: after base·2^n for
// its n-th failure in a row, capped (client-go's per-item exponential failure rate limiter,
// which kube-controller-manager's work queues use, with its 5 ms and 1000 s). A success forgets
// the key. At most `capacity` keys wait; a key beyond that is dropped (and reported so).
//
// Example (base 5 ms): fails at t=0 -> due at 5 ms; fails again -> due 10 ms later; then 20 ms.
//
// Not thread-safe: the controller calls it under its own mutex.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace apiserver::controllers {

class RetryBackoff {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RetryBackoff(std::chrono::milliseconds base = std::chrono::milliseconds(5),
                        std::chrono::milliseconds max = std::chrono::seconds(1000),
                        size_t capacity = 10000);

  // Records a failure of `key` at `now`. Returns when it is due again, or nullopt when it was
  // dropped because `capacity` keys already wait.
  std::optional<Clock::time_point> failed(const std::string& key, Clock::time_point now);
  // The work on `key` succeeded: its failures are forgotten.
  void forget(const std::string& key);
  // The keys due at `now`, oldest due first; they stop waiting (their failure counts stay until
  // forget(), so a key that fails again waits longer).
  std::vector<std::string> take_due(Clock::time_point now);
  // The earliest time a waiting key is due.
  std::optional<Clock::time_point> next_due() const;
  // Keys waiting to be tried again.
  size_t waiting() const;
  // Failures in a row of `key` (0 when it is not known).
  int failures(const std::string& key) const;

 private:
  struct Entry {
    int failures = 0;
    std::optional<Clock::time_point> due;  // set while the key waits
  };

  const std::chrono::milliseconds base_;
  const std::chrono::milliseconds max_;
  const size_t capacity_;
  std::map<std::string, Entry> entries_;
};

}  // namespace apiserver::controllers
