// The garbage collector's finalizers on DELETE (registry/generic/deletion_rules.h): what each
// propagation policy, and each kind's default, leaves for the garbage collector to finish.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/clock.h"
#include "registry/generic/deletion_rules.h"
#include "test_api.h"
#include "test_request.h"

using apiserver::registry::gc_finalizers;
using apiserver::registry::GcPolicy;
using apiserver::testing::Api;
using apiserver::testing::check_status;
using apiserver::testing::configmap;
using apiserver::testing::deployment;
using apiserver::testing::kConfigMaps;
using nlohmann::json;

namespace {

constexpr const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";

std::string web() {
  return std::string(kDeployments) + "/web";
}

}  // namespace

TEST_CASE("a propagation policy leaves a deployment to the garbage collector, or removes it",
          "[gc-finalizers]") {
  common::FakeClock clock;
  Api api(&clock);
  REQUIRE(api.call("POST", kDeployments, deployment("web", 1)).status == 201);

  SECTION("Orphan adds the orphan finalizer and marks the object") {
    auto deleted = api.call("DELETE", web() + "?propagationPolicy=Orphan");
    CHECK(deleted.status == 200);
    CHECK(deleted.body["kind"] == "Deployment");
    CHECK(deleted.body["metadata"]["finalizers"] == json::array({"orphan"}));
    CHECK(deleted.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:00Z");
    CHECK(deleted.body["metadata"]["deletionGracePeriodSeconds"] == 0);
    CHECK(deleted.body["metadata"]["generation"] == 2);  // marking counts it up
    CHECK(api.call("GET", web()).body["metadata"]["finalizers"] == json::array({"orphan"}));
  }
  SECTION("orphanDependents=true does the same") {
    auto deleted = api.call("DELETE", web() + "?orphanDependents=true");
    CHECK(deleted.body["metadata"]["finalizers"] == json::array({"orphan"}));
  }
  SECTION("Foreground adds foregroundDeletion, in the body's options too") {
    auto deleted = api.call(
        "DELETE", web(),
        {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Foreground"}});
    CHECK(deleted.status == 200);
    CHECK(deleted.body["metadata"]["finalizers"] == json::array({"foregroundDeletion"}));
  }
  SECTION("Background, orphanDependents=false and the apps default remove it at once") {
    for (const char* query : {"?propagationPolicy=Background", "?orphanDependents=false", ""}) {
      CAPTURE(query);
      REQUIRE(api.call("POST", kDeployments, deployment("gone", 1)).status == 201);
      auto deleted = api.call("DELETE", std::string(kDeployments) + "/gone" + query);
      CHECK(deleted.status == 200);
      CHECK(deleted.body["kind"] == "Status");
      CHECK(deleted.body["status"] == "Success");
      CHECK(api.call("GET", std::string(kDeployments) + "/gone").status == 404);
    }
  }
  SECTION("a dry run shows the finalizer and keeps nothing") {
    auto dry = api.call("DELETE", web() + "?propagationPolicy=Orphan&dryRun=All");
    CHECK(dry.body["metadata"]["finalizers"] == json::array({"orphan"}));
    CHECK_FALSE(api.call("GET", web()).body["metadata"].contains("finalizers"));
  }
}

TEST_CASE("a second DELETE changes the garbage collector's finalizers as it asks",
          "[gc-finalizers]") {
  common::FakeClock clock;
  Api api(&clock);
  REQUIRE(api.call("POST", kDeployments, deployment("web", 1)).status == 201);
  REQUIRE(api.call("DELETE", web() + "?propagationPolicy=Foreground").status == 200);
  clock.advance(std::chrono::seconds(9));

  SECTION("Orphan swaps foregroundDeletion for orphan; the mark stays as it was") {
    auto swapped = api.call("DELETE", web() + "?propagationPolicy=Orphan");
    CHECK(swapped.status == 200);
    CHECK(swapped.body["metadata"]["finalizers"] == json::array({"orphan"}));
    CHECK(swapped.body["metadata"]["deletionTimestamp"] == "2024-01-01T00:00:00Z");
    CHECK(swapped.body["metadata"]["generation"] == 2);
  }
  SECTION("no policy keeps the finalizer already there") {
    auto same = api.call("DELETE", web());
    CHECK(same.body["metadata"]["finalizers"] == json::array({"foregroundDeletion"}));
  }
  SECTION("Background takes the last finalizer, and the object goes") {
    auto gone = api.call("DELETE", web() + "?propagationPolicy=Background");
    CHECK(gone.status == 200);
    CHECK(api.call("GET", web()).status == 404);
  }
}

TEST_CASE("the last garbage collector finalizer taken by an update removes the object",
          "[gc-finalizers]") {
  Api api;
  REQUIRE(api.call("POST", kDeployments, deployment("web", 1)).status == 201);
  REQUIRE(api.call("DELETE", web() + "?propagationPolicy=Orphan").status == 200);
  auto patched =
      api.patch(web(), "application/merge-patch+json", R"({"metadata": {"finalizers": null}})");
  CHECK(patched.status == 200);
  CHECK(api.call("GET", web()).status == 404);
}

TEST_CASE("other finalizers are kept beside the garbage collector's", "[gc-finalizers]") {
  Api api;
  json held = configmap("held");
  held["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(api.call("POST", kConfigMaps, held).status == 201);
  auto deleted = api.call("DELETE", std::string(kConfigMaps) + "/held?propagationPolicy=Orphan");
  CHECK(deleted.body["metadata"]["finalizers"] == json::array({"example.com/hold", "orphan"}));
  // The old way of asking for cascading deletion answers 202 for an object left behind.
  auto accepted = api.call("DELETE", std::string(kConfigMaps) + "/held?orphanDependents=false");
  CHECK(accepted.status == 202);
  CHECK(accepted.body["metadata"]["finalizers"] == json::array({"example.com/hold"}));
}

TEST_CASE("replication controllers and jobs orphan by default; jobs say so", "[gc-finalizers]") {
  Api api;
  json rc = {{"apiVersion", "v1"},
             {"kind", "ReplicationController"},
             {"metadata", {{"name", "rc"}}},
             {"spec",
              {{"selector", {{"app", "rc"}}},
               {"template",
                {{"metadata", {{"labels", {{"app", "rc"}}}}},
                 {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/replicationcontrollers", rc).status == 201);
  auto orphaned = api.call("DELETE", "/api/v1/namespaces/default/replicationcontrollers/rc");
  CHECK(orphaned.body["metadata"]["finalizers"] == json::array({"orphan"}));

  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "job"}}},
              {"spec",
               {{"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}}}}}};
  const std::string jobs = "/apis/batch/v1/namespaces/default/jobs";
  REQUIRE(api.call("POST", jobs, job).status == 201);
  auto request = apiserver::testing::make_request("DELETE", jobs + "/job", nullptr, "t0ken");
  auto warned = api.raw(request);
  CHECK(warned.status == 200);
  CHECK(json::parse(warned.body)["metadata"]["finalizers"] == json::array({"orphan"}));
  CHECK(apiserver::testing::response_header(warned, "Warning") ==
        "299 - \"child pods are preserved by default when jobs are deleted; set "
        "propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress "
        "this warning\"");

  job["metadata"]["name"] = "quiet";
  REQUIRE(api.call("POST", jobs, job).status == 201);
  auto quiet_request = apiserver::testing::make_request(
      "DELETE", jobs + "/quiet?propagationPolicy=Background", nullptr, "t0ken");
  auto quiet = api.raw(quiet_request);
  CHECK(quiet.status == 200);
  CHECK(apiserver::testing::response_header(quiet, "Warning").empty());
  CHECK(api.call("GET", jobs + "/quiet").status == 404);

  auto collection_request = apiserver::testing::make_request("DELETE", jobs, nullptr, "t0ken");
  auto collection = api.raw(collection_request);
  CHECK(collection.status == 200);
  CHECK_FALSE(apiserver::testing::response_header(collection, "Warning").empty());
}

TEST_CASE("events never take a garbage collector finalizer", "[gc-finalizers]") {
  Api api;
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "e1"}, {"namespace", "default"}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
                {"reason", "Test"},
                {"message", "m"},
                {"type", "Normal"},
                {"source", {{"component", "test"}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/events", event).status == 201);
  CHECK(
      api.call("DELETE", "/api/v1/namespaces/default/events/e1?propagationPolicy=Orphan").status ==
      200);
  CHECK(api.call("GET", "/api/v1/namespaces/default/events/e1").status == 404);
}

TEST_CASE("a namespace takes the garbage collector finalizer its delete asks for",
          "[gc-finalizers]") {
  Api api;
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces", ns).status == 201);
  auto deleted = api.call("DELETE", "/api/v1/namespaces/team?orphanDependents=false");
  CHECK(deleted.status == 202);
  CHECK(deleted.body["metadata"]["finalizers"] == json::array({"foregroundDeletion"}));
  CHECK(deleted.body["status"]["phase"] == "Terminating");
}

TEST_CASE("both garbage collector finalizers at once are invalid", "[gc-finalizers]") {
  Api api;
  json both = configmap("both");
  both["metadata"]["finalizers"] = {"orphan", "foregroundDeletion"};
  check_status(api.call("POST", kConfigMaps, both), 422, "Invalid",
               "ConfigMap \"both\" is invalid: metadata.finalizers: Invalid value: "
               "[]string{\"orphan\", \"foregroundDeletion\"}: finalizer orphan and "
               "foregroundDeletion cannot be both set");
}

TEST_CASE("gc_finalizers follows the request, then the object, then the kind's policy",
          "[gc-finalizers]") {
  struct Row {
    GcPolicy policy;
    json finalizers;
    std::optional<bool> orphan;
    std::optional<std::string> propagation;
    std::optional<json> expected;  // nullopt: unchanged
  };
  const json none = json::array();
  auto row = GENERATE_COPY(values<Row>({
      {GcPolicy::DeleteDependents, none, std::nullopt, std::nullopt, std::nullopt},
      {GcPolicy::OrphanDependents, none, std::nullopt, std::nullopt, json::array({"orphan"})},
      {GcPolicy::OrphanDependents, none, std::nullopt, "Background", std::nullopt},
      {GcPolicy::OrphanDependents, json::array({"foregroundDeletion"}), std::nullopt, std::nullopt,
       std::nullopt},
      {GcPolicy::DeleteDependents, json::array({"a/b", "orphan"}), false, std::nullopt,
       json::array({"a/b"})},
      {GcPolicy::DeleteDependents, json::array({"orphan", "a/b"}), std::nullopt, "Foreground",
       json::array({"a/b", "foregroundDeletion"})},
      {GcPolicy::Unsupported, json::array({"orphan"}), true, std::nullopt, none},
      {GcPolicy::AsRequested, json::array({"orphan"}), std::nullopt, std::nullopt, std::nullopt},
      {GcPolicy::AsRequested, none, false, std::nullopt, json::array({"foregroundDeletion"})},
  }));
  CAPTURE(row.finalizers, row.orphan.value_or(false), row.propagation.value_or("-"));
  json metadata = {{"finalizers", row.finalizers}};
  auto got = gc_finalizers(row.policy, metadata, row.orphan, row.propagation);
  REQUIRE(got.has_value() == row.expected.has_value());
  if (got) {
    CHECK(*got == *row.expected);
  }
}
