// Graceful deletion of pods (registry/generic/deletion_rules.h, the pod strategy's grace period):
// what DELETE leaves behind, and when the pod goes, as kube-apiserver v1.32 does it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "test_api.h"
#include "watch_events.h"

using apiserver::testing::Api;
using apiserver::testing::EventReader;
using apiserver::testing::kPods;
using apiserver::testing::pod;
using nlohmann::json;

namespace {

std::string path(const std::string& name) {
  return std::string(kPods) + "/" + name;
}

// A pod created and bound to node-1, as the scheduler leaves it.
void scheduled_pod(Api& api, const std::string& name, json body = nullptr) {
  REQUIRE(api.call("POST", kPods, body.is_null() ? pod(name) : body).status == 201);
  json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", name}}},
                  {"target", {{"kind", "Node"}, {"name", "node-1"}}}};
  REQUIRE(api.call("POST", path(name) + "/binding", binding).status == 201);
}

}  // namespace

TEST_CASE("a scheduled pod is only marked by DELETE, for its grace period", "[graceful-delete]") {
  common::FakeClock clock;  // 2024-01-01T00:00:00Z
  Api api(&clock);
  scheduled_pod(api, "web");

  SECTION("the pod's own terminationGracePeriodSeconds (30 by default)") {
    auto deleted = api.call("DELETE", path("web"));
    CHECK(deleted.status == 200);
    CHECK(deleted.body["kind"] == "Pod");
    CHECK(deleted.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:30Z");
    CHECK(deleted.body["metadata"]["deletionGracePeriodSeconds"] == 30);
    auto still = api.call("GET", path("web"));
    REQUIRE(still.status == 200);
    CHECK(still.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:30Z");
  }
  SECTION("the request's gracePeriodSeconds, in the query or the body") {
    auto queried = api.call("DELETE", path("web") + "?gracePeriodSeconds=10");
    CHECK(queried.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:10Z");
    CHECK(queried.body["metadata"]["deletionGracePeriodSeconds"] == 10);
    scheduled_pod(api, "other");
    auto bodied =
        api.call("DELETE", path("other"),
                 {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"gracePeriodSeconds", 5}});
    CHECK(bodied.body["metadata"]["deletionGracePeriodSeconds"] == 5);
  }
  SECTION("a negative grace period counts as one second") {
    auto deleted = api.call("DELETE", path("web") + "?gracePeriodSeconds=-7");
    CHECK(deleted.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:01Z");
    CHECK(deleted.body["metadata"]["deletionGracePeriodSeconds"] == 1);
  }
  SECTION("a pod with a grace period of its own") {
    json quick = pod("quick");
    quick["spec"]["terminationGracePeriodSeconds"] = 3;
    scheduled_pod(api, "quick", quick);
    auto deleted = api.call("DELETE", path("quick"));
    CHECK(deleted.body["metadata"]["deletionGracePeriodSeconds"] == 3);
  }
  SECTION("a dry run shows the mark and keeps nothing") {
    auto dry = api.call("DELETE", path("web") + "?dryRun=All");
    CHECK(dry.status == 200);
    CHECK(dry.body["metadata"]["deletionGracePeriodSeconds"] == 30);
    CHECK_FALSE(api.call("GET", path("web")).body["metadata"].contains("deletionTimestamp"));
  }
}

TEST_CASE("a later DELETE may only shorten a pod's grace period", "[graceful-delete]") {
  common::FakeClock clock;
  Api api(&clock);
  scheduled_pod(api, "web");
  REQUIRE(api.call("DELETE", path("web")).status == 200);  // until 00:00:30
  clock.advance(std::chrono::seconds(4));
  const std::string marked_rv = api.call("GET", path("web")).body["metadata"]["resourceVersion"];

  SECTION("a longer or equal one, or none, changes nothing") {
    for (const char* query : {"", "?gracePeriodSeconds=30", "?gracePeriodSeconds=60"}) {
      CAPTURE(query);
      auto again = api.call("DELETE", path("web") + query);
      CHECK(again.status == 200);
      CHECK(again.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:30Z");
      CHECK(again.body["metadata"]["resourceVersion"] == marked_rv);
    }
  }
  SECTION("a shorter one moves the deadline back from when the deletion began") {
    auto shorter = api.call("DELETE", path("web") + "?gracePeriodSeconds=5");
    CHECK(shorter.status == 200);
    CHECK(shorter.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:05Z");
    CHECK(shorter.body["metadata"]["deletionGracePeriodSeconds"] == 5);
    CHECK(api.call("GET", path("web")).status == 200);
  }
  SECTION("zero removes it, as a kubelet does once the containers stopped") {
    auto gone = api.call("DELETE", path("web") + "?gracePeriodSeconds=0");
    CHECK(gone.status == 200);
    CHECK(gone.body["metadata"]["deletionGracePeriodSeconds"] == 0);
    CHECK(gone.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:00Z");
    CHECK(api.call("GET", path("web")).status == 404);
  }
}

TEST_CASE("an unscheduled or finished pod goes at once, marked on its way out",
          "[graceful-delete]") {
  common::FakeClock clock;
  Api api(&clock);
  auto created = api.call("POST", kPods, pod("pending"));
  REQUIRE(created.status == 201);
  const std::string rv = created.body["metadata"]["resourceVersion"];
  auto stream = api.watch(std::string(kPods) + "?watch=true&resourceVersion=" + rv);
  EventReader events(*stream);

  auto deleted = api.call("DELETE", path("pending") + "?gracePeriodSeconds=30");
  CHECK(deleted.status == 200);
  CHECK(deleted.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:00Z");
  CHECK(deleted.body["metadata"]["deletionGracePeriodSeconds"] == 0);
  CHECK(api.call("GET", path("pending")).status == 404);
  // Upstream writes the mark, then deletes: watchers see both.
  json modified = events.next();
  CHECK(modified["type"] == "MODIFIED");
  CHECK(modified["object"]["metadata"]["deletionGracePeriodSeconds"] == 0);
  json removed = events.next();
  CHECK(removed["type"] == "DELETED");
  CHECK(removed["object"]["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:00Z");

  scheduled_pod(api, "done");
  json finished = api.call("GET", path("done")).body;
  finished["status"]["phase"] = "Succeeded";
  REQUIRE(api.call("PUT", path("done") + "/status", finished).status == 200);
  CHECK(api.call("DELETE", path("done")).status == 200);
  CHECK(api.call("GET", path("done")).status == 404);
}

TEST_CASE("a pod's finalizers outlast its grace period", "[graceful-delete]") {
  common::FakeClock clock;
  Api api(&clock);
  json held = pod("held");
  held["metadata"]["finalizers"] = {"example.com/hold"};
  scheduled_pod(api, "held", held);
  auto marked = api.call("DELETE", path("held"));
  CHECK(marked.body["metadata"]["deletionGracePeriodSeconds"] == 30);

  auto ended = api.call("DELETE", path("held") + "?gracePeriodSeconds=0");
  CHECK(ended.status == 200);
  CHECK(ended.body["metadata"]["deletionGracePeriodSeconds"] == 0);
  auto still = api.call("GET", path("held"));
  REQUIRE(still.status == 200);

  json released = still.body;
  released["metadata"]["finalizers"] = json::array();
  CHECK(api.call("PUT", path("held"), released).status == 200);
  CHECK(api.call("GET", path("held")).status == 404);
}

TEST_CASE("updates during a grace period keep the pod", "[graceful-delete]") {
  common::FakeClock clock;
  Api api(&clock);
  scheduled_pod(api, "web");
  REQUIRE(api.call("DELETE", path("web")).status == 200);
  json running = api.call("GET", path("web")).body;
  running["status"]["phase"] = "Running";
  // No finalizers, but 30 seconds of grace left: the kubelet's status write must not remove it.
  CHECK(api.call("PUT", path("web") + "/status", running).status == 200);
  CHECK(api.call("GET", path("web")).status == 200);
}

TEST_CASE("an object being deleted takes no new finalizers", "[graceful-delete]") {
  Api api;
  json held = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "held"}, {"finalizers", {"example.com/a"}}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", held).status == 201);
  REQUIRE(api.call("DELETE", "/api/v1/namespaces/default/configmaps/held").status == 200);
  auto read = api.call("GET", "/api/v1/namespaces/default/configmaps/held");
  json more = read.body;
  more["metadata"]["finalizers"] = {"example.com/a", "example.com/c", "example.com/b"};
  auto refused = api.call("PUT", "/api/v1/namespaces/default/configmaps/held", more);
  CHECK(refused.status == 422);
  CHECK(refused.body["message"] ==
        "ConfigMap \"held\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be "
        "added if the object is being deleted, found new finalizers []string{\"example.com/b\", "
        "\"example.com/c\"}");
}
