// The StatefulSet controller's pure parts (workloads/stateful_set_utils) and the revision
// history they share with the DaemonSet controller (workloads/controller_history).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "client/informer.h"
#include "workloads/controller_history.h"
#include "workloads/stateful_set_utils.h"

using nlohmann::json;
using Kind = cluster::StatefulAction::Kind;

namespace {

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

json stateful_set(int replicas, const std::string& policy = "OrderedReady") {
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "StatefulSet"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "u1"}, {"generation", 2}}},
      {"spec",
       {{"replicas", replicas},
        {"serviceName", "nginx"},
        {"podManagementPolicy", policy},
        {"selector", {{"matchLabels", {{"app", "nginx"}}}}},
        {"updateStrategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 0}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "nginx"}}}}},
          {"spec",
           {{"containers", json::array({{{"name", "nginx"}, {"image", "nginx:1.27"}}})},
            {"volumes", json::array({{{"name", "www"}, {"emptyDir", json::object()}},
                                     {{"name", "cache"}, {"emptyDir", json::object()}}})}}}}},
        {"volumeClaimTemplates",
         json::array({{{"metadata", {{"name", "www"}, {"labels", {{"tier", "data"}}}}},
                       {"spec",
                        {{"accessModes", {"ReadWriteOnce"}},
                         {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
}

// A pod of the set at `revision`: "ready" (Running and Ready), "pending", "running" (not ready),
// "failed", "deleting".
cluster::ObjectPtr pod(const json& set, int ordinal, const std::string& state,
                       const std::string& revision = "web-r1") {
  json p = cluster::new_stateful_pod(set, set["spec"]["template"], revision, ordinal);
  const std::string phase = state == "ready" || state == "running" || state == "deleting"
                                ? "Running"
                            : state == "failed" ? "Failed"
                                                : "Pending";
  p["status"]["phase"] = phase;
  const bool ready = state == "ready" || state == "deleting";
  p["status"]["conditions"] = json::array({{{"type", "Ready"},
                                            {"status", ready ? "True" : "False"},
                                            {"lastTransitionTime", "2020-01-01T00:00:00Z"}}});
  if (state == "deleting") {
    p["metadata"]["deletionTimestamp"] = "2027-01-01T00:00:00Z";
  }
  return std::make_shared<const json>(std::move(p));
}

std::vector<std::pair<Kind, std::string>> steps(const std::vector<cluster::StatefulAction>& plan) {
  std::vector<std::pair<Kind, std::string>> out;
  for (const auto& a : plan) {
    out.emplace_back(a.kind, a.pod);
  }
  return out;
}

}  // namespace

TEST_CASE("stateful pods and claims are named by ordinal", "[cluster][statefulset]") {
  CHECK(cluster::stateful_pod_name("web", 0) == "web-0");
  CHECK(cluster::stateful_claim_name("www", "web", 3) == "www-web-3");
  CHECK(cluster::stateful_ordinal("web-12", "web") == 12);
  CHECK(cluster::stateful_ordinal("web-0", "web") == 0);
  CHECK_FALSE(cluster::stateful_ordinal("web-", "web"));
  CHECK_FALSE(cluster::stateful_ordinal("web-x", "web"));
  CHECK_FALSE(cluster::stateful_ordinal("web-1-2", "web"));
  CHECK_FALSE(cluster::stateful_ordinal("webby-1", "web"));
  CHECK_FALSE(cluster::stateful_ordinal("web-+1", "web"));
}

TEST_CASE("a stateful pod has its identity, its claims' volumes and its revision",
          "[cluster][statefulset]") {
  const json set = stateful_set(3);
  const json p = cluster::new_stateful_pod(set, set["spec"]["template"], "web-abc", 2);
  CHECK(p["metadata"]["name"] == "web-2");
  CHECK(p["metadata"]["namespace"] == "default");
  CHECK(p["metadata"]["labels"] == json{{"app", "nginx"},
                                        {"statefulset.kubernetes.io/pod-name", "web-2"},
                                        {"apps.kubernetes.io/pod-index", "2"},
                                        {"controller-revision-hash", "web-abc"}});
  CHECK(p["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet");
  CHECK(p["metadata"]["ownerReferences"][0]["uid"] == "u1");
  CHECK(p["metadata"]["ownerReferences"][0]["controller"] == true);
  CHECK(p["spec"]["hostname"] == "web-2");
  CHECK(p["spec"]["subdomain"] == "nginx");
  // The claim's volume replaces the template's volume of the same name and comes first.
  CHECK(p["spec"]["volumes"] ==
        json::array({{{"name", "www"}, {"persistentVolumeClaim", {{"claimName", "www-web-2"}}}},
                     {{"name", "cache"}, {"emptyDir", json::object()}}}));
  CHECK(cluster::stateful_identity_matches(set, p));
  CHECK(cluster::stateful_storage_matches(set, p));
  json moved = p;
  moved["metadata"]["labels"].erase("apps.kubernetes.io/pod-index");
  moved["spec"].erase("volumes");
  CHECK_FALSE(cluster::stateful_identity_matches(set, moved));
  CHECK_FALSE(cluster::stateful_storage_matches(set, moved));
  const json fixed = cluster::with_stateful_identity(set, moved);
  CHECK(cluster::stateful_identity_matches(set, fixed));
  CHECK(cluster::stateful_storage_matches(set, fixed));

  const auto claims = cluster::stateful_claims(set, 2);
  REQUIRE(claims.size() == 1);
  CHECK(claims[0]["metadata"]["name"] == "www-web-2");
  CHECK(claims[0]["metadata"]["labels"] == json{{"tier", "data"}, {"app", "nginx"}});
  CHECK_FALSE(claims[0]["metadata"].contains("ownerReferences"));  // Retain by default
  CHECK(claims[0]["spec"]["resources"]["requests"]["storage"] == "1Gi");
}

TEST_CASE("OrderedReady creates one pod at a time, each after the previous is ready",
          "[cluster][statefulset]") {
  const json set = stateful_set(3);
  CHECK(steps(cluster::plan_stateful_set(set, {}, "web-r1", "web-r1", kNow)) ==
        std::vector<std::pair<Kind, std::string>>{{Kind::Create, "web-0"}});
  CHECK(
      steps(cluster::plan_stateful_set(set, {pod(set, 0, "pending")}, "web-r1", "web-r1", kNow)) ==
      std::vector<std::pair<Kind, std::string>>{{Kind::CreateClaims, "web-0"}});
  CHECK(
      cluster::plan_stateful_set(set, {pod(set, 0, "running")}, "web-r1", "web-r1", kNow).empty());
  CHECK(steps(cluster::plan_stateful_set(set, {pod(set, 0, "ready")}, "web-r1", "web-r1", kNow)) ==
        std::vector<std::pair<Kind, std::string>>{{Kind::Create, "web-1"}});
  // A missing pod below a live one is created first.
  CHECK(steps(cluster::plan_stateful_set(set, {pod(set, 1, "ready")}, "web-r1", "web-r1", kNow)) ==
        std::vector<std::pair<Kind, std::string>>{{Kind::Create, "web-0"}});
  const auto failed =
      cluster::plan_stateful_set(set, {pod(set, 0, "failed")}, "web-r1", "web-r1", kNow);
  CHECK(steps(failed) == std::vector<std::pair<Kind, std::string>>{{Kind::Recreate, "web-0"}});
}

TEST_CASE("Parallel creates and deletes without waiting", "[cluster][statefulset]") {
  json set = stateful_set(3, "Parallel");
  CHECK(
      steps(cluster::plan_stateful_set(set, {pod(set, 0, "pending")}, "web-r1", "web-r1", kNow)) ==
      std::vector<std::pair<Kind, std::string>>{
          {Kind::CreateClaims, "web-0"}, {Kind::Create, "web-1"}, {Kind::Create, "web-2"}});
  set["spec"]["replicas"] = 1;
  CHECK(steps(cluster::plan_stateful_set(
            set, {pod(set, 0, "ready"), pod(set, 1, "ready"), pod(set, 2, "running")}, "web-r1",
            "web-r1", kNow)) == std::vector<std::pair<Kind, std::string>>{{Kind::Delete, "web-2"},
                                                                          {Kind::Delete, "web-1"}});
}

TEST_CASE("OrderedReady scales down from the highest ordinal, one at a time",
          "[cluster][statefulset]") {
  const json set = stateful_set(1);
  using Pods = std::vector<cluster::ObjectPtr>;
  CHECK(steps(cluster::plan_stateful_set(
            set, Pods{pod(set, 0, "ready"), pod(set, 1, "ready"), pod(set, 2, "ready")}, "web-r1",
            "web-r1", kNow)) == std::vector<std::pair<Kind, std::string>>{{Kind::Delete, "web-2"}});
  CHECK(cluster::plan_stateful_set(
            set, Pods{pod(set, 0, "ready"), pod(set, 1, "ready"), pod(set, 2, "deleting")},
            "web-r1", "web-r1", kNow)
            .empty());
  // The first unhealthy condemned pod may go; one above it waits for it.
  CHECK(steps(cluster::plan_stateful_set(set, Pods{pod(set, 0, "ready"), pod(set, 1, "running")},
                                         "web-r1", "web-r1", kNow)) ==
        std::vector<std::pair<Kind, std::string>>{{Kind::Delete, "web-1"}});
  CHECK(cluster::plan_stateful_set(
            set, Pods{pod(set, 0, "ready"), pod(set, 1, "running"), pod(set, 2, "running")},
            "web-r1", "web-r1", kNow)
            .empty());
}

TEST_CASE("a rolling update replaces pods at or above the partition, highest first",
          "[cluster][statefulset]") {
  json set = stateful_set(3);
  using Pods = std::vector<cluster::ObjectPtr>;
  const Pods old = {pod(set, 0, "ready"), pod(set, 1, "ready"), pod(set, 2, "ready")};
  CHECK(steps(cluster::plan_stateful_set(set, old, "web-r1", "web-r2", kNow)) ==
        std::vector<std::pair<Kind, std::string>>{{Kind::Delete, "web-2"}});
  const Pods top_new = {pod(set, 0, "ready"), pod(set, 1, "ready"), pod(set, 2, "ready", "web-r2")};
  CHECK(steps(cluster::plan_stateful_set(set, top_new, "web-r1", "web-r2", kNow)) ==
        std::vector<std::pair<Kind, std::string>>{{Kind::Delete, "web-1"}});
  const Pods top_pending = {pod(set, 0, "ready"), pod(set, 1, "ready"),
                            pod(set, 2, "running", "web-r2")};
  CHECK(cluster::plan_stateful_set(set, top_pending, "web-r1", "web-r2", kNow).empty());
  set["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = 2;
  CHECK(cluster::plan_stateful_set(set, top_new, "web-r1", "web-r2", kNow).empty());
  // Below the partition a missing pod comes back at the current revision.
  const auto plan = cluster::plan_stateful_set(set, {}, "web-r1", "web-r2", kNow);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].revision == "web-r1");
  set["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  CHECK(cluster::plan_stateful_set(set, old, "web-r1", "web-r2", kNow).empty());
  CHECK(cluster::plan_stateful_set(set, {}, "web-r1", "web-r2", kNow)[0].revision == "web-r2");
}

TEST_CASE("stateful status counts pods by readiness and revision", "[cluster][statefulset]") {
  const json set = stateful_set(3);
  const std::vector<cluster::ObjectPtr> pods = {
      pod(set, 0, "ready"), pod(set, 1, "ready", "web-r2"), pod(set, 2, "running", "web-r2")};
  const json status = cluster::stateful_status(set, pods, "web-r1", "web-r2", 0, kNow);
  CHECK(status == json{{"observedGeneration", 2},
                       {"replicas", 3},
                       {"readyReplicas", 2},
                       {"availableReplicas", 2},
                       {"currentReplicas", 1},
                       {"updatedReplicas", 2},
                       {"currentRevision", "web-r1"},
                       {"updateRevision", "web-r2"},
                       {"collisionCount", 0}});
  // Every pod updated and ready: the update revision becomes current.
  const std::vector<cluster::ObjectPtr> done = {pod(set, 0, "ready", "web-r2"),
                                                pod(set, 1, "ready", "web-r2")};
  const json finished = cluster::stateful_status(set, done, "web-r1", "web-r2", 0, kNow);
  CHECK(finished["currentRevision"] == "web-r2");
  CHECK(finished["currentReplicas"] == 2);
}

TEST_CASE("revisions are named by a stable hash of the template", "[cluster][history]") {
  CHECK(cluster::fnv1_32("") == 0x811c9dc5u);
  CHECK(cluster::fnv1_32("a") == 0x050c5d7eu);
  CHECK(cluster::safe_encode("0123456789") == "456789bcdf");
  CHECK(cluster::go_json(json{{"b", "<&>"}, {"a", 1}}) == R"({"a":1,"b":"\u003c\u0026\u003e"})");

  const json set = stateful_set(3);
  const json data = cluster::template_patch(set);
  CHECK(data["spec"]["template"]["$patch"] == "replace");
  CHECK(cluster::revision_template({{"data", data}}) == set["spec"]["template"]);
  const std::string hash = cluster::revision_hash(data, 0);
  CHECK(hash == cluster::revision_hash(data, 0));
  CHECK(hash != cluster::revision_hash(data, 1));
  json changed = set;
  changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28";
  CHECK(hash != cluster::revision_hash(cluster::template_patch(changed), 0));
  // Only the template counts.
  json scaled = set;
  scaled["spec"]["replicas"] = 9;
  CHECK(hash == cluster::revision_hash(cluster::template_patch(scaled), 0));

  const json revision = cluster::new_revision(set, data, 4, 0);
  CHECK(revision["metadata"]["name"] == "web-" + hash);
  CHECK(revision["metadata"]["labels"] ==
        json{{"app", "nginx"}, {"controller-revision-hash", hash}});
  CHECK(revision["revision"] == 4);
  CHECK(cluster::revision_name(std::string(300, 'x'), "h") == std::string(223, 'x') + "-h");
}

TEST_CASE("history keeps the live revisions and the newest dead ones", "[cluster][history]") {
  std::vector<cluster::ObjectPtr> revisions;
  for (int i = 1; i <= 5; ++i) {
    revisions.push_back(std::make_shared<const json>(
        json{{"metadata", {{"name", "r" + std::to_string(i)}}}, {"revision", i}}));
  }
  CHECK(cluster::revisions_to_prune(revisions, {"r1", "r5"}, 1) ==
        std::vector<std::string>{"r2", "r3"});
  CHECK(cluster::revisions_to_prune(revisions, {"r5"}, 10).empty());
  CHECK(cluster::revisions_to_prune(revisions, {"r5"}, 0) ==
        std::vector<std::string>{"r1", "r2", "r3", "r4"});
  CHECK(cluster::next_revision_number(revisions) == 6);
  CHECK(cluster::next_revision_number({}) == 1);
}
