// Time for code that reads it or waits for it, injectable so that tests control it.
//
// Code that needs the time or a deadline takes a `const Clock&` (default Clock::real()) instead
// of calling std::chrono::*_clock::now() or sleeping. A test passes a FakeClock and moves it with
// advance(): nothing waits for real time, and a wait ends exactly when the test says.
//
//   FakeClock clock;                      // thread A (code under test):
//   clock.wait_for_waiters(1, 10s);       //   clock.wait_until(lock, cv, clock.now() + 5ms);
//   clock.advance(5ms);  // A wakes now, not in 5 ms of real time
//
// Thread safety: every member of both clocks may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <mutex>

namespace common {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;

  virtual ~Clock() = default;

  // Monotonic time, for delays and deadlines.
  virtual time_point now() const = 0;
  // Wall-clock time, for timestamps that are shown or stored.
  virtual std::chrono::system_clock::time_point system_now() const = 0;

  // Waits on `cv` until it is notified or now() reaches `deadline`; it may also wake
  // spuriously, so callers check their condition in a loop (or use the overload below). `lock`
  // holds the mutex under which notifiers of `cv` change the condition; it is held on return.
  virtual void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          time_point deadline) const = 0;

  // Waits as above until `ready()` holds (true) or the deadline passes (then ready()).
  template <class Predicate>
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  time_point deadline, Predicate ready) const {
    while (!ready()) {
      if (now() >= deadline) {
        return ready();
      }
      wait_until(lock, cv, deadline);
    }
    return true;
  }

  // Blocks the calling thread until now() reaches `deadline` (or for `delay`).
  void sleep_until(time_point deadline) const;
  void sleep_for(duration delay) const { sleep_until(now() + delay); }

  // std::chrono::steady_clock and system_clock. Lives as long as the program.
  static const Clock& real();
};

// A clock that stands still until advance() moves it. Waits on it end when it is advanced to
// their deadline (or when their condition variable is notified), never by real time.
//
// advance() takes the mutex of each wait it ends (to notify it without a lost wake-up), so it
// must not be called with such a mutex held. Destroy the clock only once no thread waits on it.
class FakeClock final : public Clock {
 public:
  // Starts at `system_start` wall-clock time (default 2024-01-01T00:00:00Z).
  FakeClock();
  explicit FakeClock(std::chrono::system_clock::time_point system_start);

  time_point now() const override;
  std::chrono::system_clock::time_point system_now() const override;
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  time_point deadline) const override;
  using Clock::wait_until;

  // Moves both times forward by `delta` and wakes the waits whose deadline it reached.
  void advance(duration delta);
  // Threads waiting on this clock for a deadline not yet reached.
  size_t waiters() const;
  // Blocks up to `timeout` of real time until at least `count` threads wait on this clock for a
  // deadline not yet reached; false on timeout. Lets a test advance the clock only once the
  // code under test waits on it.
  bool wait_for_waiters(size_t count, std::chrono::milliseconds timeout) const;

 private:
  struct Waiter {
    time_point deadline;
    std::mutex* mutex;            // the waiting thread's, locked by advance() to notify `cv`
    std::condition_variable* cv;  // the waiting thread's
    int notifying = 0;            // advance() calls about to notify: the waiter stays until 0
  };

  size_t waiters_locked() const;

  // Protects now_, system_now_ and waiters_. Lock order: a waiter's own mutex, then mu_;
  // advance() never holds mu_ while it takes a waiter's mutex.
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;  // waiters_ or a Waiter::notifying changed
  time_point now_;
  std::chrono::system_clock::time_point system_now_;
  mutable std::list<Waiter> waiters_;  // a list: advance() keeps pointers to its entries
};

}  // namespace common
