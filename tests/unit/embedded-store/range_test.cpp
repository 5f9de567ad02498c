// Range: key conventions, limit/more/count, revisions, keys_only/count_only, sorting, filters.
#include "store_test_support.h"

using store::RangeRequest;
using store_test::StoreFixture;

namespace {

const std::string kNul(1, '\0');

// Seven keys at one revision each: a b c/1 c/2 c/3 d e.
class RangeFixture : public StoreFixture {
 public:
  RangeFixture() {
    for (const char* key : {"a", "b", "c/1", "c/2", "c/3", "d", "e"}) {
      put(key, std::string("value of ") + key);
    }
  }
};

// Three keys whose key, version, create, mod and value orders all differ:
//   key:     k1 k2 k3
//   version: k3(1) k2(2) k1(3)
//   create:  k2 k3 k1
//   mod:     k3 k1 k2
//   value:   k1("a") k3("b") k2("c")
class SortFixture : public StoreFixture {
 public:
  SortFixture() {
    r0 = rev();
    put("k2", "c");  // r0+1
    put("k3", "b");  // r0+2
    put("k1", "a");  // r0+3
    put("k1", "a");  // r0+4
    put("k1", "a");  // r0+5
    put("k2", "c");  // r0+6
  }
  store::Revision r0 = 0;
};

}  // namespace

TEST_CASE_METHOD(RangeFixture, "Range selects keys by etcd's key and range_end conventions",
                 "[store][range]") {
  struct Case {
    const char* what;
    std::string key;
    std::string range_end;
    std::vector<std::string> expected;
  };
  auto c = GENERATE_COPY(values<Case>({
      {"a single key", "b", "", {"b"}},
      {"a missing single key", "bb", "", {}},
      {"a prefix", "c/", store::prefix_range_end("c/"), {"c/1", "c/2", "c/3"}},
      {"a half-open interval", "b", "d", {"b", "c/1", "c/2", "c/3"}},
      {"every key from a key on", "c/2", kNul, {"c/2", "c/3", "d", "e"}},
      {"all keys", kNul, kNul, {"a", "b", "c/1", "c/2", "c/3", "d", "e"}},
      {"an interval whose end is before its start", "d", "a", {}},
  }));
  CAPTURE(c.what);
  auto response = range(store_test::range_op(c.key, c.range_end));
  CHECK(store_test::keys_of(response.kvs) == c.expected);
  CHECK(response.count == static_cast<int64_t>(c.expected.size()));
  CHECK_FALSE(response.more);
  CHECK(response.header.revision == rev());
  for (const auto& kv : response.kvs) {
    CHECK(kv.value == "value of " + kv.key);
  }
}

TEST_CASE_METHOD(RangeFixture, "Range with a limit reports more and the full count",
                 "[store][range]") {
  struct Case {
    int64_t limit;
    std::vector<std::string> expected;
    bool more;
  };
  auto c = GENERATE(values<Case>({
      {0, {"a", "b", "c/1", "c/2", "c/3", "d", "e"}, false},
      {1, {"a"}, true},
      {3, {"a", "b", "c/1"}, true},
      {6, {"a", "b", "c/1", "c/2", "c/3", "d"}, true},
      {7, {"a", "b", "c/1", "c/2", "c/3", "d", "e"}, false},
      {100, {"a", "b", "c/1", "c/2", "c/3", "d", "e"}, false},
  }));
  CAPTURE(c.limit);
  auto request = store_test::range_op(kNul, kNul);
  request.limit = c.limit;
  auto response = range(request);
  CHECK(store_test::keys_of(response.kvs) == c.expected);
  CHECK(response.more == c.more);
  CHECK(response.count == 7);
}

TEST_CASE_METHOD(RangeFixture, "Range with count_only returns the count and no key-values",
                 "[store][range]") {
  auto request = store_test::range_op("c/", store::prefix_range_end("c/"));
  request.count_only = true;
  auto response = range(request);
  CHECK(response.kvs.empty());
  CHECK(response.count == 3);
  CHECK_FALSE(response.more);
}

TEST_CASE_METHOD(RangeFixture, "Range with keys_only returns key-values without values",
                 "[store][range]") {
  auto full = range(store_test::range_op("c/", store::prefix_range_end("c/")));
  auto request = store_test::range_op("c/", store::prefix_range_end("c/"));
  request.keys_only = true;
  auto response = range(request);
  REQUIRE(response.kvs.size() == full.kvs.size());
  for (size_t i = 0; i < full.kvs.size(); ++i) {
    auto expected = full.kvs[i];
    expected.value.clear();
    CHECK(response.kvs[i] == expected);
  }
  CHECK(response.count == 3);
}

TEST_CASE_METHOD(StoreFixture, "Range at a past revision reads the store as it was then",
                 "[store][range]") {
  const store::Revision r0 = rev();
  put("a", "1");  // r0+1
  put("b", "1");  // r0+2
  put("a", "2");  // r0+3
  del("b");       // r0+4
  put("c", "1");  // r0+5

  struct Case {
    store::Revision at;
    std::vector<std::pair<std::string, std::string>> expected;
  };
  auto c = GENERATE_COPY(values<Case>({
      {r0 + 1, {{"a", "1"}}},
      {r0 + 2, {{"a", "1"}, {"b", "1"}}},
      {r0 + 3, {{"a", "2"}, {"b", "1"}}},
      {r0 + 4, {{"a", "2"}}},
      {r0 + 5, {{"a", "2"}, {"c", "1"}}},
      {0, {{"a", "2"}, {"c", "1"}}},
  }));
  CAPTURE(c.at - r0);
  auto request = store_test::range_op(kNul, kNul);
  request.revision = c.at;
  auto response = range(request);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& kv : response.kvs) {
    got.emplace_back(kv.key, kv.value);
  }
  CHECK(got == c.expected);
  CHECK(response.count == static_cast<int64_t>(c.expected.size()));
  // The header carries the store's current revision, not the one asked for (as etcd).
  CHECK(response.header.revision == r0 + 5);
}

TEST_CASE_METHOD(StoreFixture, "Range at a compacted or future revision fails with etcd's errors",
                 "[store][range]") {
  const store::Revision r0 = rev();
  for (int i = 0; i < 5; ++i) {
    put("k", std::to_string(i));
  }
  REQUIRE(store->compact({r0 + 3, true}).is_ok());

  struct Case {
    store::Revision at;
    store::Code code;
    const char* message;
  };
  auto c = GENERATE_COPY(values<Case>({
      {r0 + 2, store::Code::Compacted, "etcdserver: mvcc: required revision has been compacted"},
      {r0 + 1, store::Code::Compacted, "etcdserver: mvcc: required revision has been compacted"},
      {r0 + 3, store::Code::Ok, ""},
      {r0 + 5, store::Code::Ok, ""},
      {r0 + 6, store::Code::FutureRevision,
       "etcdserver: mvcc: required revision is a future revision"},
      {r0 + 100, store::Code::FutureRevision,
       "etcdserver: mvcc: required revision is a future revision"},
  }));
  CAPTURE(c.at - r0);
  auto request = store_test::range_op("k");
  request.revision = c.at;
  auto result = store->range(request);
  CHECK(result.status().code() == c.code);
  CHECK(result.status().message() == c.message);
}

TEST_CASE_METHOD(SortFixture, "Range sorts by every target in both orders", "[store][range]") {
  using Order = RangeRequest::SortOrder;
  using Target = RangeRequest::SortTarget;
  struct Case {
    const char* what;
    Order order;
    Target target;
    std::vector<std::string> expected;
  };
  auto c = GENERATE(values<Case>({
      {"no order", Order::None, Target::Key, {"k1", "k2", "k3"}},
      {"key ascending", Order::Ascend, Target::Key, {"k1", "k2", "k3"}},
      {"key descending", Order::Descend, Target::Key, {"k3", "k2", "k1"}},
      {"version ascending", Order::Ascend, Target::Version, {"k3", "k2", "k1"}},
      {"version descending", Order::Descend, Target::Version, {"k1", "k2", "k3"}},
      {"create ascending", Order::Ascend, Target::Create, {"k2", "k3", "k1"}},
      {"create descending", Order::Descend, Target::Create, {"k1", "k3", "k2"}},
      {"mod ascending", Order::Ascend, Target::Mod, {"k3", "k1", "k2"}},
      {"mod descending", Order::Descend, Target::Mod, {"k2", "k1", "k3"}},
      {"value ascending", Order::Ascend, Target::Value, {"k1", "k3", "k2"}},
      {"value descending", Order::Descend, Target::Value, {"k2", "k3", "k1"}},
      // etcd sorts ascending when a target other than the key is given without an order.
      {"version with no order", Order::None, Target::Version, {"k3", "k2", "k1"}},
      {"mod with no order", Order::None, Target::Mod, {"k3", "k1", "k2"}},
  }));
  CAPTURE(c.what);
  auto request = store_test::range_op("k", store::prefix_range_end("k"));
  request.sort_order = c.order;
  request.sort_target = c.target;
  auto response = range(request);
  CHECK(store_test::keys_of(response.kvs) == c.expected);
  CHECK(response.count == 3);
}

TEST_CASE_METHOD(SortFixture, "Range applies the limit after sorting", "[store][range]") {
  auto request = store_test::range_op("k", store::prefix_range_end("k"));
  request.limit = 2;
  request.sort_order = RangeRequest::SortOrder::Descend;

  SECTION("by key") {
    request.sort_target = RangeRequest::SortTarget::Key;
    auto response = range(request);
    CHECK(store_test::keys_of(response.kvs) == std::vector<std::string>{"k3", "k2"});
    CHECK(response.more);
    CHECK(response.count == 3);
  }
  SECTION("by mod revision") {
    request.sort_target = RangeRequest::SortTarget::Mod;
    auto response = range(request);
    CHECK(store_test::keys_of(response.kvs) == std::vector<std::string>{"k2", "k1"});
    CHECK(response.more);
    CHECK(response.count == 3);
  }
}

TEST_CASE_METHOD(SortFixture, "Range filters by min and max mod and create revision",
                 "[store][range]") {
  // k1: create r0+3 mod r0+5; k2: create r0+1 mod r0+6; k3: create r0+2 mod r0+2.
  struct Case {
    const char* what;
    store::Revision min_mod, max_mod, min_create, max_create;
    std::vector<std::string> expected;
  };
  const store::Revision r = r0;
  auto c = GENERATE_COPY(values<Case>({
      {"min mod", r + 5, 0, 0, 0, {"k1", "k2"}},
      {"max mod", 0, r + 5, 0, 0, {"k1", "k3"}},
      {"min and max mod", r + 3, r + 5, 0, 0, {"k1"}},
      {"min create", 0, 0, r + 2, 0, {"k1", "k3"}},
      {"max create", 0, 0, 0, r + 2, {"k2", "k3"}},
      {"min and max create", 0, 0, r + 2, r + 2, {"k3"}},
      {"mod and create", r + 5, 0, 0, r + 1, {"k2"}},
      {"nothing matches", r + 7, 0, 0, 0, {}},
  }));
  CAPTURE(c.what);
  auto request = store_test::range_op("k", store::prefix_range_end("k"));
  request.min_mod_revision = c.min_mod;
  request.max_mod_revision = c.max_mod;
  request.min_create_revision = c.min_create;
  request.max_create_revision = c.max_create;
  auto response = range(request);
  CHECK(store_test::keys_of(response.kvs) == c.expected);
}

TEST_CASE_METHOD(SortFixture, "Range reports more when filtered key-values exceed the limit",
                 "[store][range]") {
  auto request = store_test::range_op("k", store::prefix_range_end("k"));
  request.min_mod_revision = r0 + 5;
  request.limit = 1;
  auto response = range(request);
  CHECK(store_test::keys_of(response.kvs) == std::vector<std::string>{"k1"});
  CHECK(response.more);
}

TEST_CASE_METHOD(StoreFixture, "Range of an empty key fails with EmptyKey", "[store][range]") {
  auto result = store->range(store_test::range_op(""));
  CHECK(result.status().code() == store::Code::EmptyKey);
  CHECK(result.status().message() == "etcdserver: key is not provided");
}
