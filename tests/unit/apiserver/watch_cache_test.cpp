#include <catch2/catch.hpp>
#include <chrono>

#include "storage/watch_cache.h"
#include "store/store.h"

using namespace std::chrono_literals;
using apiserver::storage::WatchCacheLimits;
using apiserver::storage::WatchCacheSet;

namespace {

std::unique_ptr<store::Store> open_store() {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto opened = store::Store::open(options);
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

int64_t put(store::Store& db, const std::string& key, const std::string& value) {
  store::PutRequest request;
  request.key = key;
  request.value = value;
  auto result = db.put(request);
  REQUIRE(result.is_ok());
  return result->header.revision;
}

// The keys of the events a watcher delivers until `count` arrived (or a second passes).
std::vector<std::string> keys(store::Watcher& w, size_t count) {
  std::vector<std::string> out;
  auto deadline = std::chrono::steady_clock::now() + 2s;
  store::WatchResponse r;
  while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
    if (!w.next(r, 50ms)) {
      continue;
    }
    for (const auto& e : r.events) {
      out.push_back(e.kv.key);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("watch cache serves many watchers from one store watch", "[watch_cache]") {
  auto db = open_store();
  WatchCacheSet cache(*db);
  auto a = cache.watch("/registry/configmaps/", "/registry/configmaps/", false, 0);
  auto b = cache.watch("/registry/configmaps/", "/registry/configmaps/ns1/", false, 0);
  auto c = cache.watch("/registry/configmaps/", "/registry/configmaps/ns1/x", true, 0);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(cache.caches() == 1);
  put(*db, "/registry/configmaps/ns1/x", "1");
  put(*db, "/registry/configmaps/ns1/xy", "2");
  put(*db, "/registry/configmaps/ns2/z", "3");
  put(*db, "/registry/secrets/ns1/s", "4");  // another resource: not this cache's
  CHECK(keys(*a, 3) == std::vector<std::string>{"/registry/configmaps/ns1/x",
                                                "/registry/configmaps/ns1/xy",
                                                "/registry/configmaps/ns2/z"});
  CHECK(keys(*b, 2) ==
        std::vector<std::string>{"/registry/configmaps/ns1/x", "/registry/configmaps/ns1/xy"});
  CHECK(keys(*c, 2) == std::vector<std::string>{"/registry/configmaps/ns1/x"});
}

TEST_CASE("watch cache replays its window and refuses revisions before it", "[watch_cache]") {
  auto db = open_store();
  int64_t before = put(*db, "/registry/pods/ns/old", "0");
  WatchCacheLimits limits;
  limits.window_responses = 3;
  WatchCacheSet cache(*db, limits);
  auto first = cache.watch("/registry/pods/", "/registry/pods/", false, 0);  // starts the cache
  REQUIRE(first);
  std::vector<int64_t> revisions;
  for (int i = 0; i < 5; ++i) {
    revisions.push_back(put(*db, "/registry/pods/ns/p" + std::to_string(i), "v"));
  }
  REQUIRE(keys(*first, 5).size() == 5);  // the cache has seen them all
  // A revision from before the cache started: the caller must read the store instead.
  CHECK(cache.watch("/registry/pods/", "/registry/pods/", false, before) == nullptr);
  // Only the newest three responses are kept.
  CHECK(cache.watch("/registry/pods/", "/registry/pods/", false, revisions[1]) == nullptr);
  auto replay = cache.watch("/registry/pods/", "/registry/pods/", false, revisions[3]);
  REQUIRE(replay);
  CHECK(keys(*replay, 2) ==
        std::vector<std::string>{"/registry/pods/ns/p3", "/registry/pods/ns/p4"});
}

TEST_CASE("watch cache cuts off a watcher that falls behind, not the others", "[watch_cache]") {
  auto db = open_store();
  WatchCacheLimits limits;
  limits.watcher_queue = 4;
  WatchCacheSet cache(*db, limits);
  auto slow = cache.watch("/registry/leases/", "/registry/leases/", false, 0);
  auto fast = cache.watch("/registry/leases/", "/registry/leases/", false, 0);
  REQUIRE(slow);
  REQUIRE(fast);
  std::vector<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    put(*db, "/registry/leases/ns/l" + std::to_string(i), "v");
    auto got = keys(*fast, 1);  // the fast one keeps up
    seen.insert(seen.end(), got.begin(), got.end());
  }
  CHECK(seen.size() == 20);
  // The slow one got what fitted in its queue, then a cancel.
  store::WatchResponse r;
  bool canceled = false;
  size_t events = 0;
  while (slow->next(r, 100ms)) {
    events += r.events.size();
    canceled = canceled || r.canceled;
  }
  CHECK(canceled);
  CHECK(events < 20);
  CHECK(slow->finished());
  CHECK_FALSE(fast->finished());
}

TEST_CASE("watch cache answers progress requests after the events before them", "[watch_cache]") {
  auto db = open_store();
  WatchCacheSet cache(*db);
  auto w = cache.watch("/registry/nodes/", "/registry/nodes/", false, 0);
  REQUIRE(w);
  int64_t rev = put(*db, "/registry/nodes/n1", "v");
  w->request_progress();
  store::WatchResponse r;
  bool saw_event = false;
  bool saw_progress = false;
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (!saw_progress && std::chrono::steady_clock::now() < deadline) {
    if (!w->next(r, 50ms)) {
      continue;
    }
    if (!r.events.empty()) {
      saw_event = true;
    } else if (r.is_progress_notify()) {
      CHECK(saw_event);  // never before the event it covers
      CHECK(r.header.revision >= rev);
      saw_progress = true;
    }
  }
  CHECK(saw_progress);
}
