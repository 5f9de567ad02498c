// Revisions: one global counter, bumped exactly once per successful write transaction.
#include "store_test_support.h"

using store_test::StoreFixture;

TEST_CASE_METHOD(StoreFixture, "A fresh store is at revision 1 as a new etcd cluster is",
                 "[store][revision]") {
  CHECK(rev() == 1);
  store::RangeRequest request;
  request.key = "missing";
  CHECK(range(request).header.revision == 1);
  CHECK(store->status()->header.revision == 1);
}

TEST_CASE_METHOD(StoreFixture, "Each successful write bumps the revision exactly once",
                 "[store][revision]") {
  const store::Revision start = rev();

  SECTION("a put") {
    auto response = put("a", "1");
    CHECK(response.header.revision == start + 1);
    CHECK(rev() == start + 1);
  }
  SECTION("a delete that deleted one key") {
    put("a", "1");
    auto response = del("a");
    CHECK(response.deleted == 1);
    CHECK(response.header.revision == start + 2);
    CHECK(rev() == start + 2);
  }
  SECTION("a delete of a range of three keys") {
    put("r/a", "1");
    put("r/b", "1");
    put("r/c", "1");
    auto response = del("r/", store::prefix_range_end("r/"));
    CHECK(response.deleted == 3);
    CHECK(response.header.revision == start + 4);
  }
  SECTION("a txn with three puts") {
    store::TxnRequest request;
    for (const char* key : {"x", "y", "z"}) {
      request.success.push_back(store::RequestOp::of(store_test::put_op(key, "v")));
    }
    auto response = txn(request);
    CHECK(response.succeeded);
    CHECK(response.header.revision == start + 1);
    CHECK(rev() == start + 1);
    for (const char* key : {"x", "y", "z"}) {
      CAPTURE(key);
      CHECK(get(key)->mod_revision == start + 1);
    }
  }
}

TEST_CASE_METHOD(StoreFixture, "Writes that change nothing do not bump the revision",
                 "[store][revision]") {
  put("a", "1");
  const store::Revision start = rev();

  SECTION("a delete of a missing key") {
    auto response = del("missing");
    CHECK(response.deleted == 0);
    CHECK(response.header.revision == start);
  }
  SECTION("a delete of an empty range") {
    auto response = del("b", "c");
    CHECK(response.deleted == 0);
    CHECK(response.header.revision == start);
  }
  SECTION("a txn with only reads") {
    store::TxnRequest request;
    request.success.push_back(store::RequestOp::of(store_test::range_op("a")));
    auto response = txn(request);
    CHECK(response.succeeded);
    CHECK(response.header.revision == start);
  }
  SECTION("a txn whose taken branch is empty") {
    store::TxnRequest request;
    store::Compare compare;
    compare.key = "a";
    compare.target = store::Compare::Target::Value;
    compare.value = "other";
    request.compare.push_back(compare);
    request.success.push_back(store::RequestOp::of(store_test::put_op("a", "2")));
    auto response = txn(request);
    CHECK_FALSE(response.succeeded);
    CHECK(response.header.revision == start);
  }
  SECTION("a txn that only deletes a missing key") {
    store::TxnRequest request;
    request.success.push_back(store::RequestOp::of(store_test::delete_op("missing")));
    auto response = txn(request);
    CHECK(response.header.revision == start);
  }
  SECTION("a failed put") {
    store::PutRequest request = store_test::put_op("", "v");
    CHECK_FALSE(store->put(request).is_ok());
  }
  CHECK(rev() == start);
}

TEST_CASE_METHOD(StoreFixture,
                 "create_revision, mod_revision and version follow etcd through put and delete",
                 "[store][revision]") {
  const store::Revision r0 = rev();
  put("k", "v1");
  auto kv = get("k");
  REQUIRE(kv);
  CHECK(*kv == store::KeyValue{"k", r0 + 1, r0 + 1, 1, "v1", 0});

  put("other", "x");
  put("k", "v2");
  put("k", "v3");
  kv = get("k");
  REQUIRE(kv);
  CHECK(*kv == store::KeyValue{"k", r0 + 1, r0 + 4, 3, "v3", 0});

  del("k");
  CHECK_FALSE(get("k"));

  put("k", "again");
  kv = get("k");
  REQUIRE(kv);
  CHECK(*kv == store::KeyValue{"k", r0 + 6, r0 + 6, 1, "again", 0});

  // History: every older revision reads as it was.
  struct Case {
    store::Revision at;
    std::optional<store::KeyValue> expected;
  };
  auto c = GENERATE_COPY(values<Case>({
      {r0, std::nullopt},
      {r0 + 1, store::KeyValue{"k", r0 + 1, r0 + 1, 1, "v1", 0}},
      {r0 + 2, store::KeyValue{"k", r0 + 1, r0 + 1, 1, "v1", 0}},
      {r0 + 3, store::KeyValue{"k", r0 + 1, r0 + 3, 2, "v2", 0}},
      {r0 + 4, store::KeyValue{"k", r0 + 1, r0 + 4, 3, "v3", 0}},
      {r0 + 5, std::nullopt},
      {r0 + 6, store::KeyValue{"k", r0 + 6, r0 + 6, 1, "again", 0}},
  }));
  CAPTURE(c.at - r0);
  if (c.at <= 0) {
    return;  // a store starting at revision 1 has no readable revision 0
  }
  auto at = get("k", c.at);
  CHECK(at == c.expected);
}
