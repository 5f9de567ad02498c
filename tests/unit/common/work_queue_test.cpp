#include "common/work_queue.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using common::Clock;
using common::FakeClock;
using common::WorkQueue;
using common::WorkQueueOptions;
using namespace std::chrono_literals;

namespace {

WorkQueueOptions options(size_t capacity = 100) {
  WorkQueueOptions o;
  o.base_delay = 5ms;
  o.max_delay = 20ms;
  o.capacity = capacity;
  return o;
}

}  // namespace

TEST_CASE("a key added while queued is handed out once, in order of first add",
          "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  CHECK(queue.add("a"));
  CHECK(queue.add("b"));
  CHECK(queue.add("a"));
  CHECK(queue.size() == 2);
  CHECK(queue.try_get() == "a");
  CHECK(queue.try_get() == "b");
  CHECK(queue.try_get() == std::nullopt);
}

TEST_CASE("a key added while being processed is processed again after done, never in parallel",
          "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  queue.add("a");
  REQUIRE(queue.try_get() == "a");
  CHECK(queue.add("a"));
  CHECK(queue.add("a"));
  CHECK(queue.try_get() == std::nullopt);  // not handed to a second worker
  CHECK_FALSE(queue.idle(clock.now()));
  queue.done("a");
  CHECK(queue.try_get() == "a");  // once, although added twice
  queue.done("a");
  CHECK(queue.try_get() == std::nullopt);
  CHECK(queue.idle(clock.now()));
}

TEST_CASE("rate-limited retries double per key up to the cap, and forget starts over",
          "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  // The delay of each retry in a row: 5, 10, 20, then capped at 20 ms.
  for (auto delay : {5ms, 10ms, 20ms, 20ms}) {
    CAPTURE(delay.count());
    REQUIRE(queue.add_rate_limited("a"));
    clock.advance(delay - 1ms);
    CHECK(queue.try_get() == std::nullopt);
    CHECK(queue.idle(clock.now()));
    CHECK_FALSE(queue.idle(clock.now() + 1ms));  // due within the horizon: pending
    clock.advance(1ms);
    REQUIRE(queue.try_get() == "a");
    queue.done("a");
  }
  CHECK(queue.requeues("a") == 4);
  SECTION("each key has its own count") {
    REQUIRE(queue.add_rate_limited("b"));
    clock.advance(5ms);
    CHECK(queue.try_get() == "b");
  }
  SECTION("forget") {
    queue.forget("a");
    CHECK(queue.requeues("a") == 0);
    REQUIRE(queue.add_rate_limited("a"));
    clock.advance(5ms);
    CHECK(queue.try_get() == "a");
  }
}

TEST_CASE("an earlier due time replaces a later one, and a delayed key is queued once",
          "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  queue.add_after("a", 50ms);
  queue.add_after("a", 10ms);
  queue.add_after("a", 30ms);
  clock.advance(10ms);
  CHECK(queue.try_get() == "a");
  queue.done("a");
  clock.advance(1h);
  CHECK(queue.try_get() == std::nullopt);
  SECTION("a delay that is not positive queues at once") {
    queue.add_after("b", 0ms);
    CHECK(queue.try_get() == "b");
  }
}

TEST_CASE("a worker blocked in get wakes when the clock reaches a delayed key",
          "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  auto got = std::async(std::launch::async, [&] { return queue.get(); });
  // Added while the worker waits for any key: it then waits on the clock for this one.
  queue.add_after("a", 1s);
  REQUIRE(clock.wait_for_waiters(1, 10s));
  CHECK(got.wait_for(0ms) == std::future_status::timeout);
  clock.advance(1s);
  REQUIRE(got.wait_for(10s) == std::future_status::ready);
  CHECK(got.get() == "a");
}

TEST_CASE("the queue is bounded: adds beyond the capacity are refused", "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(2), clock);
  CHECK(queue.add("a"));
  CHECK(queue.add("b"));
  CHECK_FALSE(queue.add("c"));
  CHECK(queue.add("a"));  // already queued: nothing new
  CHECK(queue.add_after("x", 1s));
  CHECK(queue.add_after("y", 1s));
  CHECK_FALSE(queue.add_after("z", 1s));
  CHECK(queue.add_rate_limited("x"));  // already delayed: its count still goes up
  CHECK(queue.add_rate_limited("y"));
  CHECK_FALSE(queue.add_rate_limited("w"));  // a third retry count
  CHECK(queue.requeues("w") == 0);
  clock.advance(1s);  // x and y come due while a and b fill the queue: dropped
  CHECK(queue.try_get() == "a");
  CHECK(queue.try_get() == "b");
  CHECK(queue.try_get() == std::nullopt);
}

TEST_CASE("shutdown wakes blocked workers and refuses adds", "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  SECTION("a worker waiting for a key") {
    auto got = std::async(std::launch::async, [&] { return queue.get(); });
    CHECK(got.wait_for(0ms) == std::future_status::timeout);
    queue.shutdown();
    REQUIRE(got.wait_for(10s) == std::future_status::ready);
    CHECK(got.get() == std::nullopt);
  }
  SECTION("a worker waiting on the clock for a delayed key") {
    queue.add_after("later", 1h);
    auto got = std::async(std::launch::async, [&] { return queue.get(); });
    REQUIRE(clock.wait_for_waiters(1, 10s));
    queue.shutdown();
    REQUIRE(got.wait_for(10s) == std::future_status::ready);
    CHECK(got.get() == std::nullopt);
  }
  CHECK(queue.shutting_down());
  CHECK_FALSE(queue.add("a"));
  CHECK_FALSE(queue.add_after("a", 1s));
  CHECK_FALSE(queue.add_rate_limited("a"));
  CHECK(queue.get() == std::nullopt);
}

TEST_CASE("wait_idle returns once the work is done and no retry is due by the horizon",
          "[common][work_queue]") {
  FakeClock clock;
  WorkQueue queue(options(), clock);
  std::vector<std::string> processed;
  // A worker that fails "b" once (retried after 5 ms) and finishes everything else.
  std::thread worker([&] {
    while (auto key = queue.get()) {
      processed.push_back(*key);
      if (*key == "b" && queue.requeues("b") == 0) {
        queue.add_rate_limited("b");
      } else {
        queue.forget(*key);
      }
      queue.done(*key);
    }
  });
  const auto before = queue.changes();
  queue.add("a");
  queue.add("b");
  // Idle now: b's retry is due after the horizon.
  REQUIRE(queue.wait_idle(clock.now(), 10s));
  CHECK(queue.changes() == before + 3);  // a, b and b's retry
  CHECK_FALSE(queue.idle(clock.now() + 5ms));
  // Not idle by a horizon the clock never reaches: the wait times out (briefly).
  CHECK_FALSE(queue.wait_idle(clock.now() + 5ms, 1ms));
  clock.advance(5ms);
  REQUIRE(queue.wait_idle(Clock::time_point::max(), 10s));
  queue.shutdown();
  worker.join();
  CHECK(processed == std::vector<std::string>{"a", "b", "b"});
}
