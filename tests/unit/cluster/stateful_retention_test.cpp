// A StatefulSet's persistentVolumeClaimRetentionPolicy (workloads/stateful_set_retention): the
// references its claims get, and how the plan (workloads/stateful_set_utils) acts on them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/informer.h"
#include "workloads/stateful_set_retention.h"
#include "workloads/stateful_set_utils.h"

using nlohmann::json;
using Kind = cluster::StatefulAction::Kind;

namespace {

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

json stateful_set(int replicas, const std::string& when_scaled, const std::string& when_deleted,
                  const std::string& policy = "OrderedReady") {
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "s1"}}},
          {"spec",
           {{"replicas", replicas},
            {"podManagementPolicy", policy},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"persistentVolumeClaimRetentionPolicy",
             {{"whenScaled", when_scaled}, {"whenDeleted", when_deleted}}},
            {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}}},
            {"volumeClaimTemplates", json::array({{{"metadata", {{"name", "data"}}}}})}}}};
}

// The ready pod web-<ordinal> with uid p<ordinal>.
json pod(const json& set, int ordinal) {
  json p = cluster::new_stateful_pod(set, set["spec"]["template"], "web-r1", ordinal);
  p["metadata"]["uid"] = "p" + std::to_string(ordinal);
  p["status"] = {{"phase", "Running"},
                 {"conditions", json::array({{{"type", "Ready"},
                                              {"status", "True"},
                                              {"lastTransitionTime", "2020-01-01T00:00:00Z"}}})}};
  return p;
}

// The claim data-web-<ordinal>, with `refs` as its ownerReferences.
json claim(int ordinal, const json& refs = json::array()) {
  json c = {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata",
             {{"name", "data-web-" + std::to_string(ordinal)},
              {"namespace", "default"},
              {"labels", {{"app", "web"}}}}}};
  if (!refs.empty()) {
    c["metadata"]["ownerReferences"] = refs;
  }
  return c;
}

json set_ref(const std::string& uid = "s1", bool is_controller = true) {
  json r = {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"name", "web"}, {"uid", uid}};
  if (is_controller) {
    r["controller"] = true;
    r["blockOwnerDeletion"] = true;
  }
  return r;
}

json pod_ref(int ordinal, const std::string& uid) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},      {"name", "web-" + std::to_string(ordinal)},
          {"uid", uid},         {"controller", true}, {"blockOwnerDeletion", true}};
}

json refs_of(const json& c) {
  return c["metadata"].value("ownerReferences", json::array());
}

cluster::ObjectPtr shared(json object) {
  return std::make_shared<const json>(std::move(object));
}

}  // namespace

TEST_CASE("claims are owned by the set or the pod as the retention policy says",
          "[cluster][statefulset][retention]") {
  struct Row {
    const char* when_scaled;
    const char* when_deleted;
    int ordinal;  // the set has 2 replicas: 0 and 1 are in range, 2 was scaled away
    json want;
  };
  const std::vector<Row> rows = {
      {"Retain", "Retain", 0, json::array()},
      {"Retain", "Retain", 2, json::array()},
      {"Retain", "Delete", 0, json::array({set_ref()})},
      {"Retain", "Delete", 2, json::array({set_ref()})},
      {"Delete", "Retain", 0, json::array()},
      {"Delete", "Retain", 2, json::array({pod_ref(2, "p2")})},
      {"Delete", "Delete", 0, json::array({set_ref()})},
      {"Delete", "Delete", 2, json::array({pod_ref(2, "p2")})},
  };
  for (const Row& row : rows) {
    CAPTURE(row.when_scaled, row.when_deleted, row.ordinal);
    const json set = stateful_set(2, row.when_scaled, row.when_deleted);
    const json p = pod(set, row.ordinal);
    const json plain = claim(row.ordinal);
    CHECK(cluster::claim_owners_up_to_date(plain, set, p) == row.want.empty());
    const json owned = cluster::with_retention_owners(plain, set, p);
    CHECK(refs_of(owned) == row.want);
    CHECK(cluster::claim_owners_up_to_date(owned, set, p));
    // Whatever references another policy left, it ends as this one wants.
    const json both =
        claim(row.ordinal, json::array({set_ref(), pod_ref(row.ordinal, p["metadata"]["uid"])}));
    CHECK(cluster::claim_owners_up_to_date(both, set, p) == (refs_of(both) == row.want));
    CHECK(refs_of(cluster::with_retention_owners(both, set, p)) == row.want);
  }
}

TEST_CASE("a claim owned by the set without being controlled is brought up to date",
          "[cluster][statefulset][retention]") {
  const json set = stateful_set(2, "Retain", "Delete");
  const json c = claim(0, json::array({set_ref("s1", false)}));
  CHECK_FALSE(cluster::claim_owners_up_to_date(c, set, pod(set, 0)));
  CHECK(refs_of(cluster::with_retention_owners(c, set, pod(set, 0))) == json::array({set_ref()}));
}

TEST_CASE("a claim of a previous set or pod is not touched, and holds its pod back",
          "[cluster][statefulset][retention]") {
  const json set = stateful_set(2, "Delete", "Delete");
  const json stale_set = claim(0, json::array({set_ref("s0")}));
  CHECK(cluster::claim_owners_up_to_date(stale_set, set, pod(set, 0)));
  CHECK(cluster::claim_has_unexpected_controller(stale_set, set, pod(set, 0)));
  const json stale_pod = claim(1, json::array({pod_ref(1, "old")}));
  CHECK(cluster::claim_owners_up_to_date(stale_pod, set, pod(set, 1)));
  // A pod not created yet has no uid: any claim naming a pod of its name is a previous one's.
  const json unborn = {{"metadata", {{"name", "web-1"}}}};
  CHECK(cluster::claim_has_stale_owner(stale_pod, unborn, "v1", "Pod"));
  CHECK_FALSE(cluster::claim_has_stale_owner(claim(1), unborn, "v1", "Pod"));

  // The plan waits for the garbage collector to delete it (whenScaled Delete) ...
  const std::vector<cluster::ObjectPtr> pods = {shared(pod(set, 0))};
  const std::vector<cluster::ObjectPtr> claims = {shared(claim(0, json::array({set_ref()}))),
                                                  shared(stale_pod)};
  CHECK(cluster::plan_stateful_set(set, pods, "web-r1", "web-r1", kNow, claims).empty());
  json parallel = set;
  parallel["spec"]["podManagementPolicy"] = "Parallel";
  parallel["spec"]["replicas"] = 3;
  const auto plan = cluster::plan_stateful_set(parallel, pods, "web-r1", "web-r1", kNow, claims);
  REQUIRE(plan.size() == 1);  // Parallel: the others go on
  CHECK(plan[0].kind == Kind::Create);
  CHECK(plan[0].pod == "web-2");
  // ... but not under whenScaled Retain, where claims are there to be used again.
  const json retain = stateful_set(2, "Retain", "Delete");
  const auto reuse = cluster::plan_stateful_set(retain, pods, "web-r1", "web-r1", kNow, claims);
  REQUIRE(reuse.size() == 1);
  CHECK(reuse[0].kind == Kind::Create);
}

TEST_CASE("a claim controlled by something else keeps that controller alone",
          "[cluster][statefulset][retention]") {
  const json other = {{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"name", "keeper"},
                      {"uid", "k1"},
                      {"controller", true}};
  const json set = stateful_set(2, "Retain", "Delete");
  const json c = claim(0, json::array({other, set_ref()}));
  CHECK(cluster::claim_has_unexpected_controller(c, set, pod(set, 0)));
  CHECK_FALSE(cluster::claim_owners_up_to_date(c, set, pod(set, 0)));
  CHECK(refs_of(cluster::with_retention_owners(c, set, pod(set, 0))) == json::array({other}));
  CHECK(cluster::claim_owners_up_to_date(claim(0, json::array({other})), set, pod(set, 0)));
  // Under Retain another controller is no conflict.
  const json retain = stateful_set(2, "Retain", "Retain");
  CHECK_FALSE(cluster::claim_has_unexpected_controller(c, retain, pod(retain, 0)));
}

TEST_CASE("the plan fixes the claims of live pods and of condemned ones before they go",
          "[cluster][statefulset][retention]") {
  const json set = stateful_set(1, "Delete", "Delete");
  const std::vector<cluster::ObjectPtr> pods = {shared(pod(set, 0)), shared(pod(set, 1))};
  // web-0's claim lacks the set's reference; web-1 (scaled away) still has it.
  const std::vector<cluster::ObjectPtr> claims = {shared(claim(0)),
                                                  shared(claim(1, json::array({set_ref()})))};
  const auto plan = cluster::plan_stateful_set(set, pods, "web-r1", "web-r1", kNow, claims);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].kind == Kind::Update);
  CHECK(plan[0].pod == "web-0");
  CHECK(plan[1].kind == Kind::FixClaims);
  CHECK(plan[1].pod == "web-1");
  CHECK(plan[2].kind == Kind::Delete);
  CHECK(plan[2].pod == "web-1");
  // Once they are as the policy wants, only the scale down is left.
  const std::vector<cluster::ObjectPtr> done = {shared(claim(0, json::array({set_ref()}))),
                                                shared(claim(1, json::array({pod_ref(1, "p1")})))};
  const auto rest = cluster::plan_stateful_set(set, pods, "web-r1", "web-r1", kNow, done);
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].kind == Kind::Delete);
}
