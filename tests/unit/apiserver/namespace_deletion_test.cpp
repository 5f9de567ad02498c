// Namespace deletion as kube-controller-manager's namespace controller does it: the content goes
// through the API (pods gracefully, objects with finalizers only marked), what remains shows in
// the namespace's conditions with upstream's words, the controller looks again after upstream's
// estimate, and "kubernetes" leaves spec.finalizers through the finalize subresource.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "controllers/namespace_controller.h"
#include "storage/storage.h"
#include "test_api.h"

using apiserver::testing::Api;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

json namespace_named(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

json config_map(const std::string& name, const json& finalizers = json::array()) {
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
  if (!finalizers.empty()) {
    cm["metadata"]["finalizers"] = finalizers;
  }
  return cm;
}

// A pod a kubelet would have to finish: bound to a node, with the default grace period.
json bound_pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"nodeName", "node-1"},
            {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
}

// Namespace `name` with config map "cm" that finalizer example.com/hold keeps.
void create_held(Api& api, const std::string& name) {
  REQUIRE(api.call("POST", "/api/v1/namespaces", namespace_named(name)).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/" + name + "/configmaps",
                   config_map("cm", {"example.com/hold"}))
              .status == 201);
}

const json* condition(const json& ns, const std::string& type) {
  for (const auto& c : ns["status"]["conditions"]) {
    if (c.value("type", "") == type) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("deleting a namespace deletes its content through the API, then the namespace",
          "[controllers][namespaces]") {
  Api api;
  REQUIRE(api.call("POST", "/api/v1/namespaces", namespace_named("team")).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/team/configmaps", config_map("cm")).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/team/pods", apiserver::testing::pod("p")).status ==
          201);
  auto deleted = api.call("DELETE", "/api/v1/namespaces/team");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.body["status"]["phase"] == "Terminating");
  api.settle();
  CHECK(api.call("GET", "/api/v1/namespaces/team").status == 404);
  CHECK(api.call("GET", "/api/v1/namespaces/team/configmaps/cm").status == 404);
  // The controller acted as its own user, through the request pipeline.
  auto trace = api.call(
      "GET", "/debug/requests?user=system:serviceaccount:kube-system:namespace-controller");
  REQUIRE(trace.status == 200);
  CHECK(trace.body.dump().find("/api/v1/namespaces/team/configmaps") != std::string::npos);
}

TEST_CASE("content that finalizers hold keeps a namespace Terminating, in upstream's words",
          "[controllers][namespaces]") {
  Api api;
  create_held(api, "held");
  REQUIRE(api.call("POST", "/api/v1/namespaces/held/pods", bound_pod("p")).status == 201);
  REQUIRE(api.call("DELETE", "/api/v1/namespaces/held").status == 200);
  api.settle();
  auto ns = api.call("GET", "/api/v1/namespaces/held");
  REQUIRE(ns.status == 200);
  CHECK(ns.body["spec"]["finalizers"] == json::array({"kubernetes"}));
  const json* remaining = condition(ns.body, "NamespaceContentRemaining");
  REQUIRE(remaining != nullptr);
  CHECK((*remaining)["status"] == "True");
  CHECK((*remaining)["reason"] == "SomeResourcesRemain");
  CHECK((*remaining)["message"] ==
        "Some resources are remaining: configmaps. has 1 resource instances, pods. has 1 "
        "resource instances");
  const json* finalizers = condition(ns.body, "NamespaceFinalizersRemaining");
  REQUIRE(finalizers != nullptr);
  CHECK((*finalizers)["message"] ==
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource "
        "instances");
  const json* content = condition(ns.body, "NamespaceDeletionContentFailure");
  REQUIRE(content != nullptr);
  CHECK((*content)["status"] == "False");
  CHECK((*content)["reason"] == "ContentDeleted");
  CHECK((*content)["message"] ==
        "All content successfully deleted, may be waiting on finalization");
  // Marked, not gone: the pod waits for its kubelet, the config map for its finalizer.
  auto pod = api.call("GET", "/api/v1/namespaces/held/pods/p");
  REQUIRE(pod.status == 200);
  CHECK(pod.body["metadata"]["deletionGracePeriodSeconds"] == 30);
  CHECK(api.call("GET", "/api/v1/namespaces/held/configmaps/cm")
            .body["metadata"]
            .contains("deletionTimestamp"));

  SECTION("a bad name through finalize is refused, as upstream validates it") {
    json body = ns.body;
    body["spec"]["finalizers"] = {"kubernetes", "not-qualified"};
    auto refused = api.call("PUT", "/api/v1/namespaces/held/finalize", body);
    CHECK(refused.status == 422);
    CHECK(refused.body.value("message", "") ==
          "Namespace \"held\" is invalid: spec.finalizers[1]: Invalid value: \"not-qualified\": "
          "name is neither a standard finalizer name nor is it fully qualified");
  }
  SECTION("emptying spec.finalizers by hand deletes the namespace, leaving its content") {
    json body = ns.body;
    body["spec"]["finalizers"] = json::array();
    auto finalized = api.call("PUT", "/api/v1/namespaces/held/finalize", body);
    CHECK(finalized.status == 200);
    CHECK(api.call("GET", "/api/v1/namespaces/held").status == 404);
    CHECK(api.call("GET", "/api/v1/namespaces/held/configmaps/cm").status == 200);
  }
}

TEST_CASE("the namespace controller looks again after upstream's estimate",
          "[controllers][namespaces]") {
  Api api;
  create_held(api, "slow");
  common::FakeClock clock(std::chrono::system_clock::now());
  apiserver::storage::Storage storage(api.db());
  auto registry = apiserver::registry::Registry::builtin();
  apiserver::controllers::NamespaceController controller(
      registry, storage, [&](apiserver::http::Request& r) { return api.raw(r); }, clock);

  SECTION("finalizers alone: 15 s, looked at after 8") {
    REQUIRE(api.call("DELETE", "/api/v1/namespaces/slow").status == 200);
    controller.enqueue("slow");
    REQUIRE(controller.queue().wait_idle(clock.now(), 10s));
    CHECK(controller.queue().idle(clock.now() + 7s));
    CHECK_FALSE(controller.queue().idle(clock.now() + 8s));
  }
  SECTION("pods still terminating: their 30 s grace, looked at after 16") {
    REQUIRE(api.call("POST", "/api/v1/namespaces/slow/pods", bound_pod("p")).status == 201);
    REQUIRE(api.call("DELETE", "/api/v1/namespaces/slow").status == 200);
    controller.enqueue("slow");
    REQUIRE(controller.queue().wait_idle(clock.now(), 10s));
    CHECK(controller.queue().idle(clock.now() + 15s));
    CHECK_FALSE(controller.queue().idle(clock.now() + 16s));
  }
}
