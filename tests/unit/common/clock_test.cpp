#include "common/clock.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

using common::Clock;
using common::FakeClock;
using namespace std::chrono_literals;

namespace {

// A condition another thread waits for on a clock, with a deadline.
struct Condition {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;

  // Waits on another thread; the future says what the predicate wait returned.
  std::future<bool> wait_in_thread(const Clock& clock, Clock::time_point deadline) {
    return std::async(std::launch::async, [this, &clock, deadline] {
      std::unique_lock lock(mu);
      return clock.wait_until(lock, cv, deadline, [&] { return ready; });
    });
  }
  void set() {
    {
      std::lock_guard lock(mu);
      ready = true;
    }
    cv.notify_all();
  }
};

}  // namespace

TEST_CASE("a fake clock stands still until advanced, in both times", "[common][clock]") {
  FakeClock clock;
  const auto start = clock.now();
  const auto wall = clock.system_now();
  CHECK(wall == std::chrono::system_clock::time_point(std::chrono::seconds(1704067200)));
  CHECK(clock.now() == start);
  clock.advance(1500ms);
  CHECK(clock.now() - start == 1500ms);
  CHECK(clock.system_now() - wall == 1500ms);
}

TEST_CASE("a thread sleeping on a fake clock wakes when it is advanced past its deadline",
          "[common][clock]") {
  FakeClock clock;
  const auto deadline = clock.now() + 10ms;
  auto slept = std::async(std::launch::async, [&] { clock.sleep_until(deadline); });
  REQUIRE(clock.wait_for_waiters(1, 10s));
  clock.advance(9ms);  // short of the deadline: still asleep
  CHECK(clock.waiters() == 1);
  CHECK(slept.wait_for(0ms) == std::future_status::timeout);
  clock.advance(1ms);
  REQUIRE(slept.wait_for(10s) == std::future_status::ready);
  CHECK(clock.waiters() == 0);
  CHECK(clock.now() == deadline);
}

TEST_CASE("a wait on a fake clock ends early when its condition variable is notified",
          "[common][clock]") {
  FakeClock clock;
  Condition condition;
  auto waited = condition.wait_in_thread(clock, clock.now() + 1h);
  REQUIRE(clock.wait_for_waiters(1, 10s));
  condition.set();
  REQUIRE(waited.wait_for(10s) == std::future_status::ready);
  CHECK(waited.get());
  CHECK(clock.waiters() == 0);
}

TEST_CASE("a predicate wait on a fake clock returns false at its deadline", "[common][clock]") {
  FakeClock clock;
  Condition never;
  auto waited = never.wait_in_thread(clock, clock.now() + 5s);
  REQUIRE(clock.wait_for_waiters(1, 10s));
  clock.advance(5s);
  REQUIRE(waited.wait_for(10s) == std::future_status::ready);
  CHECK_FALSE(waited.get());
}

TEST_CASE("a wait whose deadline has passed returns at once", "[common][clock]") {
  FakeClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock lock(mu);
  clock.wait_until(lock, cv, clock.now());
  CHECK(lock.owns_lock());
  CHECK(clock.waiters() == 0);
}

TEST_CASE("the real clock reads the process's clocks and waits on its condition",
          "[common][clock]") {
  const Clock& clock = Clock::real();
  const auto before = std::chrono::steady_clock::now();
  CHECK(clock.now() >= before);
  const auto wall = clock.system_now();
  const auto later = std::chrono::system_clock::now();
  CHECK(wall <= later);
  clock.sleep_until(before);  // already passed: returns at once
  Condition condition;
  auto waited = condition.wait_in_thread(clock, clock.now() + 1h);
  condition.set();
  REQUIRE(waited.wait_for(10s) == std::future_status::ready);
  CHECK(waited.get());
}
