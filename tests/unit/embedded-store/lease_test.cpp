// Leases: grant, attach, revoke, keep-alive, time-to-live, listing, expiry on an injected clock,
// and leases surviving a reopen.
#include "store_test_support.h"

#include <algorithm>

using namespace std::chrono_literals;
using store_test::StoreFixture;

namespace {

std::vector<store::LeaseId> lease_ids(store::Store& store) {
  auto result = store.lease_leases();
  REQUIRE(result.is_ok());
  std::vector<store::LeaseId> ids;
  for (const auto& lease : result->leases) {
    ids.push_back(lease.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

store::LeaseTimeToLiveResponse time_to_live(store::Store& store, store::LeaseId id,
                                            bool keys = false) {
  auto result = store.lease_time_to_live(id, keys);
  INFO("lease_time_to_live: " << Catch::Detail::stringify(result.status()));
  REQUIRE(result.is_ok());
  std::sort(result->keys.begin(), result->keys.end());
  return result.value();
}

}  // namespace

TEST_CASE_METHOD(StoreFixture, "Lease grant picks an ID or takes the given one", "[store][lease]") {
  const auto before = rev();
  SECTION("an ID picked by the store") {
    auto first = store->lease_grant({30, 0});
    auto second = store->lease_grant({30, 0});
    REQUIRE(first.is_ok());
    REQUIRE(second.is_ok());
    CHECK(first->id != 0);
    CHECK(second->id != 0);
    CHECK(first->id != second->id);
    CHECK(first->ttl == 30);
    CHECK(lease_ids(*store) == std::vector<store::LeaseId>{std::min(first->id, second->id),
                                                           std::max(first->id, second->id)});
  }
  SECTION("a given ID") {
    auto granted = store->lease_grant({45, 7001});
    REQUIRE(granted.is_ok());
    CHECK(granted->id == 7001);
    CHECK(granted->ttl == 45);
    CHECK(lease_ids(*store) == std::vector<store::LeaseId>{7001});
  }
  SECTION("a given ID that is already granted") {
    REQUIRE(store->lease_grant({45, 7001}).is_ok());
    auto again = store->lease_grant({10, 7001});
    CHECK(again.status().code() == store::Code::LeaseExists);
    CHECK(again.status().message() == "etcdserver: lease already exists");
    CHECK(time_to_live(*store, 7001).granted_ttl == 45);
  }
  SECTION("a TTL above etcd's maximum") {
    auto too_long = store->lease_grant({9000000001, 0});
    CHECK(too_long.status().code() == store::Code::LeaseTTLTooLarge);
    CHECK(too_long.status().message() == "etcdserver: too large lease TTL");
    CHECK(lease_ids(*store).empty());
  }
  // Granting a lease writes no key, so the key-value revision does not move.
  CHECK(rev() == before);
}

TEST_CASE_METHOD(StoreFixture, "Lease revoke deletes the attached keys in one revision",
                 "[store][lease]") {
  auto lease = grant(60);
  auto other = grant(60);
  put("a", "1", lease);
  put("b", "1", lease);
  put("c", "1", other);
  put("d", "1");
  put("moved", "1", lease);
  put("moved", "2", other);  // re-attached: no longer on `lease`
  const auto before = rev();

  auto revoked = store->lease_revoke(lease);
  REQUIRE(revoked.is_ok());
  CHECK(revoked->header.revision == before + 1);
  CHECK(rev() == before + 1);
  CHECK(store_test::keys_of(all()) == std::vector<std::string>{"c", "d", "moved"});
  CHECK(lease_ids(*store) == std::vector<store::LeaseId>{other});
  CHECK(time_to_live(*store, lease).ttl == -1);

  auto again = store->lease_revoke(lease);
  CHECK(again.status().code() == store::Code::LeaseNotFound);
  CHECK(again.status().message() == "etcdserver: requested lease not found");
  CHECK(rev() == before + 1);

  // A put with a revoked lease is refused.
  auto late = store->put(store::PutRequest{"e", "1", lease, false, false, false});
  CHECK(late.status().code() == store::Code::LeaseNotFound);
}

TEST_CASE_METHOD(StoreFixture, "Revoking a lease without keys does not bump the revision",
                 "[store][lease]") {
  auto lease = grant(60);
  put("k", "1", lease);
  del("k");
  const auto before = rev();
  REQUIRE(store->lease_revoke(lease).is_ok());
  CHECK(rev() == before);
}

TEST_CASE_METHOD(StoreFixture, "Lease time_to_live reports remaining TTL and attached keys",
                 "[store][lease]") {
  auto lease = grant(60);
  put("x", "1", lease);
  put("y", "1", lease);
  put("z", "1");
  clock->advance(20s);

  auto with_keys = time_to_live(*store, lease, true);
  CHECK(with_keys.id == lease);
  CHECK(with_keys.ttl == 40);
  CHECK(with_keys.granted_ttl == 60);
  CHECK(with_keys.keys == std::vector<std::string>{"x", "y"});

  auto without_keys = time_to_live(*store, lease, false);
  CHECK(without_keys.ttl == 40);
  CHECK(without_keys.keys.empty());

  // etcd answers an unknown lease with TTL -1, not an error.
  auto unknown = time_to_live(*store, 999999);
  CHECK(unknown.id == 999999);
  CHECK(unknown.ttl == -1);
}

TEST_CASE_METHOD(StoreFixture, "An expired lease deletes its keys in one revision",
                 "[store][lease]") {
  auto lease = grant(10);
  auto longer = grant(100);
  put("short/1", "v", lease);
  put("short/2", "v", lease);
  put("long", "v", longer);
  const auto before = rev();

  clock->advance(9s);
  store->expire_leases_for_test();
  CHECK(all().size() == 3);
  CHECK(rev() == before);

  clock->advance(2s);
  store->expire_leases_for_test();
  CHECK(store_test::keys_of(all()) == std::vector<std::string>{"long"});
  CHECK(rev() == before + 1);
  CHECK(lease_ids(*store) == std::vector<store::LeaseId>{longer});
  CHECK(time_to_live(*store, lease).ttl == -1);
  CHECK(store->lease_keep_alive(lease).status().code() == store::Code::LeaseNotFound);

  // Expiring again finds nothing to do.
  store->expire_leases_for_test();
  CHECK(rev() == before + 1);
}

TEST_CASE_METHOD(StoreFixture, "Lease keep_alive pushes the deadline a full TTL forward",
                 "[store][lease]") {
  auto lease = grant(10);
  put("k", "v", lease);

  clock->advance(8s);
  auto kept = store->lease_keep_alive(lease);
  REQUIRE(kept.is_ok());
  CHECK(kept->id == lease);
  CHECK(kept->ttl == 10);
  CHECK(time_to_live(*store, lease).ttl == 10);

  clock->advance(8s);  // 16 s after the grant, 8 s after the keep-alive
  store->expire_leases_for_test();
  CHECK(get("k"));

  clock->advance(3s);  // 11 s after the keep-alive
  store->expire_leases_for_test();
  CHECK_FALSE(get("k"));
}

TEST_CASE_METHOD(StoreFixture, "A lease and its deadline survive a reopen", "[store][lease]") {
  auto lease = grant(60, 4242);
  put("held", "v", lease);
  put("free", "v");
  const auto before = rev();

  clock->advance(30s);
  reopen();
  store->expire_leases_for_test();
  CHECK(store_test::keys_of(all()) == std::vector<std::string>{"free", "held"});
  CHECK(lease_ids(*store) == std::vector<store::LeaseId>{4242});
  auto ttl = time_to_live(*store, lease, true);
  CHECK(ttl.ttl == 30);
  CHECK(ttl.granted_ttl == 60);
  CHECK(ttl.keys == std::vector<std::string>{"held"});

  clock->advance(31s);  // past the deadline while closed
  reopen();
  store->expire_leases_for_test();
  CHECK(store_test::keys_of(all()) == std::vector<std::string>{"free"});
  CHECK(rev() == before + 1);
  CHECK(lease_ids(*store).empty());
}

TEST_CASE_METHOD(StoreFixture, "A revoked lease stays revoked after a reopen", "[store][lease]") {
  auto lease = grant(60);
  put("k", "v", lease);
  REQUIRE(store->lease_revoke(lease).is_ok());
  reopen();
  CHECK(lease_ids(*store).empty());
  CHECK_FALSE(get("k"));
}
