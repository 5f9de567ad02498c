// Watch: key/prefix/range watches, history replay, filters, prev_kv, one response per revision,
// cancel, compaction, progress, and a slow watcher that is cancelled instead of blocking writers.
#include "store_test_support.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <thread>

using store::Event;
using store::WatchRequest;
using store::WatchResponse;
using store_test::next_response;
using store_test::StoreFixture;

namespace {

WatchRequest watch_range(const std::string& key, const std::string& range_end = {}) {
  WatchRequest request;
  request.key = key;
  request.range_end = range_end;
  return request;
}

class WatchFixture : public StoreFixture {
 public:
  // Starts a watch and checks its first response is {created=true}.
  std::shared_ptr<store::Watcher> start(const WatchRequest& request) {
    auto watcher = store->watch(request);
    REQUIRE(watcher);
    auto created = next_response(*watcher);
    CHECK(created.created);
    CHECK_FALSE(created.canceled);
    CHECK(created.events.empty());
    CHECK(created.watch_id == watcher->id());
    CHECK(created.header.revision == rev());
    return watcher;
  }

  // Takes responses until one carries events (skipping progress notifications).
  WatchResponse next_events(store::Watcher& watcher) {
    for (;;) {
      auto response = next_response(watcher);
      REQUIRE_FALSE(response.canceled);
      if (!response.events.empty()) {
        CHECK(response.watch_id == watcher.id());
        return response;
      }
    }
  }
};

struct Seen {
  Event::Type type;
  std::string key;
  std::string value;
  store::Revision mod_revision;

  bool operator==(const Seen&) const = default;
};

std::vector<Seen> seen(const WatchResponse& response) {
  std::vector<Seen> out;
  for (const auto& e : response.events) {
    out.push_back({e.type, e.kv.key, e.kv.value, e.kv.mod_revision});
  }
  return out;
}

}  // namespace

namespace Catch {
template <>
struct StringMaker<Seen> {
  static std::string convert(const Seen& s) {
    return std::string(s.type == Event::Type::Put ? "PUT " : "DELETE ") + s.key + "=" + s.value +
           "@" + std::to_string(s.mod_revision);
  }
};
}  // namespace Catch

TEST_CASE_METHOD(WatchFixture, "A watch sees only the keys it covers", "[store][watch]") {
  struct Case {
    const char* what;
    WatchRequest request;
    std::vector<std::string> expected;
  };
  const std::string nul(1, '\0');
  auto c = GENERATE_COPY(values<Case>({
      {"a single key", watch_range("b"), {"b"}},
      {"a prefix", watch_range("p/", store::prefix_range_end("p/")), {"p/1", "p/2"}},
      {"an interval", watch_range("b", "p/2"), {"b", "p/1"}},
      {"every key from a key on", watch_range("p/2", nul), {"p/2", "q"}},
      {"all keys", watch_range(nul, nul), {"a", "b", "p/1", "p/2", "q"}},
  }));
  CAPTURE(c.what);
  auto watcher = start(c.request);
  const auto r0 = rev();
  const std::vector<std::string> writes = {"a", "b", "p/1", "p/2", "q"};
  for (const auto& key : writes) {
    put(key, "v");
  }
  // A final write every watch covers marks the end of the stream.
  put(c.expected.back(), "last");

  std::vector<std::string> keys;
  for (;;) {
    auto response = next_events(*watcher);
    REQUIRE(response.events.size() == 1);
    const auto& event = response.events[0];
    CHECK(event.type == Event::Type::Put);
    CHECK(response.header.revision == event.kv.mod_revision);
    CHECK(event.kv.mod_revision > r0);
    if (event.kv.value == "last") {
      break;
    }
    keys.push_back(event.kv.key);
  }
  CHECK(keys == c.expected);
}

TEST_CASE_METHOD(WatchFixture, "A watch delivers puts and deletes live in order",
                 "[store][watch]") {
  auto watcher = start(watch_range("k"));
  const auto r0 = rev();
  put("k", "1");
  put("k", "2");
  del("k");

  CHECK(seen(next_events(*watcher)) == std::vector<Seen>{{Event::Type::Put, "k", "1", r0 + 1}});
  auto second = next_events(*watcher);
  CHECK(seen(second) == std::vector<Seen>{{Event::Type::Put, "k", "2", r0 + 2}});
  CHECK(second.events[0].kv == store::KeyValue{"k", r0 + 1, r0 + 2, 2, "2", 0});
  CHECK_FALSE(second.events[0].prev_kv);
  auto third = next_events(*watcher);
  CHECK(seen(third) == std::vector<Seen>{{Event::Type::Delete, "k", "", r0 + 3}});
  CHECK(third.header.revision == r0 + 3);
}

TEST_CASE_METHOD(WatchFixture, "A watch with prev_kv attaches the previous key-value",
                 "[store][watch]") {
  put("k", "0");
  const auto r0 = rev();
  auto request = watch_range("k");
  request.prev_kv = true;
  auto watcher = start(request);
  put("k", "1");
  del("k");
  put("k", "fresh");

  auto update = next_events(*watcher);
  REQUIRE(update.events[0].prev_kv);
  CHECK(*update.events[0].prev_kv == store::KeyValue{"k", r0, r0, 1, "0", 0});
  auto deletion = next_events(*watcher);
  CHECK(deletion.events[0].type == Event::Type::Delete);
  REQUIRE(deletion.events[0].prev_kv);
  CHECK(*deletion.events[0].prev_kv == store::KeyValue{"k", r0, r0 + 1, 2, "1", 0});
  auto create = next_events(*watcher);
  CHECK_FALSE(create.events[0].prev_kv);
}

TEST_CASE_METHOD(WatchFixture, "A watch filters puts or deletes", "[store][watch]") {
  const bool no_put = GENERATE(true, false);
  CAPTURE(no_put);
  auto request = watch_range("k");
  request.no_put = no_put;
  request.no_delete = !no_put;
  auto watcher = start(request);
  const auto r0 = rev();
  put("k", "1");
  del("k");
  put("k", "2");
  del("k");

  std::vector<Seen> expected;
  if (no_put) {
    expected = {{Event::Type::Delete, "k", "", r0 + 2}, {Event::Type::Delete, "k", "", r0 + 4}};
  } else {
    expected = {{Event::Type::Put, "k", "1", r0 + 1}, {Event::Type::Put, "k", "2", r0 + 3}};
  }
  std::vector<Seen> got;
  while (got.size() < expected.size()) {
    for (const auto& s : seen(next_events(*watcher))) {
      got.push_back(s);
    }
  }
  CHECK(got == expected);
}

TEST_CASE_METHOD(WatchFixture, "A watch from a past revision replays history, then goes live",
                 "[store][watch]") {
  const auto r0 = rev();
  put("k", "1");      // r0+1
  put("other", "x");  // r0+2
  put("k", "2");      // r0+3
  del("k");           // r0+4
  put("k", "3");      // r0+5

  auto request = watch_range("k");
  request.start_revision = r0 + GENERATE(1, 3);
  CAPTURE(request.start_revision - r0);
  auto watcher = start(request);
  put("k", "live");  // r0+6

  std::vector<Seen> all = {
      {Event::Type::Put, "k", "1", r0 + 1},    {Event::Type::Put, "k", "2", r0 + 3},
      {Event::Type::Delete, "k", "", r0 + 4},  {Event::Type::Put, "k", "3", r0 + 5},
      {Event::Type::Put, "k", "live", r0 + 6},
  };
  std::vector<Seen> expected;
  for (const auto& s : all) {
    if (s.mod_revision >= request.start_revision) {
      expected.push_back(s);
    }
  }
  std::vector<Seen> got;
  while (got.size() < expected.size()) {
    auto response = next_events(*watcher);
    REQUIRE(response.events.size() == 1);
    CHECK(response.header.revision == response.events[0].kv.mod_revision);
    got.push_back(seen(response)[0]);
  }
  CHECK(got == expected);
}

TEST_CASE_METHOD(WatchFixture, "All events of one revision arrive in one response",
                 "[store][watch]") {
  auto watcher = start(watch_range("t/", store::prefix_range_end("t/")));
  const auto r0 = rev();
  store::TxnRequest request;
  for (const char* key : {"t/c", "t/a", "t/b"}) {
    request.success.push_back(store::RequestOp::of(store_test::put_op(key, "v")));
  }
  txn(request);
  del("t/", store::prefix_range_end("t/"));

  auto puts = next_events(*watcher);
  CHECK(puts.header.revision == r0 + 1);
  auto got = seen(puts);
  std::sort(got.begin(), got.end(), [](const Seen& a, const Seen& b) { return a.key < b.key; });
  CHECK(got == std::vector<Seen>{{Event::Type::Put, "t/a", "v", r0 + 1},
                                 {Event::Type::Put, "t/b", "v", r0 + 1},
                                 {Event::Type::Put, "t/c", "v", r0 + 1}});
  auto deletes = next_events(*watcher);
  CHECK(deletes.header.revision == r0 + 2);
  CHECK(deletes.events.size() == 3);
  for (const auto& e : deletes.events) {
    CHECK(e.type == Event::Type::Delete);
    CHECK(e.kv.mod_revision == r0 + 2);
  }
}

TEST_CASE_METHOD(WatchFixture, "Cancelling a watch queues a final canceled response",
                 "[store][watch]") {
  auto watcher = start(watch_range("k"));
  put("k", "1");
  watcher->cancel();

  // The event queued before the cancel may still be delivered; the stream ends with canceled.
  WatchResponse response = next_response(*watcher);
  if (!response.events.empty()) {
    CHECK(response.events[0].kv.value == "1");
    response = next_response(*watcher);
  }
  CHECK(response.canceled);
  CHECK(response.watch_id == watcher->id());
  CHECK(response.events.empty());
  CHECK(watcher->finished());
  WatchResponse after;
  CHECK_FALSE(watcher->try_next(after));
  CHECK_FALSE(watcher->next(after, std::chrono::milliseconds(0)));
  // Writes after the cancel are not delivered and do not trouble the store.
  put("k", "2");
  CHECK_FALSE(watcher->try_next(after));
}

TEST_CASE_METHOD(WatchFixture, "A watch from a compacted revision is canceled at once",
                 "[store][watch]") {
  const auto r0 = rev();
  for (int i = 0; i < 5; ++i) {
    put("k", std::to_string(i));
  }
  REQUIRE(store->compact({r0 + 3, true}).is_ok());

  SECTION("below the compacted revision") {
    auto request = watch_range("k");
    request.start_revision = r0 + 2;
    auto watcher = store->watch(request);
    auto response = next_response(*watcher);
    CHECK(response.created);
    CHECK(response.canceled);
    CHECK(response.compact_revision == r0 + 3);
    CHECK(response.events.empty());
    WatchResponse after;
    CHECK_FALSE(watcher->next(after, std::chrono::milliseconds(0)));
    CHECK(watcher->finished());
  }
  SECTION("at the compacted revision") {
    auto request = watch_range("k");
    request.start_revision = r0 + 3;
    auto watcher = start(request);
    auto response = next_events(*watcher);
    CHECK(seen(response) == std::vector<Seen>{{Event::Type::Put, "k", "2", r0 + 3}});
  }
}

TEST_CASE_METHOD(WatchFixture, "request_progress answers with the current revision",
                 "[store][watch]") {
  auto watcher = start(watch_range("k"));
  put("unwatched", "1");
  put("unwatched", "2");
  watcher->request_progress();
  auto response = next_response(*watcher);
  CHECK(response.is_progress_notify());
  CHECK(response.header.revision == rev());
  CHECK(response.watch_id == watcher->id());
}

TEST_CASE_METHOD(WatchFixture, "A watch from a future revision starts delivering there",
                 "[store][watch]") {
  const auto r0 = rev();
  auto request = watch_range("k");
  request.start_revision = r0 + 2;
  auto watcher = start(request);
  put("k", "too early");  // r0+1
  put("k", "first");      // r0+2
  CHECK(seen(next_events(*watcher)) == std::vector<Seen>{{Event::Type::Put, "k", "first", r0 + 2}});
}

TEST_CASE_METHOD(WatchFixture, "Several watchers of one key each get every event",
                 "[store][watch]") {
  auto first = start(watch_range("k"));
  auto second = start(watch_range("k", store::prefix_range_end("k")));
  CHECK(first->id() != second->id());
  const auto r0 = rev();
  put("k", "1");
  for (auto* watcher : {first.get(), second.get()}) {
    CHECK(seen(next_events(*watcher)) == std::vector<Seen>{{Event::Type::Put, "k", "1", r0 + 1}});
  }
}

TEST_CASE_METHOD(WatchFixture, "Keys deleted by a lease revoke arrive as one response",
                 "[store][watch]") {
  auto lease = grant(60);
  put("l/a", "1", lease);
  put("l/b", "1", lease);
  auto request = watch_range("l/", store::prefix_range_end("l/"));
  request.prev_kv = true;
  auto watcher = start(request);
  const auto r0 = rev();
  const bool by_expiry = GENERATE(false, true);
  CAPTURE(by_expiry);
  if (by_expiry) {
    clock->advance(std::chrono::seconds(61));
    store->expire_leases_for_test();
  } else {
    REQUIRE(store->lease_revoke(lease).is_ok());
  }
  auto response = next_events(*watcher);
  CHECK(response.header.revision == r0 + 1);
  REQUIRE(response.events.size() == 2);
  for (const auto& e : response.events) {
    CHECK(e.type == Event::Type::Delete);
    CHECK(e.kv.mod_revision == r0 + 1);
    REQUIRE(e.prev_kv);
    CHECK(e.prev_kv->lease == lease);
  }
}

TEST_CASE("An idle watch with progress_notify gets periodic progress responses", "[store][watch]") {
  store_test::TempDir dir;
  auto options = store_test::test_options(dir.path());
  options.progress_interval = std::chrono::milliseconds(20);
  auto store = store_test::open_store(options);
  REQUIRE(store->put(store_test::put_op("other", "1")).is_ok());
  auto request = watch_range("k");
  request.progress_notify = true;
  auto watcher = store->watch(request);
  CHECK(next_response(*watcher).created);
  auto progress = next_response(*watcher);
  CHECK(progress.is_progress_notify());
  CHECK(progress.header.revision == store->current_revision());
}

TEST_CASE_METHOD(WatchFixture, "set_notify is called when a response is queued", "[store][watch]") {
  auto watcher = store->watch(watch_range("k"));
  std::mutex mutex;
  std::condition_variable cv;
  int calls = 0;
  watcher->set_notify([&] {
    std::lock_guard lock(mutex);
    ++calls;
    cv.notify_all();
  });
  put("k", "1");
  std::unique_lock lock(mutex);
  CHECK(cv.wait_for(lock, store_test::kWait, [&] { return calls >= 1; }));
  lock.unlock();
  watcher->cancel();
  WatchResponse response;
  while (watcher->try_next(response)) {
  }
  watcher->set_notify(nullptr);
}

TEST_CASE("A watcher that is never drained is cancelled without blocking writers",
          "[store][watch]") {
  store_test::TempDir dir;
  auto options = store_test::test_options(dir.path());
  options.watcher_buffer = 8;
  auto store = store_test::open_store(options);

  auto request = watch_range("k/", store::prefix_range_end("k/"));
  const store::Revision start = store->current_revision() + 1;
  auto slow = store->watch(request);
  constexpr int kWrites = 300;

  // The writer must finish while nobody drains the watcher.
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int i = 0; i < kWrites; ++i) {
      if (!store->put(store_test::put_op("k/" + std::to_string(i % 7), std::to_string(i)))
               .is_ok()) {
        failed = true;
      }
    }
    std::lock_guard lock(mutex);
    done = true;
    done_cv.notify_all();
  });
  bool writer_finished = false;
  {
    std::unique_lock lock(mutex);
    writer_finished = done_cv.wait_for(lock, store_test::kWait, [&] { return done; });
  }
  if (!writer_finished) {
    slow->cancel();  // unblock a writer stuck on the watcher before joining it
  }
  writer.join();
  REQUIRE(writer_finished);
  REQUIRE_FALSE(failed);
  const store::Revision end = store->current_revision();
  REQUIRE(end == start + kWrites - 1);

  // Drain: created, some events in order, then canceled with a reason naming where to resume.
  std::vector<store::Revision> delivered;
  WatchResponse response;
  bool canceled = false;
  std::string reason;
  bool first = true;
  while (!canceled) {
    response = next_response(*slow);
    if (first) {
      CHECK(response.created);
      first = false;
    }
    for (const auto& e : response.events) {
      delivered.push_back(e.kv.mod_revision);
    }
    canceled = response.canceled;
    reason = response.cancel_reason;
  }
  CHECK(slow->finished());
  INFO("cancel_reason: " << reason);
  REQUIRE_FALSE(reason.empty());
  REQUIRE(delivered.size() < static_cast<size_t>(kWrites));
  for (size_t i = 0; i < delivered.size(); ++i) {
    CHECK(delivered[i] == start + static_cast<store::Revision>(i));
  }

  // The reason names the revision to resume from: the last delivered revision + 1.
  std::smatch match;
  std::string last_number;
  for (auto it = reason.cbegin(); std::regex_search(it, reason.cend(), match, std::regex("\\d+"));
       it = match.suffix().first) {
    last_number = match.str();
  }
  REQUIRE_FALSE(last_number.empty());
  const store::Revision resume = std::stoll(last_number);
  const store::Revision expected_resume = delivered.empty() ? start : delivered.back() + 1;
  CHECK(resume == expected_resume);

  // A new watch from there sees every later revision exactly once.
  request.start_revision = resume;
  auto again = store->watch(request);
  std::vector<store::Revision> resumed;
  while (resumed.empty() || resumed.back() < end) {
    auto r = next_response(*again);
    REQUIRE_FALSE(r.canceled);
    for (const auto& e : r.events) {
      resumed.push_back(e.kv.mod_revision);
    }
  }
  REQUIRE(resumed.size() == static_cast<size_t>(end - resume + 1));
  for (size_t i = 0; i < resumed.size(); ++i) {
    CHECK(resumed[i] == resume + static_cast<store::Revision>(i));
  }
}
