// The scheduler's scores (scheduler/scores, spread, inter_pod) on small sets of nodes and pods,
// with the numbers kube-scheduler's plugins give for them.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "scheduler/cache.h"
#include "scheduler/scheduler.h"
#include "scheduler/scores.h"
#include "scheduler/spread.h"
#include "scheduler_test_support.h"

using nlohmann::json;

namespace {

using scheduler_test::node;
using scheduler_test::pod;

struct Cluster : scheduler_test::Cluster {
  using scheduler_test::Cluster::Cluster;
  std::vector<int64_t> spread(const json& p, const json& default_selector = nullptr) const {
    return cluster::spread_scores(p, default_selector, cache.nodes(), cache.nodes());
  }
  std::vector<int64_t> inter_pod(const json& p) const {
    return cluster::inter_pod_scores(p, cache.nodes(), cache.nodes(), nullptr);
  }
};

json weighted(int weight, const std::string& app, const std::string& key) {
  return {{"weight", weight},
          {"podAffinityTerm",
           {{"labelSelector", {{"matchLabels", {{"app", app}}}}}, {"topologyKey", key}}}};
}

}  // namespace

TEST_CASE("NodeResourcesFit LeastAllocated scores the share left free", "[cluster][scheduler]") {
  Cluster c{node("node-1", "a")};
  c.place(pod("running", "x", "1", "4Gi"), "node-1");
  // cpu (4000 - 2000) * 100 / 4000 = 50, memory (16 - 8) * 100 / 16 = 50.
  const json p = pod("p", "x", "1", "4Gi");
  CHECK(cluster::least_allocated_score(cluster::pod_requests_non_zero(p), c.at("node-1")) == 50);
  // No requests: 100m and 200Mi are counted. cpu (1000 - 100) * 100 / 1000 = 90, memory
  // (1024 - 200) * 100 / 1024 = 80 (integer division), averaged: 85.
  Cluster small{node("node-1", "a", "1", "1Gi")};
  CHECK(cluster::least_allocated_score(cluster::pod_requests_non_zero(pod("p", "x")),
                                       small.at("node-1")) == 85);
  // More than the node has scores 0 for that resource.
  CHECK(cluster::least_allocated_score(cluster::pod_requests_non_zero(pod("p", "x", "8", "1Gi")),
                                       c.at("node-1")) == (0 + (16 - 4 - 1) * 100 / 16) / 2);
}

TEST_CASE("NodeResourcesBalancedAllocation prefers equal shares of cpu and memory",
          "[cluster][scheduler]") {
  Cluster c{node("node-1", "a")};
  // Shares 2/4 = 0.5 and 4/16 = 0.25: (1 - 0.25 / 2) * 100 = 87.5, truncated.
  CHECK(cluster::balanced_allocation_score(cluster::pod_requests(pod("p", "x", "2", "4Gi")),
                                           c.at("node-1")) == 87);
  CHECK(cluster::balanced_allocation_score(cluster::pod_requests(pod("p", "x", "2", "8Gi")),
                                           c.at("node-1")) == 100);
  // The real requests count: a pod without any leaves the node's own balance.
  c.place(pod("running", "x", "4", "0"), "node-1");
  CHECK(cluster::balanced_allocation_score(cluster::pod_requests(pod("p", "x")), c.at("node-1")) ==
        50);
}

TEST_CASE("NodeAffinity sums the weights of the preferred terms a node matches",
          "[cluster][scheduler]") {
  json p = pod("p", "x");
  p["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array(
          {{{"weight", 80},
            {"preference",
             {{"matchExpressions", json::array({{{"key", "topology.kubernetes.io/zone"},
                                                 {"operator", "In"},
                                                 {"values", {"a"}}}})}}}},
           {{"weight", 20},
            {"preference",
             {{"matchExpressions", json::array({{{"key", "disk"}, {"operator", "Exists"}}})}}}},
           {{"weight", 50}, {"preference", json::object()}}});  // empty: matches nothing
  json ssd_b = node("node-3", "b");
  ssd_b["metadata"]["labels"]["disk"] = "ssd";
  json ssd_a = node("node-1", "a");
  ssd_a["metadata"]["labels"]["disk"] = "ssd";
  std::vector<int64_t> raw = {cluster::node_affinity_preference(p, ssd_a),
                              cluster::node_affinity_preference(p, node("node-2", "b")),
                              cluster::node_affinity_preference(p, ssd_b)};
  CHECK(raw == std::vector<int64_t>{100, 0, 20});
  cluster::normalize(raw, false);
  CHECK(raw == std::vector<int64_t>{100, 0, 20});
  std::vector<int64_t> halves = {40, 10, 0};
  cluster::normalize(halves, false);
  CHECK(halves == std::vector<int64_t>{100, 25, 0});
}

TEST_CASE("TaintToleration counts the PreferNoSchedule taints not tolerated, fewest best",
          "[cluster][scheduler]") {
  auto tainted = [](const std::string& name, std::initializer_list<const char*> keys) {
    json n = node(name, "a");
    n["spec"]["taints"] = json::array();
    for (const char* key : keys) {
      n["spec"]["taints"].push_back({{"key", key}, {"effect", "PreferNoSchedule"}});
    }
    n["spec"]["taints"].push_back({{"key", "hard"}, {"effect", "NoSchedule"}});  // not scored
    return n;
  };
  json p = pod("p", "x");
  p["spec"]["tolerations"] = json::array(
      {{{"key", "hard"}, {"operator", "Exists"}},
       {{"key", "gpu"}, {"operator", "Exists"}, {"effect", "PreferNoSchedule"}},
       {{"key", "spot"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});  // not this effect
  std::vector<int64_t> raw = {
      cluster::intolerable_preferred_taints(p, tainted("node-1", {"spot", "old"})),
      cluster::intolerable_preferred_taints(p, tainted("node-2", {"spot", "gpu"})),
      cluster::intolerable_preferred_taints(p, tainted("node-3", {"gpu"}))};
  CHECK(raw == std::vector<int64_t>{2, 1, 0});
  cluster::normalize(raw, true);
  CHECK(raw == std::vector<int64_t>{0, 50, 100});
  std::vector<int64_t> none = {0, 0};
  cluster::normalize(none, true);
  CHECK(none == std::vector<int64_t>{100, 100});
}

TEST_CASE("InterPodAffinity scores preferred terms by domain, min to max", "[cluster][scheduler]") {
  Cluster c{node("node-1", "a"), node("node-2", "a"), node("node-3", "b")};
  c.place(pod("cache-1", "cache"), "node-1");
  json p = pod("web", "web");
  p["spec"]["affinity"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array({weighted(10, "cache", "kubernetes.io/hostname")});
  CHECK(c.inter_pod(p) == std::vector<int64_t>{100, 0, 0});
  // By zone: the whole of zone a gains.
  p["spec"]["affinity"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array({weighted(10, "cache", "topology.kubernetes.io/zone")});
  CHECK(c.inter_pod(p) == std::vector<int64_t>{100, 100, 0});
  // Anti-affinity loses the weight: -5 on node-1, 0 elsewhere.
  p["spec"]["affinity"].erase("podAffinity");
  p["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array({weighted(5, "cache", "kubernetes.io/hostname")});
  CHECK(c.inter_pod(p) == std::vector<int64_t>{0, 100, 100});
  // No term concerns the pod: all 0.
  CHECK(c.inter_pod(pod("plain", "plain")) == std::vector<int64_t>{0, 0, 0});
}

TEST_CASE("InterPodAffinity also counts the placed pods' terms about the incoming pod",
          "[cluster][scheduler]") {
  Cluster c{node("node-1", "a"), node("node-2", "b"), node("node-3", "c")};
  json friendly = pod("friendly", "cache");
  friendly["spec"]["affinity"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array({weighted(7, "web", "kubernetes.io/hostname")});
  c.place(friendly, "node-1");
  json shy = pod("shy", "db");
  shy["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array({weighted(7, "web", "kubernetes.io/hostname")});
  c.place(shy, "node-2");
  // Required affinity of a placed pod counts at weight 1 (hardPodAffinityWeight).
  json needy = pod("needy", "queue");
  needy["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({{{"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                    {"topologyKey", "kubernetes.io/hostname"}}});
  c.place(needy, "node-3");
  // Raw: node-1 +7, node-2 -7, node-3 +1: scaled from -7 (0) to 7 (100).
  CHECK(c.inter_pod(pod("web", "web")) == std::vector<int64_t>{100, 0, 57});
}

TEST_CASE("PodTopologySpread ScheduleAnyway favours the emptier domains", "[cluster][scheduler]") {
  Cluster c{node("node-1", "a"), node("node-2", "b"), node("node-3", "c")};
  c.place(pod("w1", "web"), "node-1");
  c.place(pod("w2", "web"), "node-1");
  c.place(pod("w3", "web"), "node-2");
  c.place(pod("other", "db"), "node-3");
  json p = pod("w4", "web");
  p["spec"]["topologySpreadConstraints"] =
      json::array({{{"maxSkew", 1},
                    {"topologyKey", "kubernetes.io/hostname"},
                    {"whenUnsatisfiable", "ScheduleAnyway"},
                    {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}});
  // Counts 2, 1, 0 times log(3 + 2), rounded: 3, 2, 0; then 100 * (3 + 0 - s) / 3.
  CHECK(c.spread(p) == std::vector<int64_t>{0, 33, 100});
  // DoNotSchedule constraints do not score.
  p["spec"]["topologySpreadConstraints"][0]["whenUnsatisfiable"] = "DoNotSchedule";
  CHECK(c.spread(p) == std::vector<int64_t>{0, 0, 0});
}

TEST_CASE("PodTopologySpread's system defaults spread by the owner's selector",
          "[cluster][scheduler]") {
  Cluster c{node("node-1", "a"), node("node-2", "b"), node("node-3", "c")};
  c.place(pod("w1", "web"), "node-1");
  c.place(pod("w2", "web"), "node-1");
  c.place(pod("w3", "web"), "node-2");
  const json replica_set = {{"kind", "ReplicaSet"},
                            {"spec", {{"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
  const json p = pod("w4", "web");
  const json selector = cluster::default_spread_selector(p, {}, &replica_set);
  CHECK(selector ==
        json{{"matchLabels", json::object()},
             {"matchExpressions",
              json::array({{{"key", "app"}, {"operator", "In"}, {"values", {"web"}}}})}});
  // hostname (maxSkew 3) and zone (maxSkew 5), both over 3 domains (weight log 5):
  // node-1 2w + 2 + 2w + 4 = 12, node-2 w + 2 + w + 4 = 9, node-3 6; 100 * (18 - s) / 12.
  CHECK(c.spread(p, selector) == std::vector<int64_t>{50, 75, 100});
  // Nothing owns the pod and no service selects it: nothing to spread.
  CHECK(cluster::default_spread_selector(p, {}, nullptr).is_null());
  CHECK(c.spread(p, nullptr) == std::vector<int64_t>{0, 0, 0});
  // Services that select the pod add their selectors; others do not.
  const json web_service = {{"spec", {{"selector", {{"app", "web"}}}}}};
  const json db_service = {{"spec", {{"selector", {{"app", "db"}}}}}};
  CHECK(cluster::default_spread_selector(p, {&web_service, &db_service}, nullptr) ==
        json{{"matchLabels", {{"app", "web"}}}});
}

TEST_CASE("the weighted total decides and ties go to a random best node", "[cluster][scheduler]") {
  Cluster c{node("node-1", "a"), node("node-2", "b")};
  c.place(pod("busy", "x", "3", "12Gi"), "node-1");
  json p = pod("p", "x", "100m", "128Mi");
  // Unconstrained, the emptier node wins on NodeResourcesFit.
  auto scores = cluster::prioritize(p, c.cache.nodes(), c.cache.nodes(), {});
  REQUIRE(scores.size() == 2);
  CHECK(scores[0].plugins["NodeResourcesFit"] < scores[1].plugins["NodeResourcesFit"]);
  CHECK(scores[0].plugins["TaintToleration"] == 100);
  int64_t total = 0;
  for (const auto& [plugin, score] : scores[0].plugins) {
    const int64_t weight =
        plugin == "TaintToleration" ? 3
        : plugin == "NodeAffinity" || plugin == "PodTopologySpread" || plugin == "InterPodAffinity"
            ? 2
            : 1;
    total += weight * score;
  }
  CHECK(scores[0].total == total);
  std::mt19937 random(7);
  CHECK(scores[cluster::select_host(scores, random)].node == "node-2");
  // A preferred node affinity (weight 2 x 100) outweighs the resources' difference.
  p["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      json::array({{{"weight", 1},
                    {"preference",
                     {{"matchFields", json::array({{{"key", "metadata.name"},
                                                    {"operator", "In"},
                                                    {"values", {"node-1"}}}})}}}}});
  scores = cluster::prioritize(p, c.cache.nodes(), c.cache.nodes(), {});
  CHECK(scores[cluster::select_host(scores, random)].node == "node-1");
  // Equal totals: each is taken some of the time.
  std::vector<cluster::NodeScore> ties = {{"a", {}, 5}, {"b", {}, 7}, {"c", {}, 7}};
  int b = 0;
  for (int i = 0; i < 200; ++i) {
    const size_t chosen = cluster::select_host(ties, random);
    CHECK(chosen != 0);
    b += chosen == 1 ? 1 : 0;
  }
  CHECK(b > 50);
  CHECK(b < 150);
}

TEST_CASE("large clusters are filtered until enough nodes fit", "[cluster][scheduler]") {
  CHECK(cluster::feasible_nodes_to_find(3) == 3);
  CHECK(cluster::feasible_nodes_to_find(99) == 99);
  CHECK(cluster::feasible_nodes_to_find(150) == 100);     // 49% of 150 is below the floor
  CHECK(cluster::feasible_nodes_to_find(1000) == 420);    // 50% - 8%
  CHECK(cluster::feasible_nodes_to_find(5000) == 500);    // 50% - 40%
  CHECK(cluster::feasible_nodes_to_find(20000) == 1000);  // at least 5%
}
