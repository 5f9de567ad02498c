// The generic store's writes as a client sees them (registry/generic/): the rules a kind's
// strategy and write hooks add to create, update and delete.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "test_api.h"

using apiserver::testing::Api;
using apiserver::testing::check_status;
using apiserver::testing::configmap;
using apiserver::testing::deployment;
using apiserver::testing::kConfigMaps;
using nlohmann::json;

namespace {

constexpr const char* kServices = "/api/v1/namespaces/default/services";

json service(const std::string& name, const std::string& cluster_ip) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}}},
          {"spec", {{"clusterIP", cluster_ip}, {"ports", {{{"port", 80}}}}}}};
}

json named_namespace(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

}  // namespace

TEST_CASE("a service's cluster IP is taken on create and freed on delete", "[generic-store]") {
  Api api;
  REQUIRE(api.call("POST", kServices, service("first", "10.96.0.50")).status == 201);
  auto taken = api.call("POST", kServices, service("second", "10.96.0.50"));
  CHECK(taken.status == 422);
  CHECK(taken.body["message"] ==
        "Service \"second\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.50\"}: "
        "failed to allocate IP 10.96.0.50: provided IP is already allocated");

  // A dry run allocates nothing that stays.
  auto dry = api.call("POST", std::string(kServices) + "?dryRun=All", service("dry", "10.96.0.60"));
  CHECK(dry.status == 201);
  CHECK(dry.body["spec"]["clusterIP"] == "10.96.0.60");
  CHECK(api.call("POST", kServices, service("after-dry", "10.96.0.60")).status == 201);

  REQUIRE(api.call("DELETE", std::string(kServices) + "/first").status == 200);
  CHECK(api.call("POST", kServices, service("second", "10.96.0.50")).status == 201);
}

TEST_CASE("a create starts from the status the kind's defaults give, not the one sent",
          "[generic-store]") {
  Api api;
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "seeded"}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}},
              {"status", {{"phase", "Running"}}}};
  auto created = api.call("POST", "/api/v1/namespaces/default/pods", pod);
  REQUIRE(created.status == 201);
  CHECK(created.body["status"] == json({{"phase", "Pending"}, {"qosClass", "BestEffort"}}));

  json seeded = deployment("web", 1);
  seeded["status"] = {{"replicas", 5}};
  auto workload = api.call("POST", "/apis/apps/v1/namespaces/default/deployments", seeded);
  REQUIRE(workload.status == 201);
  CHECK_FALSE(workload.body["status"].contains("replicas"));
}

TEST_CASE("a namespace keeps its spec on update and holds creates while it terminates",
          "[generic-store]") {
  Api api;
  REQUIRE(api.call("POST", "/api/v1/namespaces", named_namespace("held")).status == 201);
  auto stored = api.call("GET", "/api/v1/namespaces/held");
  REQUIRE(stored.body["spec"]["finalizers"] == json::array({"kubernetes"}));

  json cleared = stored.body;
  cleared["spec"]["finalizers"] = json::array();
  auto updated = api.call("PUT", "/api/v1/namespaces/held", cleared);
  REQUIRE(updated.status == 200);
  CHECK(updated.body["spec"]["finalizers"] == json::array({"kubernetes"}));

  // An object whose finalizer nobody removes keeps the namespace Terminating.
  json pinned = configmap("pinned");
  pinned["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(api.call("POST", "/api/v1/namespaces/held/configmaps", pinned).status == 201);
  auto deleted = api.call("DELETE", "/api/v1/namespaces/held");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.body["status"]["phase"] == "Terminating");
  CHECK(deleted.body["metadata"].contains("deletionTimestamp"));

  auto refused = api.call("POST", "/api/v1/namespaces/held/configmaps", configmap("late"));
  check_status(refused, 403, "Forbidden",
               "configmaps \"late\" is forbidden: unable to create new content in namespace held "
               "because it is being terminated");
  REQUIRE(refused.body["details"]["causes"].size() == 1);
  CHECK(refused.body["details"]["causes"][0] ==
        json({{"reason", "NamespaceTerminating"},
              {"message", "namespace held is being terminated"},
              {"field", "metadata.namespace"}}));
  CHECK(api.call("POST", kConfigMaps, configmap("elsewhere")).status == 201);
}

TEST_CASE("empty metadata lists and maps are not kept, as Go's omitempty", "[generic-store]") {
  Api api;
  json empty = configmap("empty");
  empty["metadata"]["labels"] = json::object();
  empty["metadata"]["annotations"] = nullptr;
  empty["metadata"]["finalizers"] = json::array();
  empty["metadata"]["ownerReferences"] = json::array();
  auto created = api.call("POST", kConfigMaps, empty);
  REQUIRE(created.status == 201);
  for (const char* field : {"labels", "annotations", "finalizers", "ownerReferences"}) {
    CAPTURE(field);
    CHECK_FALSE(created.body["metadata"].contains(field));
  }
  // Sending them empty again changes nothing: no new revision.
  json again = created.body;
  again["metadata"]["labels"] = json::object();
  again["metadata"]["finalizers"] = json::array();
  auto updated = api.call("PUT", std::string(kConfigMaps) + "/empty", again);
  REQUIRE(updated.status == 200);
  CHECK(updated.body["metadata"]["resourceVersion"] == created.body["metadata"]["resourceVersion"]);
  CHECK_FALSE(updated.body["metadata"].contains("labels"));
}
