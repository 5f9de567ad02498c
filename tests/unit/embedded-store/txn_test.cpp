// Txn: compares on every target with every operator, branches with every op kind, nesting,
// atomicity, etcd's request checks (duplicate keys, too many ops) and read-your-writes.
#include "store_test_support.h"

using store::Compare;
using store::RequestOp;
using store::TxnRequest;
using store_test::StoreFixture;

namespace {

Compare compare_value(const std::string& key, Compare::Result result, const std::string& value) {
  Compare c;
  c.key = key;
  c.target = Compare::Target::Value;
  c.result = result;
  c.value = value;
  return c;
}

Compare compare_number(const std::string& key, Compare::Target target, Compare::Result result,
                       int64_t operand, const std::string& range_end = {}) {
  Compare c;
  c.key = key;
  c.range_end = range_end;
  c.target = target;
  c.result = result;
  switch (target) {
    case Compare::Target::Version:
      c.version = operand;
      break;
    case Compare::Target::Create:
      c.create_revision = operand;
      break;
    case Compare::Target::Mod:
      c.mod_revision = operand;
      break;
    case Compare::Target::Lease:
      c.lease = operand;
      break;
    case Compare::Target::Value:
      FAIL("value compares are built with compare_value");
  }
  return c;
}

const char* target_name(Compare::Target target) {
  switch (target) {
    case Compare::Target::Version:
      return "version";
    case Compare::Target::Create:
      return "create";
    case Compare::Target::Mod:
      return "mod";
    case Compare::Target::Value:
      return "value";
    case Compare::Target::Lease:
      return "lease";
  }
  return "?";
}

// One key "k" with create_revision r0+1, mod_revision r0+3, version 2, value "v3" and a lease.
class CompareFixture : public StoreFixture {
 public:
  CompareFixture() {
    r0 = rev();
    lease = grant(600);
    put("k", "v1", lease);
    put("other", "x");
    put("k", "v3", lease);
    kv = *get("k");
    REQUIRE(kv == store::KeyValue{"k", r0 + 1, r0 + 3, 2, "v3", lease});
  }

  int64_t actual(Compare::Target target) const {
    switch (target) {
      case Compare::Target::Version:
        return kv.version;
      case Compare::Target::Create:
        return kv.create_revision;
      case Compare::Target::Mod:
        return kv.mod_revision;
      case Compare::Target::Lease:
        return kv.lease;
      case Compare::Target::Value:
        break;
    }
    return 0;
  }

  // Runs a txn with `compares` that puts "then"/"else" into "branch" and reads "k".
  store::TxnResponse run(std::vector<Compare> compares) {
    TxnRequest request;
    request.compare = std::move(compares);
    request.success.push_back(RequestOp::of(store_test::put_op("branch", "then")));
    request.failure.push_back(RequestOp::of(store_test::put_op("branch", "else")));
    auto response = txn(request);
    CHECK(get("branch")->value == (response.succeeded ? "then" : "else"));
    return response;
  }

  store::Revision r0 = 0;
  store::LeaseId lease = 0;
  store::KeyValue kv;
};

}  // namespace

TEST_CASE_METHOD(CompareFixture, "Txn compares numbers with every operator",
                 "[store][txn][compare]") {
  using R = Compare::Result;
  auto target = GENERATE(Compare::Target::Version, Compare::Target::Create, Compare::Target::Mod,
                         Compare::Target::Lease);
  struct Case {
    R result;
    int64_t delta;  // operand = the key's actual value + delta
    bool holds;
  };
  auto c = GENERATE(values<Case>({
      {R::Equal, 0, true},
      {R::Equal, 1, false},
      {R::Equal, -1, false},
      {R::NotEqual, 0, false},
      {R::NotEqual, 1, true},
      {R::Less, 1, true},  // actual < operand
      {R::Less, 0, false},
      {R::Less, -1, false},
      {R::Greater, -1, true},  // actual > operand
      {R::Greater, 0, false},
      {R::Greater, 1, false},
  }));
  CAPTURE(target_name(target), static_cast<int>(c.result), c.delta);
  auto response = run({compare_number("k", target, c.result, actual(target) + c.delta)});
  CHECK(response.succeeded == c.holds);
}

TEST_CASE_METHOD(CompareFixture, "Txn compares values with every operator",
                 "[store][txn][compare]") {
  using R = Compare::Result;
  struct Case {
    R result;
    std::string operand;
    bool holds;
  };
  auto c = GENERATE(values<Case>({
      {R::Equal, "v3", true},
      {R::Equal, "v2", false},
      {R::Equal, "", false},
      {R::NotEqual, "v3", false},
      {R::NotEqual, "v4", true},
      {R::Less, "v4", true},
      {R::Less, "v3", false},
      {R::Less, "v2", false},
      {R::Greater, "v2", true},
      {R::Greater, "v", true},
      {R::Greater, "v3", false},
      {R::Greater, "v30", false},
  }));
  CAPTURE(static_cast<int>(c.result), c.operand);
  auto response = run({compare_value("k", c.result, c.operand)});
  CHECK(response.succeeded == c.holds);
}

TEST_CASE_METHOD(CompareFixture, "Txn compares on a missing key as etcd does",
                 "[store][txn][compare]") {
  using R = Compare::Result;
  using T = Compare::Target;
  SECTION("version, create and mod of a missing key are 0") {
    auto target = GENERATE(T::Version, T::Create, T::Mod, T::Lease);
    CAPTURE(target_name(target));
    CHECK(run({compare_number("missing", target, R::Equal, 0)}).succeeded);
    CHECK_FALSE(run({compare_number("missing", target, R::Greater, 0)}).succeeded);
  }
  SECTION("a value compare on a missing key never holds") {
    auto result = GENERATE(R::Equal, R::NotEqual, R::Less, R::Greater);
    CAPTURE(static_cast<int>(result));
    CHECK_FALSE(run({compare_value("missing", result, "")}).succeeded);
    CHECK_FALSE(run({compare_value("missing", result, "x")}).succeeded);
  }
}

TEST_CASE_METHOD(CompareFixture, "Txn requires every compare to hold", "[store][txn][compare]") {
  using R = Compare::Result;
  auto holds = compare_value("k", R::Equal, "v3");
  auto fails = compare_value("k", R::Equal, "nope");
  CHECK(run({holds, holds}).succeeded);
  CHECK_FALSE(run({holds, fails}).succeeded);
  CHECK_FALSE(run({fails, holds}).succeeded);
  CHECK(run({}).succeeded);
}

TEST_CASE_METHOD(StoreFixture, "Txn compares over a range hold when they hold for every key",
                 "[store][txn][compare]") {
  using R = Compare::Result;
  using T = Compare::Target;
  put("r/a", "1");
  put("r/b", "1");
  put("r/b", "2");
  put("s", "9");
  const auto end = store::prefix_range_end("r/");
  auto in_range = [&](T target, R result, int64_t operand) {
    return compare_number("r/", target, result, operand, end);
  };
  struct Case {
    const char* what;
    Compare compare;
    bool holds;
  };
  Compare value_less = compare_value("r/", R::Less, "3");
  value_less.range_end = end;
  Compare value_equal = compare_value("r/", R::Equal, "1");
  value_equal.range_end = end;
  auto c = GENERATE_COPY(values<Case>({
      {"every version > 0", in_range(T::Version, R::Greater, 0), true},
      {"every version = 2 (r/a has 1)", in_range(T::Version, R::Equal, 2), false},
      {"every version < 3", in_range(T::Version, R::Less, 3), true},
      {"every lease = 0", in_range(T::Lease, R::Equal, 0), true},
      {"every value < 3", value_less, true},
      {"every value = 1 (r/b has 2)", value_equal, false},
      {"an empty range compares as a missing key",
       compare_number("t/", T::Version, R::Equal, 0, store::prefix_range_end("t/")), true},
  }));
  CAPTURE(c.what);
  TxnRequest request;
  request.compare.push_back(c.compare);
  CHECK(txn(request).succeeded == c.holds);
}

TEST_CASE_METHOD(StoreFixture, "Txn runs the branch the compares choose with every op kind",
                 "[store][txn]") {
  put("a", "1");
  put("b", "1");
  put("c", "1");
  const auto before = rev();

  TxnRequest inner;
  inner.compare.push_back(compare_value("a", Compare::Result::Equal, "1"));
  inner.success.push_back(RequestOp::of(store_test::put_op("nested", "yes")));
  inner.failure.push_back(RequestOp::of(store_test::put_op("nested", "no")));

  TxnRequest request;
  store::DeleteRangeRequest delete_b = store_test::delete_op("b");
  delete_b.prev_kv = true;
  store::PutRequest put_a = store_test::put_op("a", "2");
  put_a.prev_kv = true;
  std::vector<RequestOp> ops = {RequestOp::of(store_test::range_op("c")), RequestOp::of(put_a),
                                RequestOp::of(delete_b), RequestOp::of(inner)};

  const bool take_success = GENERATE(true, false);
  CAPTURE(take_success);
  request.compare.push_back(compare_value("c", Compare::Result::Equal, take_success ? "1" : "0"));
  (take_success ? request.success : request.failure) = ops;
  (take_success ? request.failure : request.success)
      .push_back(RequestOp::of(store_test::put_op("wrong-branch", "x")));

  auto response = txn(request);
  CHECK(response.succeeded == take_success);
  CHECK(response.header.revision == before + 1);
  CHECK(rev() == before + 1);
  CHECK_FALSE(get("wrong-branch"));

  REQUIRE(response.responses.size() == 4);
  const auto& range = response.responses[0];
  REQUIRE(range.kind == RequestOp::Kind::Range);
  REQUIRE(range.range.kvs.size() == 1);
  CHECK(range.range.kvs[0].value == "1");

  const auto& put_response = response.responses[1];
  REQUIRE(put_response.kind == RequestOp::Kind::Put);
  REQUIRE(put_response.put.prev_kv);
  CHECK(put_response.put.prev_kv->value == "1");

  const auto& delete_response = response.responses[2];
  REQUIRE(delete_response.kind == RequestOp::Kind::DeleteRange);
  CHECK(delete_response.delete_range.deleted == 1);
  REQUIRE(delete_response.delete_range.prev_kvs.size() == 1);
  CHECK(delete_response.delete_range.prev_kvs[0].key == "b");

  const auto& nested = response.responses[3];
  REQUIRE(nested.kind == RequestOp::Kind::Txn);
  REQUIRE(nested.txn);
  // etcd evaluates every compare, nested ones too, against the store as it was before the
  // txn, so the outer put of a=2 does not change the nested outcome.
  CHECK(nested.txn->succeeded);
  CHECK(get("nested")->value == "yes");

  // Every write of the txn carries the one new revision.
  CHECK(get("a")->mod_revision == before + 1);
  CHECK(get("nested")->mod_revision == before + 1);
  CHECK_FALSE(get("b"));
  CHECK(all(before).size() == 3);
}

TEST_CASE_METHOD(StoreFixture, "Reads inside a txn see the txn's earlier writes", "[store][txn]") {
  put("k", "old");
  put("gone", "x");
  const auto before = rev();
  TxnRequest request;
  request.success = {
      RequestOp::of(store_test::range_op("k")),
      RequestOp::of(store_test::put_op("k", "new")),
      RequestOp::of(store_test::range_op("k")),
      RequestOp::of(store_test::delete_op("gone")),
      RequestOp::of(store_test::range_op("gone")),
      RequestOp::of(store_test::put_op("fresh", "f")),
      RequestOp::of(store_test::range_op(std::string(1, '\0'), std::string(1, '\0'))),
  };
  auto response = txn(request);
  REQUIRE(response.responses.size() == 7);
  REQUIRE(response.responses[0].range.kvs.size() == 1);
  CHECK(response.responses[0].range.kvs[0].value == "old");
  REQUIRE(response.responses[2].range.kvs.size() == 1);
  CHECK(response.responses[2].range.kvs[0] ==
        store::KeyValue{"k", before - 1, before + 1, 2, "new", 0});
  CHECK(response.responses[4].range.kvs.empty());
  CHECK(store_test::keys_of(response.responses[6].range.kvs) ==
        std::vector<std::string>{"fresh", "k"});
  CHECK(response.responses[6].range.count == 2);
}

TEST_CASE_METHOD(StoreFixture, "Txn refuses to write a key twice", "[store][txn]") {
  put("k", "v");
  const auto before = rev();
  struct Case {
    const char* what;
    TxnRequest request;
    bool refused;
  };
  TxnRequest nested_put;
  nested_put.success.push_back(RequestOp::of(store_test::put_op("k", "inner")));
  TxnRequest nested_both;
  nested_both.success.push_back(RequestOp::of(store_test::put_op("k", "then")));
  nested_both.failure.push_back(RequestOp::of(store_test::put_op("k", "else")));

  auto c = GENERATE_COPY(values<Case>({
      {"two puts of one key",
       {{},
        {RequestOp::of(store_test::put_op("k", "1")), RequestOp::of(store_test::put_op("k", "2"))},
        {}},
       true},
      {"a put and a delete of the same key",
       {{},
        {RequestOp::of(store_test::put_op("k", "1")), RequestOp::of(store_test::delete_op("k"))},
        {}},
       true},
      {"a put inside a deleted range",
       {{},
        {RequestOp::of(store_test::delete_op("a", "z")),
         RequestOp::of(store_test::put_op("k", "1"))},
        {}},
       true},
      {"two puts of one key in the failure branch",
       {{compare_value("k", Compare::Result::Equal, "v")},
        {},
        {RequestOp::of(store_test::put_op("k", "1")), RequestOp::of(store_test::put_op("k", "2"))}},
       true},
      {"a put in the outer and in a nested txn",
       {{}, {RequestOp::of(store_test::put_op("k", "1")), RequestOp::of(nested_put)}, {}},
       true},
      {"one put in each branch",
       {{},
        {RequestOp::of(store_test::put_op("k", "1"))},
        {RequestOp::of(store_test::put_op("k", "2"))}},
       false},
      {"one put in each branch of a nested txn", {{}, {RequestOp::of(nested_both)}, {}}, false},
      {"two deletes of one key",
       {{},
        {RequestOp::of(store_test::delete_op("k")), RequestOp::of(store_test::delete_op("k"))},
        {}},
       false},
  }));
  CAPTURE(c.what);
  auto result = store->txn(c.request);
  if (c.refused) {
    CHECK(result.status().code() == store::Code::DuplicateKey);
    CHECK(result.status().message() == "etcdserver: duplicate key given in txn request");
    CHECK(rev() == before);
    CHECK(get("k")->value == "v");
  } else {
    CHECK(result.is_ok());
    CHECK(rev() == before + 1);
  }
}

TEST_CASE_METHOD(StoreFixture, "Txn refuses more than 128 ops in a branch or compares",
                 "[store][txn]") {
  const auto before = rev();
  auto make_puts = [](size_t n) {
    std::vector<RequestOp> ops;
    for (size_t i = 0; i < n; ++i) {
      ops.push_back(RequestOp::of(store_test::put_op("key/" + std::to_string(i), "v")));
    }
    return ops;
  };
  auto make_compares = [](size_t n) {
    std::vector<Compare> compares;
    for (size_t i = 0; i < n; ++i) {
      compares.push_back(compare_number("c/" + std::to_string(i), Compare::Target::Version,
                                        Compare::Result::Equal, 0));
    }
    return compares;
  };
  const char* where = GENERATE("success", "failure", "compare");
  const size_t n = GENERATE(size_t{128}, size_t{129});
  CAPTURE(where, n);
  TxnRequest request;
  if (std::string(where) == "success") {
    request.success = make_puts(n);
  } else if (std::string(where) == "failure") {
    request.compare = make_compares(1);
    request.compare[0].result = Compare::Result::NotEqual;
    request.failure = make_puts(n);
  } else {
    request.compare = make_compares(n);
    request.success = make_puts(1);
  }
  auto result = store->txn(request);
  if (n > 128) {
    CHECK(result.status().code() == store::Code::TooManyOps);
    CHECK(result.status().message() == "etcdserver: too many operations in txn request");
    CHECK(rev() == before);
    CHECK(all().empty());
  } else {
    REQUIRE(result.is_ok());
    CHECK(result->succeeded == (std::string(where) != "failure"));
    CHECK(rev() == before + 1);
    CHECK(all().size() == (std::string(where) == "compare" ? 1 : 128));
  }
}

TEST_CASE_METHOD(StoreFixture, "A refused op inside a txn leaves the store unchanged",
                 "[store][txn]") {
  put("k", "v");
  const auto before = rev();
  TxnRequest request;
  request.success = {RequestOp::of(store_test::put_op("a", "1")),
                     RequestOp::of(store::PutRequest{"b", "1", 999999, false, false, false})};
  auto result = store->txn(request);
  CHECK(result.status().code() == store::Code::LeaseNotFound);
  CHECK(rev() == before);
  CHECK_FALSE(get("a"));
  CHECK_FALSE(get("b"));
}
