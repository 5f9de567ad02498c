// Compaction: history below the compacted revision is gone, the compacted revision itself still
// reads, and the database file stops growing under a steady update load.
#include "store_test_support.h"

using store_test::StoreFixture;

namespace {

// Keys with history around revision r0+4:
//   r0+1 put a=1   r0+2 put b=1   r0+3 put a=2   r0+4 del b   r0+5 put a=3   r0+6 put c=1
class HistoryFixture : public StoreFixture {
 public:
  HistoryFixture() {
    r0 = rev();
    put("a", "1");
    put("b", "1");
    put("a", "2");
    del("b");
    put("a", "3");
    put("c", "1");
  }
  store::Revision r0 = 0;
};

}  // namespace

TEST_CASE_METHOD(HistoryFixture, "Compaction drops history below the compacted revision",
                 "[store][compaction]") {
  const store::Revision at = GENERATE_COPY(r0 + 3, r0 + 4);
  CAPTURE(at - r0);
  auto response = store->compact({at, GENERATE(false, true)});
  REQUIRE(response.is_ok());
  CHECK(response->header.revision == r0 + 6);
  CHECK(store->compacted_revision() == at);
  CHECK(store->status()->compact_revision == at);
  CHECK(rev() == r0 + 6);

  auto below = store_test::range_op("a");
  below.revision = at - 1;
  auto result = store->range(below);
  CHECK(result.status().code() == store::Code::Compacted);
  CHECK(result.status().message() == "etcdserver: mvcc: required revision has been compacted");

  // At the compacted revision every key reads as its latest version at or below it.
  auto kvs = all(at);
  REQUIRE(kvs.size() == (at == r0 + 3 ? 2u : 1u));
  CHECK(kvs[0] == store::KeyValue{"a", r0 + 1, r0 + 3, 2, "2", 0});
  if (at == r0 + 3) {
    CHECK(kvs[1] == store::KeyValue{"b", r0 + 2, r0 + 2, 1, "1", 0});
  }
  // Later revisions are untouched.
  CHECK(store_test::keys_of(all(r0 + 6)) == std::vector<std::string>{"a", "c"});
  CHECK(get("a", r0 + 5)->value == "3");
  CHECK(*get("a") == store::KeyValue{"a", r0 + 1, r0 + 5, 3, "3", 0});
}

TEST_CASE_METHOD(HistoryFixture, "Compaction keeps create_revision and version of live keys",
                 "[store][compaction]") {
  REQUIRE(store->compact({r0 + 6, true}).is_ok());
  put("a", "4");
  CHECK(*get("a") == store::KeyValue{"a", r0 + 1, r0 + 7, 4, "4", 0});
  put("b", "again");
  CHECK(*get("b") == store::KeyValue{"b", r0 + 8, r0 + 8, 1, "again", 0});
  CHECK(store->check_integrity().is_ok());
}

TEST_CASE_METHOD(HistoryFixture, "Compaction refuses compacted and future revisions",
                 "[store][compaction]") {
  REQUIRE(store->compact({r0 + 4, false}).is_ok());
  struct Case {
    store::Revision at;
    store::Code code;
    const char* message;
  };
  auto c = GENERATE_COPY(values<Case>({
      {r0 + 4, store::Code::Compacted, "etcdserver: mvcc: required revision has been compacted"},
      {r0 + 2, store::Code::Compacted, "etcdserver: mvcc: required revision has been compacted"},
      {r0 + 7, store::Code::FutureRevision,
       "etcdserver: mvcc: required revision is a future revision"},
      {r0 + 5, store::Code::Ok, ""},
      {r0 + 6, store::Code::Ok, ""},
  }));
  CAPTURE(c.at - r0);
  auto result = store->compact({c.at, false});
  CHECK(result.status().code() == c.code);
  CHECK(result.status().message() == c.message);
  CHECK(store->compacted_revision() == (c.code == store::Code::Ok ? c.at : r0 + 4));
  CHECK(rev() == r0 + 6);
}

TEST_CASE_METHOD(StoreFixture,
                 "Under steady updates with periodic compaction the database file stops growing",
                 "[store][compaction]") {
  // Each round rewrites 200 keys of 1 KiB (in two txns), then compacts physically. Without
  // compaction every round would add about 200 KiB of history to the file.
  constexpr int kKeys = 200;
  constexpr size_t kValueBytes = 1024;
  constexpr int64_t kRoundBytes = kKeys * static_cast<int64_t>(kValueBytes);
  auto round = [&](int n) {
    for (int half = 0; half < 2; ++half) {
      store::TxnRequest request;
      for (int i = half * kKeys / 2; i < (half + 1) * kKeys / 2; ++i) {
        request.success.push_back(store::RequestOp::of(
            store_test::put_op("load/" + std::to_string(i),
                               std::string(kValueBytes, static_cast<char>('a' + n % 26)))));
      }
      txn(request);
    }
    auto compacted = store->compact({rev(), true});
    REQUIRE(compacted.is_ok());
  };

  for (int n = 0; n < 10; ++n) {
    round(n);
  }
  auto warm = store->status();
  REQUIRE(warm.is_ok());
  for (int n = 10; n < 40; ++n) {
    round(n);
  }
  auto end = store->status();
  REQUIRE(end.is_ok());
  CAPTURE(warm->db_size, end->db_size, kRoundBytes);
  // 30 more rounds: about 6 MiB written; freed pages must be reused instead.
  CHECK(end->db_size <= warm->db_size + 2 * kRoundBytes);
  CHECK(end->db_size_in_use <= end->db_size);
  CHECK(end->key_count == kKeys);
  CHECK(all().size() == static_cast<size_t>(kKeys));
  CHECK(store->check_integrity().is_ok());
}
