// Events expire (storage::Storage::expire_prefix, ApiServerConfig::event_ttl): each written event
// is attached to a store lease of the TTL, other objects to none, and a burst shares one lease.
#include <catch2/catch.hpp>

#include "test_api.h"

using apiserver::testing::Api;
using nlohmann::json;

namespace {

int64_t lease_of(store::Store& db, const std::string& key) {
  store::RangeRequest read;
  read.key = key;
  auto got = db.range(read);
  REQUIRE(got.is_ok());
  REQUIRE(got->kvs.size() == 1);
  return got->kvs[0].lease;
}

json event(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}}},
          {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
          {"reason", "Test"},
          {"message", "hello"}};
}

}  // namespace

TEST_CASE("events are written with a lease of the event TTL, other objects without",
          "[storage][events]") {
  Api api;
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/events", event("e1")).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/events", event("e2")).status == 201);
  const int64_t lease = lease_of(api.db(), "/registry/events/default/e1");
  CHECK(lease != 0);
  CHECK(lease_of(api.db(), "/registry/events/default/e2") == lease);  // one lease for a burst
  auto ttl = api.db().lease_time_to_live(lease, false);
  REQUIRE(ttl.is_ok());
  CHECK(ttl->granted_ttl == 3600 + 180);  // the TTL and the 5% reuse window
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", cm).status == 201);
  CHECK(lease_of(api.db(), "/registry/configmaps/default/c") == 0);
}
