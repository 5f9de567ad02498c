// A watcher's notify callback runs on store threads (the commit loop, the sync thread): one that
// throws is contained there, and the watch, the store and the other watchers carry on.
#include <atomic>
#include <stdexcept>

#include "store_test_support.h"

using store::WatchRequest;
using store::WatchResponse;
using store_test::next_response;
using store_test::StoreFixture;

namespace {

WatchRequest prefix_watch(const std::string& prefix, store::Revision from = 0) {
  WatchRequest request;
  request.key = prefix;
  request.range_end = prefix.substr(0, prefix.size() - 1) + static_cast<char>(prefix.back() + 1);
  request.start_revision = from;
  return request;
}

// The keys of the events in the next responses that carry events, until `count` are seen.
std::vector<std::string> event_keys(store::Watcher& watcher, size_t count) {
  std::vector<std::string> keys;
  while (keys.size() < count) {
    WatchResponse response = next_response(watcher);
    REQUIRE_FALSE(response.canceled);
    for (const auto& e : response.events) {
      keys.push_back(e.kv.key);
    }
  }
  return keys;
}

}  // namespace

TEST_CASE_METHOD(StoreFixture,
                 "a notify callback that throws does not end the store and the next event is "
                 "still delivered",
                 "[store][watch][barrier]") {
  std::atomic<int> calls{0};
  auto thrower = [&] {
    ++calls;
    throw std::runtime_error("callback bug");
  };
  auto watcher = store->watch(prefix_watch("/a/"));
  REQUIRE(watcher);
  watcher->set_notify(thrower);  // fires at once for the queued "created" response
  CHECK(calls == 1);
  CHECK(next_response(*watcher).created);

  // A second watcher on the same keys with a callback that behaves.
  std::atomic<int> quiet_calls{0};
  auto other = store->watch(prefix_watch("/a/"));
  other->set_notify([&] { ++quiet_calls; });
  CHECK(next_response(*other).created);

  put("/a/1", "one");  // the commit loop runs both callbacks
  put("/a/2", "two");
  CHECK(event_keys(*watcher, 2) == std::vector<std::string>{"/a/1", "/a/2"});
  CHECK(event_keys(*other, 2) == std::vector<std::string>{"/a/1", "/a/2"});
  CHECK(calls >= 3);
  CHECK(quiet_calls >= 2);
  CHECK(rev() == 3);
  // The callbacks count into this test's locals: the watches end before they do.
  watcher->cancel();
  other->cancel();
}

TEST_CASE_METHOD(StoreFixture, "a notify callback that throws does not stop a replay from history",
                 "[store][watch][barrier]") {
  put("/b/1", "one");
  put("/b/2", "two");
  std::atomic<int> calls{0};
  // From revision 2: the history is replayed by the sync thread, which runs the callback.
  auto watcher = store->watch(prefix_watch("/b/", 2));
  REQUIRE(watcher);
  watcher->set_notify([&] {
    ++calls;
    throw std::logic_error("callback bug");
  });
  CHECK(next_response(*watcher).created);
  CHECK(event_keys(*watcher, 2) == std::vector<std::string>{"/b/1", "/b/2"});
  put("/b/3", "three");  // and the watch goes on live
  CHECK(event_keys(*watcher, 1) == std::vector<std::string>{"/b/3"});
  CHECK(calls >= 2);
  watcher->cancel();  // before `calls` ends
}
