// Store::replace_all and read_snapshot: the store side of restoring a named snapshot into a live
// store (one new revision, history compacted, watchers ended, atomic for readers).
#include "store_test_support.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

using store_test::StoreFixture;
using store_test::TempDir;

namespace {

store::KeyValue kv(const std::string& key, const std::string& value, store::LeaseId lease = 0) {
  store::KeyValue out;
  out.key = key;
  out.value = value;
  out.lease = lease;
  return out;
}

std::vector<std::pair<std::string, std::string>> pairs(const std::vector<store::KeyValue>& kvs) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : kvs) {
    out.emplace_back(k.key, k.value);
  }
  return out;
}

store::WatchRequest watch_all(store::Revision from = 0) {
  store::WatchRequest request;
  request.key = std::string(1, '\0');
  request.range_end = std::string(1, '\0');
  request.start_revision = from;
  return request;
}

}  // namespace

TEST_CASE_METHOD(StoreFixture, "replace_all makes the live keys the contents at one new revision",
                 "[store][replace]") {
  put("a", "1");
  put("a", "2");  // a has history
  put("b", "old");
  put("c", "gone");
  put("e", "x");
  del("e");  // a deleted key's tombstone
  const auto a_before = get("a");
  const auto b_before = get("b");
  const auto before = rev();

  auto replaced = store->replace_all({kv("d", "new"), kv("b", "changed"), kv("a", "2")});
  INFO(Catch::Detail::stringify(replaced.status()));
  REQUIRE(replaced.is_ok());
  const auto at = before + 1;
  CHECK(replaced->header.revision == at);
  CHECK(replaced->compact_revision == at);
  CHECK(replaced->written == 2);
  CHECK(replaced->deleted == 1);
  CHECK(replaced->unchanged == 1);
  CHECK(rev() == at);
  CHECK(store->compacted_revision() == at);

  CHECK(pairs(all()) == std::vector<std::pair<std::string, std::string>>{
                            {"a", "2"}, {"b", "changed"}, {"d", "new"}});
  CHECK(get("a") == a_before);  // unchanged keys keep their revisions
  auto b = get("b");
  REQUIRE(b);
  CHECK(b->mod_revision == at);
  CHECK(b->create_revision == b_before->create_revision);
  CHECK(b->version == b_before->version + 1);
  auto d = get("d");
  REQUIRE(d);
  CHECK(d->create_revision == at);
  CHECK(d->mod_revision == at);
  CHECK(d->version == 1);

  // The history before the replace is gone; its revision reads the new state.
  store::RangeRequest old = store_test::range_op("a");
  old.revision = before;
  CHECK(store->range(old).status().code() == store::Code::Compacted);
  CHECK(all(at).size() == 3);
  CHECK(store->check_integrity().is_ok());
  auto status = store->status();
  REQUIRE(status.is_ok());
  CHECK(status->key_count == 3);

  // Durable and the same after a reopen; writes go on from there.
  reopen();
  CHECK(rev() == at);
  CHECK(store->compacted_revision() == at);
  CHECK(pairs(all()) == std::vector<std::pair<std::string, std::string>>{
                            {"a", "2"}, {"b", "changed"}, {"d", "new"}});
  CHECK(store->check_integrity().is_ok());
  CHECK(put("z", "after").header.revision == at + 1);
}

TEST_CASE_METHOD(StoreFixture, "replace_all with contents already in place writes no revision",
                 "[store][replace]") {
  put("a", "1");
  put("a", "2");
  put("b", "1");
  const auto before = rev();
  auto replaced = store->replace_all({kv("a", "2"), kv("b", "1")});
  REQUIRE(replaced.is_ok());
  CHECK(replaced->header.revision == before);
  CHECK(replaced->written == 0);
  CHECK(replaced->deleted == 0);
  CHECK(replaced->unchanged == 2);
  CHECK(rev() == before);
  CHECK(store->compacted_revision() == before);  // the history goes all the same
  CHECK(store->check_integrity().is_ok());
}

TEST_CASE_METHOD(StoreFixture, "replace_all of nothing deletes every key", "[store][replace]") {
  for (int i = 0; i < 10; ++i) {
    put("k/" + std::to_string(i), "v");
  }
  const auto before = rev();
  auto replaced = store->replace_all({});
  REQUIRE(replaced.is_ok());
  CHECK(replaced->deleted == 10);
  CHECK(replaced->header.revision == before + 1);  // deleting is a change: a new revision
  CHECK(rev() == before + 1);
  CHECK(all().empty());
  CHECK(store->check_integrity().is_ok());
  reopen();
  CHECK(rev() == before + 1);
  CHECK(put("k/0", "again").header.revision == before + 2);
}

TEST_CASE_METHOD(StoreFixture, "replace_all refuses bad contents and changes nothing",
                 "[store][replace]") {
  put("a", "1");
  const auto before = rev();
  struct Case {
    std::string what;
    std::vector<store::KeyValue> contents;
    store::Code code;
  };
  auto big = kv("big", std::string(2 * 1024 * 1024, 'x'));
  auto cases = GENERATE_COPY(values<Case>({
      {"a key given twice", {kv("b", "1"), kv("a", "2"), kv("b", "3")}, store::Code::DuplicateKey},
      {"an empty key", {kv("b", "1"), kv("", "2")}, store::Code::EmptyKey},
      {"a value above the request limit", {kv("b", "1"), big}, store::Code::RequestTooLarge},
  }));
  CAPTURE(cases.what);
  auto replaced = store->replace_all(cases.contents);
  CHECK(replaced.status().code() == cases.code);
  CHECK(rev() == before);
  CHECK(store->compacted_revision() == 0);
  CHECK(pairs(all()) == std::vector<std::pair<std::string, std::string>>{{"a", "1"}});
}

TEST_CASE_METHOD(StoreFixture, "replace_all ends every watcher as compacted past its revision",
                 "[store][replace][watch]") {
  put("a", "1");
  auto open_watch = store->watch(watch_all());
  CHECK(store_test::next_response(*open_watch).created);
  auto behind = store->watch(watch_all(1));  // replaying history
  CHECK(store_test::next_response(*behind).created);
  const auto before = rev();

  auto replaced = store->replace_all({kv("b", "2")});
  REQUIRE(replaced.is_ok());
  const auto at = replaced->header.revision;
  REQUIRE(at == before + 1);

  // No events of the replace: the next response ends the watch, telling where to resume.
  for (auto* w : {open_watch.get(), behind.get()}) {
    store::WatchResponse r;
    do {
      r = store_test::next_response(*w);
    } while (!r.canceled && r.header.revision < at);
    CHECK(r.canceled);
    CHECK(r.events.empty());
    CHECK(r.compact_revision == at + 1);
  }

  // A watch may not start at the replace's revision (its deletions were compacted away) ...
  auto at_replace = store->watch(watch_all(at));
  auto refused = store_test::next_response(*at_replace);
  CHECK(refused.created);
  CHECK(refused.canceled);
  CHECK(refused.compact_revision == at + 1);
  // ... but right after it, and it sees what comes next.
  auto after = store->watch(watch_all(at + 1));
  CHECK(store_test::next_response(*after).created);
  put("c", "3");
  auto event = store_test::next_response(*after);
  REQUIRE(event.events.size() == 1);
  CHECK(event.events[0].kv.key == "c");

  // The rule outlives a reopen (here after a replace that changed nothing).
  after.reset();
  auto unchanged = store->replace_all({kv("b", "2"), kv("c", "3")});
  REQUIRE(unchanged.is_ok());
  CHECK(unchanged->written == 0);
  reopen();
  auto again = store->watch(watch_all(rev()));
  auto refused_again = store_test::next_response(*again);
  CHECK(refused_again.canceled);
  CHECK(refused_again.compact_revision == rev() + 1);
}

TEST_CASE_METHOD(StoreFixture, "replace_all keeps a lease only when it is granted here",
                 "[store][replace][lease]") {
  auto lease = grant(60);
  put("leased", "1", lease);
  put("dropped", "1", lease);
  auto replaced = store->replace_all(
      {kv("leased", "1", lease), kv("stranger", "2", 987654321), kv("kept-value", "3", lease)});
  REQUIRE(replaced.is_ok());
  CHECK(replaced->unchanged == 1);  // same value, same granted lease
  CHECK(get("leased")->lease == lease);
  CHECK(get("kept-value")->lease == lease);
  CHECK(get("stranger")->lease == 0);  // that lease is not granted in this store
  auto ttl = store->lease_time_to_live(lease, true);
  REQUIRE(ttl.is_ok());
  std::vector<std::string> keys = ttl->keys;
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{"kept-value", "leased"});
  // Revoking the lease deletes what is attached now, nothing else.
  REQUIRE(store->lease_revoke(lease).is_ok());
  CHECK(store_test::keys_of(all()) == std::vector<std::string>{"stranger"});
}

TEST_CASE_METHOD(StoreFixture, "readers see the whole state before or after a replace, never a mix",
                 "[store][replace]") {
  constexpr int kKeys = 2000;
  std::vector<store::KeyValue> next;
  for (int i = 0; i < kKeys; ++i) {
    if (i % 50 == 0) {
      store::TxnRequest txn;
      for (int j = i; j < i + 50; ++j) {
        txn.success.push_back(store::RequestOp::of(
            store_test::put_op("k/" + std::to_string(j), "old" + std::to_string(j))));
      }
      this->txn(txn);
    }
    if (i % 2 == 0) {
      next.push_back(kv("k/" + std::to_string(i), "new" + std::to_string(i)));
    }
  }
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0};
  std::atomic<int> mixed{0};
  std::atomic<int> errors{0};
  std::thread reader([&] {
    auto request = store_test::range_op("k/", store::prefix_range_end("k/"));
    while (!stop) {
      auto r = store->range(request);
      if (!r.is_ok()) {
        ++errors;
        continue;
      }
      auto all_start = [&](const char* prefix) {
        return std::all_of(r->kvs.begin(), r->kvs.end(),
                           [&](const store::KeyValue& k) { return k.value.rfind(prefix, 0) == 0; });
      };
      bool old_state = static_cast<int>(r->kvs.size()) == kKeys && all_start("old");
      bool new_state = r->kvs.size() == next.size() && all_start("new");
      if (!old_state && !new_state) {
        ++mixed;
      }
      ++reads;
    }
  });
  while (reads.load() < 5) {
    std::this_thread::yield();
  }
  auto replaced = store->replace_all(next);
  int until = reads.load() + 5;
  while (reads.load() < until) {
    std::this_thread::yield();
  }
  stop = true;
  reader.join();
  REQUIRE(replaced.is_ok());
  CHECK(replaced->written == kKeys / 2);
  CHECK(replaced->deleted == kKeys / 2);
  CHECK(mixed.load() == 0);
  CHECK(errors.load() == 0);
  CHECK(all() == all(replaced->header.revision));
}

TEST_CASE("replace_all grows the map when its contents do not fit", "[store][replace]") {
  TempDir dir;
  auto options = store_test::test_options(dir.path());
  options.initial_map_size = size_t{1} << 20;
  auto db = store_test::open_store(options);
  std::vector<store::KeyValue> contents;
  for (int i = 0; i < 400; ++i) {
    contents.push_back(kv("k/" + std::to_string(i), std::string(8192, 'a' + i % 26)));
  }
  auto replaced = db->replace_all(contents);
  INFO(Catch::Detail::stringify(replaced.status()));
  REQUIRE(replaced.is_ok());
  CHECK(replaced->written == 400);
  auto status = db->status();
  REQUIRE(status.is_ok());
  CHECK(status->key_count == 400);
  CHECK(db->check_integrity().is_ok());
}

TEST_CASE_METHOD(StoreFixture, "a snapshot read back and replaced restores its state, revisions on",
                 "[store][replace][snapshot]") {
  put("keep", "1");
  put("edit", "before");
  put("remove", "x");
  TempDir snapshots;
  const auto file = snapshots.path() / "base.snap";
  REQUIRE(store->snapshot(file).is_ok());
  const auto saved = all();
  const auto saved_at = rev();
  const auto keep = get("keep");

  auto contents = store::read_snapshot(file);
  REQUIRE(contents.is_ok());
  CHECK(contents->revision == saved_at);
  CHECK(contents->kvs == saved);
  auto cheap = store::read_snapshot(file, false);
  REQUIRE(cheap.is_ok());
  CHECK(cheap->revision == saved_at);
  CHECK(cheap->kvs.empty());

  put("edit", "after");
  del("remove");
  put("added", "y");
  const auto seen = rev();

  auto replaced = store->replace_all(store::read_snapshot(file)->kvs);
  REQUIRE(replaced.is_ok());
  CHECK(replaced->header.revision > seen);
  CHECK(pairs(all()) == pairs(saved));
  CHECK(get("keep") == keep);
  CHECK(get("edit")->mod_revision == replaced->header.revision);
  CHECK(get("remove")->create_revision == replaced->header.revision);

  CHECK(store::read_snapshot(snapshots.path() / "missing.snap").status().code() ==
        store::Code::InvalidArgument);
  std::ofstream(snapshots.path() / "junk.snap") << "not a database";
  CHECK(store::read_snapshot(snapshots.path() / "junk.snap").status().code() ==
        store::Code::InvalidArgument);
}
