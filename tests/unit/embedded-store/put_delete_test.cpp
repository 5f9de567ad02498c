// Put and DeleteRange: prev_kv, leases, ignore_value/ignore_lease, limits and deleted counts.
#include "store_test_support.h"

using store::PutRequest;
using store_test::StoreFixture;

TEST_CASE_METHOD(StoreFixture, "Put returns the previous key-value when asked", "[store][put]") {
  const store::Revision r0 = rev();
  PutRequest request = store_test::put_op("k", "v1");
  request.prev_kv = true;

  SECTION("no previous key-value on create") {
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    CHECK_FALSE(result->prev_kv.has_value());
  }
  SECTION("the previous key-value on update") {
    put("k", "v0");
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    REQUIRE(result->prev_kv.has_value());
    CHECK(*result->prev_kv == store::KeyValue{"k", r0 + 1, r0 + 1, 1, "v0", 0});
    CHECK(result->header.revision == r0 + 2);
  }
  SECTION("nothing unless asked") {
    put("k", "v0");
    request.prev_kv = false;
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    CHECK_FALSE(result->prev_kv.has_value());
  }
  SECTION("no previous key-value after the key was deleted") {
    put("k", "v0");
    del("k");
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    CHECK_FALSE(result->prev_kv.has_value());
  }
}

TEST_CASE_METHOD(StoreFixture, "Put attaches a lease and refuses an unknown one", "[store][put]") {
  SECTION("a granted lease") {
    auto lease = grant(60);
    put("k", "v", lease);
    CHECK(get("k")->lease == lease);
  }
  SECTION("an unknown lease") {
    const auto before = rev();
    auto result = store->put(PutRequest{"k", "v", 424242, false, false, false});
    CHECK(result.status().code() == store::Code::LeaseNotFound);
    CHECK(result.status().message() == "etcdserver: requested lease not found");
    CHECK(rev() == before);
    CHECK_FALSE(get("k"));
  }
  SECTION("a put without lease detaches the key from its lease") {
    auto lease = grant(60);
    put("k", "v", lease);
    put("k", "v2");
    CHECK(get("k")->lease == 0);
  }
}

TEST_CASE_METHOD(StoreFixture, "Put with ignore_value or ignore_lease keeps the current field",
                 "[store][put]") {
  const store::Revision r0 = rev();
  auto lease = grant(60);
  put("k", "old", lease);  // r0+1 (a grant does not bump the revision)
  REQUIRE(rev() == r0 + 1);

  SECTION("ignore_value keeps the value and sets the lease") {
    PutRequest request;
    request.key = "k";
    request.ignore_value = true;
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    CHECK(*get("k") == store::KeyValue{"k", r0 + 1, r0 + 2, 2, "old", 0});
  }
  SECTION("ignore_lease keeps the lease and sets the value") {
    PutRequest request = store_test::put_op("k", "new");
    request.ignore_lease = true;
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    CHECK(*get("k") == store::KeyValue{"k", r0 + 1, r0 + 2, 2, "new", lease});
  }
  SECTION("both keep both") {
    PutRequest request;
    request.key = "k";
    request.ignore_value = true;
    request.ignore_lease = true;
    request.prev_kv = true;
    auto result = store->put(request);
    REQUIRE(result.is_ok());
    CHECK(*get("k") == store::KeyValue{"k", r0 + 1, r0 + 2, 2, "old", lease});
    REQUIRE(result->prev_kv);
    CHECK(result->prev_kv->value == "old");
  }
}

TEST_CASE_METHOD(StoreFixture, "Put rejects malformed requests with etcd's errors",
                 "[store][put]") {
  put("present", "v");
  const auto before = rev();
  struct Case {
    const char* what;
    PutRequest request;
    store::Code code;
    const char* message;
  };
  auto c = GENERATE(values<Case>({
      // etcd answers ErrKeyNotFound when there is nothing to keep.
      {"ignore_value on a missing key",
       {"missing", "", 0, false, true, false},
       store::Code::KeyNotFound,
       "etcdserver: key not found"},
      {"ignore_lease on a missing key",
       {"missing", "v", 0, false, false, true},
       store::Code::KeyNotFound,
       "etcdserver: key not found"},
      {"ignore_value with a value",
       {"present", "v", 0, false, true, false},
       store::Code::InvalidArgument,
       "etcdserver: value is provided"},
      {"ignore_lease with a lease",
       {"present", "v", 7, false, false, true},
       store::Code::InvalidArgument,
       "etcdserver: lease is provided"},
      {"an empty key",
       {"", "v", 0, false, false, false},
       store::Code::EmptyKey,
       "etcdserver: key is not provided"},
  }));
  CAPTURE(c.what);
  auto result = store->put(c.request);
  CHECK(result.status().code() == c.code);
  CHECK(result.status().message() == c.message);
  CHECK(rev() == before);
  CHECK_FALSE(get("missing"));
}

TEST_CASE_METHOD(StoreFixture, "Put refuses a value above the request size limit", "[store][put]") {
  const size_t limit = store::Options{}.max_request_bytes;
  REQUIRE(limit == 1572864);
  const auto before = rev();

  auto too_large = store->put(store_test::put_op("big", std::string(limit + 1, 'x')));
  CHECK(too_large.status().code() == store::Code::RequestTooLarge);
  CHECK(too_large.status().message() == "etcdserver: request is too large");
  CHECK(rev() == before);

  auto fits = store->put(store_test::put_op("big", std::string(size_t{1} << 20, 'x')));
  CHECK(fits.is_ok());
  CHECK(get("big")->value.size() == size_t{1} << 20);
}

TEST_CASE_METHOD(StoreFixture, "DeleteRange deletes a range in one revision", "[store][delete]") {
  for (const char* key : {"a", "p/1", "p/2", "p/3", "z"}) {
    put(key, std::string("v") + key);
  }
  const store::Revision before = rev();

  SECTION("a prefix, returning the previous key-values") {
    store::DeleteRangeRequest request = store_test::delete_op("p/", store::prefix_range_end("p/"));
    request.prev_kv = true;
    auto result = store->delete_range(request);
    REQUIRE(result.is_ok());
    CHECK(result->deleted == 3);
    CHECK(result->header.revision == before + 1);
    REQUIRE(result->prev_kvs.size() == 3);
    CHECK(store_test::keys_of(result->prev_kvs) == std::vector<std::string>{"p/1", "p/2", "p/3"});
    CHECK(result->prev_kvs[1].value == "vp/2");
    CHECK(store_test::keys_of(all()) == std::vector<std::string>{"a", "z"});
    // The deleted keys are still there one revision back.
    CHECK(all(before).size() == 5);
  }
  SECTION("no previous key-values unless asked") {
    auto result = del("p/", store::prefix_range_end("p/"));
    CHECK(result.deleted == 3);
    CHECK(result.prev_kvs.empty());
  }
  SECTION("every key from a key on") {
    auto result = del("p/2", std::string(1, '\0'));
    CHECK(result.deleted == 3);
    CHECK(store_test::keys_of(all()) == std::vector<std::string>{"a", "p/1"});
  }
  SECTION("all keys") {
    auto result = del(std::string(1, '\0'), std::string(1, '\0'));
    CHECK(result.deleted == 5);
    CHECK(all().empty());
    CHECK(store->status()->key_count == 0);
  }
  SECTION("a single key") {
    auto result = del("a");
    CHECK(result.deleted == 1);
    CHECK(result.header.revision == before + 1);
  }
  SECTION("an empty key is refused") {
    auto result = store->delete_range(store_test::delete_op(""));
    CHECK(result.status().code() == store::Code::EmptyKey);
    CHECK(result.status().message() == "etcdserver: key is not provided");
    CHECK(rev() == before);
  }
}
