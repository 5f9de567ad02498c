// The kubelet's token decisions (nodes/pod_tokens): which projected token sources a pod has, the
// TokenRequest sent for one, and when a held token is due for a refresh.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "nodes/pod_tokens.h"

using cluster::HeldToken;
using cluster::TokenSource;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// A pod as the API server stores it: the injected kube-api-access volume, and one of its own.
json pod_with_volumes() {
  return json::parse(R"({
    "metadata": {"name": "web", "namespace": "shop", "uid": "u-1"},
    "spec": {"serviceAccountName": "robot", "volumes": [
      {"name": "data", "emptyDir": {}},
      {"name": "kube-api-access-x7k2p", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt"}}]}},
      {"name": "vault", "projected": {"sources": [
        {"serviceAccountToken": {"audience": "vault", "path": "vault-token"}}]}},
      {"name": "odd", "projected": {"sources": [{"serviceAccountToken": "not an object"}]}}]}})");
}

}  // namespace

TEST_CASE("a pod's token sources come from its projected volumes", "[cluster][kubelet]") {
  const auto sources = cluster::token_sources(pod_with_volumes());
  REQUIRE(sources.size() == 2);
  CHECK(sources[0].key() == "kube-api-access-x7k2p/token");
  CHECK(sources[0].audience.empty());
  CHECK(sources[0].expiration_seconds == 3607);
  CHECK(sources[1].key() == "vault/vault-token");
  CHECK(sources[1].audience == "vault");
  CHECK(sources[1].expiration_seconds == 3600);  // the API's default
  CHECK(cluster::token_sources(json::object()).empty());
  CHECK(cluster::token_sources({{"spec", {{"volumes", "wrong"}}}}).empty());
}

TEST_CASE("the kubelet's TokenRequest binds the token to the pod", "[cluster][kubelet]") {
  const json pod = pod_with_volumes();
  const auto sources = cluster::token_sources(pod);
  const json api = cluster::token_request(pod, sources[0]);
  CHECK(api == json::parse(R"({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
    "spec": {"expirationSeconds": 3607, "boundObjectRef":
      {"apiVersion": "v1", "kind": "Pod", "name": "web", "uid": "u-1"}}})"));
  CHECK(cluster::token_request(pod, sources[1])["spec"]["audiences"] == json::array({"vault"}));
  CHECK(cluster::failed_mount_message(sources[0], R"(serviceaccounts "robot" not found)") ==
        "MountVolume.SetUp failed for volume \"kube-api-access-x7k2p\" : failed to fetch token: "
        "serviceaccounts \"robot\" not found");
}

TEST_CASE("a held token is refreshed after 80% of its life or 24 hours", "[cluster][kubelet]") {
  const json answer = {
      {"spec", {{"expirationSeconds", 3607}}},
      {"status", {{"token", "t"}, {"expirationTimestamp", "2027-01-15T08:00:07Z"}}}};
  const auto held = cluster::held_token(answer);
  REQUIRE(held);
  CHECK(held->token == "t");
  // Issued 07:00:00; 721 s (20% of 3607) before it expires.
  const auto expires = held->expires;
  CHECK(held->refresh_due() == expires - 721s);

  HeldToken year{"y", expires, 365 * 24 * 3600};
  CHECK(year.refresh_due() == expires - 365 * 24h + 24h);  // a day after it was issued

  SECTION("answers without what the kubelet needs hold no token") {
    for (const char* drop :
         {"/status/token", "/status/expirationTimestamp", "/spec/expirationSeconds"}) {
      CAPTURE(drop);
      json broken = answer;
      const json::json_pointer pointer(drop);
      broken[pointer.parent_pointer()].erase(pointer.back());
      CHECK_FALSE(cluster::held_token(broken));
    }
    json negative = answer;
    negative["spec"]["expirationSeconds"] = -5;
    CHECK_FALSE(cluster::held_token(negative));
    json huge = answer;
    huge["spec"]["expirationSeconds"] = int64_t{1} << 62;
    CHECK_FALSE(cluster::held_token(huge));
  }
}
