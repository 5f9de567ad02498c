// What the API server writes at start, as kube-apiserver's post-start hooks do, and the health
// endpoints that wait for it: the system PriorityClasses and the rules that keep their names.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "ephemeral_store.h"
#include "test_api.h"

using apiserver::testing::Api;
using apiserver::testing::check_status;
using nlohmann::json;

namespace {

constexpr const char* kPriorityClasses = "/apis/scheduling.k8s.io/v1/priorityclasses";

json priority_class(const std::string& name, int64_t value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", {{"name", name}}},
          {"value", value}};
}

}  // namespace

TEST_CASE("/healthz and /livez fail until the bootstrap is done", "[health]") {
  auto db = apiserver::testing::ephemeral_store();
  apiserver::ApiServerConfig config;
  config.tokens["t0ken"] = {"admin", {"system:masters"}};
  apiserver::ApiServer api(*db, config);
  for (const char* path : {"/healthz", "/livez"}) {
    auto before =
        apiserver::testing::make_request("GET", std::string(path) + "?verbose", nullptr, "t0ken");
    auto reply = api.handle(before);
    CHECK(reply.status == 500);
    CHECK(reply.body.find("[-]poststarthook/start-sandbox-bootstrap failed: reason withheld") !=
          std::string::npos);
  }
  api.bootstrap();
  for (const char* path : {"/healthz", "/livez"}) {
    auto after = apiserver::testing::make_request("GET", path, nullptr, "t0ken");
    auto reply = api.handle(after);
    CHECK(reply.status == 200);
    CHECK(reply.body == "ok");
  }
}

TEST_CASE("the system PriorityClasses are there from the start", "[bootstrap]") {
  Api api;
  auto node = api.call("GET", std::string(kPriorityClasses) + "/system-node-critical");
  REQUIRE(node.status == 200);
  CHECK(node.body["value"] == 2000001000);
  CHECK(node.body["preemptionPolicy"] == "PreemptLowerPriority");
  CHECK(node.body["description"] ==
        "Used for system critical pods that must not be moved from their current node.");
  auto cluster = api.call("GET", std::string(kPriorityClasses) + "/system-cluster-critical");
  REQUIRE(cluster.status == 200);
  CHECK(cluster.body["value"] == 2000000000);
  // a pod that names one gets its priority
  json p = apiserver::testing::pod("critical");
  p["spec"]["priorityClassName"] = "system-cluster-critical";
  auto made = api.call("POST", apiserver::testing::kPods, p);
  REQUIRE(made.status == 201);
  CHECK(made.body["spec"]["priority"] == 2000000000);
}

TEST_CASE("system- names and values above a billion are refused as kube-apiserver does",
          "[validation]") {
  Api api;
  check_status(api.call("POST", kPriorityClasses, priority_class("system-mine", 5)), 422, "Invalid",
               "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: "
               "Forbidden: priority class names with 'system-' prefix are reserved for system use "
               "only. error: system-mine is not a known system priority class");
  check_status(api.call("POST", kPriorityClasses, priority_class("system-node-critical", 7)), 422,
               "Invalid",
               "PriorityClass.scheduling.k8s.io \"system-node-critical\" is invalid: "
               "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
               "for system use only. error: value of system-node-critical PriorityClass must be "
               "2000001000");
  // the right value passes validation and meets the stored one
  CHECK(api.call("POST", kPriorityClasses, priority_class("system-node-critical", 2000001000))
            .status == 409);
  check_status(api.call("POST", kPriorityClasses, priority_class("huge", 1000000001)), 422,
               "Invalid",
               "PriorityClass.scheduling.k8s.io \"huge\" is invalid: value: Forbidden: maximum "
               "allowed value of a user defined priority is 1000000000");
  REQUIRE(api.call("POST", kPriorityClasses, priority_class("high", 1000000000)).status == 201);
  auto changed = api.patch(std::string(kPriorityClasses) + "/high", "application/merge-patch+json",
                           R"({"value": 5})");
  check_status(changed, 422, "Invalid",
               "PriorityClass.scheduling.k8s.io \"high\" is invalid: Value: Forbidden: may not be "
               "changed in an update.");
}
