// Binding pods to nodes (endpoints/pod_binding.h): POST .../pods/{name}/binding and the legacy
// POST .../bindings, with kube-apiserver v1.32's answers.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "endpoints/pod_binding.h"
#include "protobuf_writer.h"
#include "test_api.h"
#include "watch_events.h"

using apiserver::testing::Api;
using apiserver::testing::check_status;
using apiserver::testing::EventReader;
using apiserver::testing::field_bytes;
using apiserver::testing::kPods;
using apiserver::testing::pod;
using nlohmann::json;

namespace {

json binding(const std::string& name, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", {{"name", name}}},
          {"target", {{"kind", "Node"}, {"name", node}}}};
}

std::string binding_path(const std::string& name) {
  return std::string(kPods) + "/" + name + "/binding";
}

}  // namespace

TEST_CASE("a binding puts the pod on its node and answers 201 Success", "[pod-binding]") {
  common::FakeClock clock;
  Api api(&clock);
  REQUIRE(api.call("POST", kPods, pod("web")).status == 201);
  clock.advance(std::chrono::seconds(5));
  json body = binding("web", "node-1");
  body["metadata"]["annotations"] = {{"scheduler.example.com/score", "7"}};
  auto bound = api.call("POST", binding_path("web"), body);
  CHECK(bound.status == 201);
  CHECK(bound.body == json({{"kind", "Status"},
                            {"apiVersion", "v1"},
                            {"metadata", json::object()},
                            {"status", "Success"},
                            {"code", 201}}));

  auto stored = api.call("GET", std::string(kPods) + "/web");
  CHECK(stored.body["spec"]["nodeName"] == "node-1");
  CHECK(stored.body["metadata"]["annotations"] == json({{"scheduler.example.com/score", "7"}}));
  CHECK(stored.body["status"]["conditions"] ==
        json::array({{{"type", "PodScheduled"},
                      {"status", "True"},
                      {"lastProbeTime", nullptr},
                      {"lastTransitionTime", "2024-01-01T00:00:05Z"}}}));

  auto again = api.call("POST", binding_path("web"), binding("web", "node-2"));
  check_status(again, 409, "Conflict",
               "Operation cannot be fulfilled on pods/binding \"web\": pod web is already assigned "
               "to node \"node-1\"");
  CHECK(again.body["details"] == json({{"name", "web"}, {"kind", "pods/binding"}}));
}

TEST_CASE("a binding replaces a PodScheduled condition the scheduler set before", "[pod-binding]") {
  common::FakeClock clock;
  Api api(&clock);
  REQUIRE(api.call("POST", kPods, pod("late")).status == 201);
  auto read = api.call("GET", std::string(kPods) + "/late");
  json unschedulable = read.body;
  unschedulable["status"]["conditions"] = {{{"type", "PodScheduled"},
                                            {"status", "False"},
                                            {"reason", "Unschedulable"},
                                            {"message", "0/1 nodes are available"},
                                            {"lastProbeTime", nullptr},
                                            {"lastTransitionTime", "2024-01-01T00:00:00Z"}},
                                           {{"type", "Ready"}, {"status", "False"}}};
  REQUIRE(api.call("PUT", std::string(kPods) + "/late/status", unschedulable).status == 200);
  clock.advance(std::chrono::seconds(30));
  REQUIRE(api.call("POST", binding_path("late"), binding("late", "node-1")).status == 201);
  auto stored = api.call("GET", std::string(kPods) + "/late");
  CHECK(stored.body["status"]["conditions"] ==
        json::array({{{"type", "PodScheduled"},
                      {"status", "True"},
                      {"lastProbeTime", nullptr},
                      {"lastTransitionTime", "2024-01-01T00:00:30Z"}},
                     {{"type", "Ready"}, {"status", "False"}}}));
}

TEST_CASE("a binding's refusals carry kube-apiserver's codes and texts", "[pod-binding]") {
  Api api;
  REQUIRE(api.call("POST", kPods, pod("web")).status == 201);

  SECTION("the name in the URL and the Binding's differ") {
    check_status(api.call("POST", binding_path("web"), binding("other", "node-1")), 400,
                 "BadRequest", "name in URL does not match name in Binding object");
  }
  SECTION("the Binding names another namespace") {
    json body = binding("web", "node-1");
    body["metadata"]["namespace"] = "kube-system";
    check_status(
        api.call("POST", binding_path("web"), body), 400, "BadRequest",
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  SECTION("an invalid target is a plain error list, which upstream answers as a 500") {
    json body = binding("web", "");
    auto missing = api.call("POST", binding_path("web"), body);
    CHECK(missing.status == 500);
    CHECK_FALSE(missing.body.contains("reason"));
    CHECK(missing.body["message"] == "target.name: Required value");
    body["target"]["kind"] = "Pod";
    auto both = api.call("POST", binding_path("web"), body);
    CHECK(both.status == 500);
    CHECK(both.body["message"] ==
          "[target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"<empty>\", "
          "target.name: Required value]");
  }
  SECTION("an empty target kind means Node") {
    json body = binding("web", "node-1");
    body["target"].erase("kind");
    CHECK(api.call("POST", binding_path("web"), body).status == 201);
  }
  SECTION("the pod does not exist") {
    check_status(api.call("POST", binding_path("ghost"), binding("ghost", "node-1")), 404,
                 "NotFound", "pods \"ghost\" not found");
  }
  SECTION("the pod waits for scheduling gates") {
    json gated = pod("gated");
    gated["spec"]["schedulingGates"] = {{{"name", "example.com/wait"}}};
    REQUIRE(api.call("POST", kPods, gated).status == 201);
    check_status(api.call("POST", binding_path("gated"), binding("gated", "node-1")), 409,
                 "Conflict",
                 "Operation cannot be fulfilled on pods/binding \"gated\": pod gated has "
                 "non-empty .spec.schedulingGates");
  }
  SECTION("the pod is being deleted") {
    json held = pod("held");
    held["metadata"]["finalizers"] = {"example.com/hold"};
    REQUIRE(api.call("POST", kPods, held).status == 201);
    REQUIRE(api.call("DELETE", std::string(kPods) + "/held").status == 200);
    check_status(api.call("POST", binding_path("held"), binding("held", "node-1")), 409, "Conflict",
                 "Operation cannot be fulfilled on pods/binding \"held\": pod held is being "
                 "deleted, cannot be assigned to a host");
  }
  SECTION("other methods find no route") {
    CHECK(api.call("PUT", binding_path("web"), binding("web", "node-1")).status == 405);
  }
}

TEST_CASE("a binding's uid and resourceVersion are preconditions on the pod", "[pod-binding]") {
  Api api;
  auto created = api.call("POST", kPods, pod("web"));
  REQUIRE(created.status == 201);
  const std::string uid = created.body["metadata"]["uid"];
  const std::string rv = created.body["metadata"]["resourceVersion"];

  json wrong_uid = binding("web", "node-1");
  wrong_uid["metadata"]["uid"] = "not-the-uid";
  check_status(api.call("POST", binding_path("web"), wrong_uid), 409, "Conflict",
               "Operation cannot be fulfilled on pods \"web\": StorageError: invalid object, Code: "
               "4, Key: /registry/pods/default/web, ResourceVersion: 0, AdditionalErrorMsg: "
               "Precondition failed: UID in precondition: not-the-uid, UID in object meta: " +
                   uid);

  json stale = binding("web", "node-1");
  stale["metadata"]["resourceVersion"] = "1";
  check_status(api.call("POST", binding_path("web"), stale), 409, "Conflict",
               "Operation cannot be fulfilled on pods \"web\": StorageError: invalid object, Code: "
               "4, Key: /registry/pods/default/web, ResourceVersion: 0, AdditionalErrorMsg: "
               "Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in "
               "object meta: " +
                   rv);

  json exact = binding("web", "node-1");
  exact["metadata"]["uid"] = uid;
  exact["metadata"]["resourceVersion"] = rv;
  CHECK(api.call("POST", binding_path("web"), exact).status == 201);
}

TEST_CASE("a dry-run binding changes nothing", "[pod-binding]") {
  Api api;
  REQUIRE(api.call("POST", kPods, pod("web")).status == 201);
  auto dry = api.call("POST", binding_path("web") + "?dryRun=All", binding("web", "node-1"));
  CHECK(dry.status == 201);
  CHECK(dry.body["status"] == "Success");
  auto stored = api.call("GET", std::string(kPods) + "/web");
  CHECK_FALSE(stored.body["spec"].contains("nodeName"));
  check_status(api.call("POST", binding_path("web") + "?dryRun=Some", binding("web", "node-1")),
               422, "Invalid",
               "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
               "[]string{\"Some\"}: supported values: \"All\"");
}

TEST_CASE("the legacy bindings collection binds the pod its Binding names", "[pod-binding]") {
  Api api;
  auto created = api.call("POST", kPods, pod("web"));
  REQUIRE(created.status == 201);
  // The collection wipes the uid of what it is sent, so a wrong one is no precondition.
  json body = binding("web", "node-3");
  body["metadata"]["uid"] = "ignored";
  auto bound = api.call("POST", "/api/v1/namespaces/default/bindings", body);
  CHECK(bound.status == 201);
  CHECK(bound.body["status"] == "Success");
  CHECK(api.call("GET", std::string(kPods) + "/web").body["spec"]["nodeName"] == "node-3");
  check_status(api.call("POST", "/api/v1/namespaces/default/bindings", binding("none", "n")), 404,
               "NotFound", "pods \"none\" not found");
  CHECK(api.call("POST", "/api/v1/namespaces/default/bindings/web", body).status == 405);
}

TEST_CASE("a binding in a missing or terminating namespace is refused by its lifecycle",
          "[pod-binding]") {
  Api api;
  check_status(
      api.call("POST", "/api/v1/namespaces/nowhere/pods/web/binding", binding("web", "node-1")),
      404, "NotFound", "namespaces \"nowhere\" not found");

  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ending"}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces", ns).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/ending/pods", pod("web")).status == 201);
  json pinned = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", {{"name", "pinned"}, {"finalizers", {"example.com/hold"}}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces/ending/configmaps", pinned).status == 201);
  REQUIRE(api.call("DELETE", "/api/v1/namespaces/ending").status == 200);
  check_status(
      api.call("POST", "/api/v1/namespaces/ending/pods/web/binding", binding("web", "node-1")), 403,
      "Forbidden",
      "pods \"web\" is forbidden: unable to create new content in namespace ending "
      "because it is being terminated");
  check_status(api.call("POST", "/api/v1/namespaces/ending/bindings", binding("web", "node-1")),
               403, "Forbidden",
               "bindings \"web\" is forbidden: unable to create new content in namespace ending "
               "because it is being terminated");
}

TEST_CASE("a protobuf Binding, as client-go's scheduler sends it, binds the pod", "[pod-binding]") {
  Api api;
  REQUIRE(api.call("POST", kPods, pod("web")).status == 201);
  const std::string message = field_bytes(1, field_bytes(1, "web")) +
                              field_bytes(2, field_bytes(1, "Node") + field_bytes(3, "node-7"));
  auto bound = api.send("POST", binding_path("web"), "application/vnd.kubernetes.protobuf",
                        apiserver::testing::k8s_body("v1", "Binding", message));
  CHECK(bound.status == 201);
  CHECK(api.call("GET", std::string(kPods) + "/web").body["spec"]["nodeName"] == "node-7");
}

TEST_CASE("a binding is one MODIFIED event to watchers of pods", "[pod-binding]") {
  Api api;
  auto created = api.call("POST", kPods, pod("web"));
  REQUIRE(created.status == 201);
  const std::string rv = created.body["metadata"]["resourceVersion"];
  auto stream = api.watch(std::string(kPods) + "?watch=true&resourceVersion=" + rv);
  EventReader events(*stream);
  REQUIRE(api.call("POST", binding_path("web"), binding("web", "node-1")).status == 201);
  json event = events.next();
  CHECK(event["type"] == "MODIFIED");
  CHECK(event["object"]["spec"]["nodeName"] == "node-1");
}

TEST_CASE("assign_pod keeps the transition time of a PodScheduled condition already True",
          "[pod-binding]") {
  json pod = {{"metadata", {{"name", "p"}}},
              {"spec", json::object()},
              {"status",
               {{"conditions",
                 {{{"type", "PodScheduled"},
                   {"status", "True"},
                   {"reason", "Stale"},
                   {"lastTransitionTime", "2023-05-05T00:00:00Z"}}}}}}};
  CHECK_FALSE(apiserver::endpoints::assign_pod(pod, "n1", json::object(), "2024-01-01T00:00:00Z"));
  CHECK(pod["status"]["conditions"][0] == json({{"type", "PodScheduled"},
                                                {"status", "True"},
                                                {"lastProbeTime", nullptr},
                                                {"lastTransitionTime", "2023-05-05T00:00:00Z"}}));
  CHECK_FALSE(pod["metadata"].contains("annotations"));
}
