// The scheduler's filters over the other pods: pod affinity and anti-affinity
// (scheduler/inter_pod) and topology spread (scheduler/spread), over the per-node cache
// (scheduler/cache).
#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "scheduler/cache.h"
#include "scheduler/inter_pod.h"
#include "scheduler/spread.h"
#include "scheduler_test_support.h"

using nlohmann::json;

namespace {

using scheduler_test::node;
using scheduler_test::pod;

json term(const std::string& app, const std::string& key) {
  return {{"labelSelector", {{"matchLabels", {{"app", app}}}}}, {"topologyKey", key}};
}

struct Cluster : scheduler_test::Cluster {
  using scheduler_test::Cluster::Cluster;
  std::string inter_pod(const json& p, const json& n) const {
    return cluster::InterPodFilter(p, cache.nodes(), nullptr).misfit(n);
  }
  std::string spread(const json& p, const json& n) const {
    return cluster::SpreadFilter(p, cache.nodes()).misfit(n);
  }
};

}  // namespace

TEST_CASE("required pod anti-affinity keeps replicas apart", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "a");
  Cluster c{n1, n2};
  c.place(pod("web-1", "web"), "node-1");
  json web2 = pod("web-2", "web");
  web2["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("web", "kubernetes.io/hostname")});
  CHECK(c.inter_pod(web2, n1) == "node(s) didn't match pod anti-affinity rules");
  CHECK(c.inter_pod(web2, n2).empty());
  // By zone: both nodes are in zone a, so neither fits.
  web2["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("web", "topology.kubernetes.io/zone")});
  CHECK_FALSE(c.inter_pod(web2, n2).empty());
}

TEST_CASE("required pod affinity follows the selected pods; the first may go anywhere",
          "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  json cache = pod("cache-1", "cache");
  cache["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("cache", "topology.kubernetes.io/zone")});
  Cluster empty{n1, n2};
  CHECK(empty.inter_pod(cache, n2).empty());  // selects itself: the first
  Cluster one{n1, n2};
  one.place(pod("cache-0", "cache"), "node-1");
  CHECK(one.inter_pod(cache, n1).empty());
  CHECK(one.inter_pod(cache, n2) == "node(s) didn't match pod affinity rules");
  // A pod that does not select itself waits for one it selects.
  json other = pod("other", "other");
  other["spec"]["affinity"] = cache["spec"]["affinity"];
  CHECK(empty.inter_pod(other, n1) == "node(s) didn't match pod affinity rules");
}

TEST_CASE("namespaceSelector picks the namespaces of the selected pods", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  Cluster c{n1, n2};
  json db = pod("db", "db");
  db["metadata"]["namespace"] = "data";
  c.place(db, "node-1");
  json app = pod("app", "app");
  json t = term("db", "kubernetes.io/hostname");
  t["namespaceSelector"] = {{"matchLabels", {{"team", "data"}}}};
  app["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({t});
  const json data_labels = {{"team", "data"}};
  cluster::NamespaceLabels labels = [&](const std::string& ns) -> const json* {
    return ns == "data" ? &data_labels : nullptr;
  };
  cluster::InterPodFilter filter(app, c.cache.nodes(), labels);
  CHECK(filter.misfit(n1).empty());
  CHECK(filter.misfit(n2) == "node(s) didn't match pod affinity rules");
  // Without the namespace's labels, the db pod is in no selected namespace.
  CHECK(c.inter_pod(app, n1) == "node(s) didn't match pod affinity rules");
}

TEST_CASE("topology spread with DoNotSchedule bounds the skew", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  Cluster c{n1, n2};
  c.place(pod("p1", "web"), "node-1");
  c.place(pod("p2", "web"), "node-1");
  json next = pod("p3", "web");
  next["spec"]["topologySpreadConstraints"] =
      json::array({{{"maxSkew", 1},
                    {"topologyKey", "topology.kubernetes.io/zone"},
                    {"whenUnsatisfiable", "DoNotSchedule"},
                    {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}});
  CHECK(c.spread(next, n1) == "node(s) didn't match pod topology spread constraints");
  CHECK(c.spread(next, n2).empty());
  const json bare = {{"metadata", {{"name", "node-3"}}}};
  CHECK(c.spread(next, bare) ==
        "node(s) didn't match pod topology spread constraints (missing required label)");
  // Pods being deleted do not count.
  json leaving = pod("p2", "web");
  leaving["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  c.place(leaving, "node-1");
  c.place(pod("p4", "web"), "node-2");
  CHECK(c.spread(next, n1).empty());
  // minDomains above the domains there are: the least populated counts as 0.
  next["spec"]["topologySpreadConstraints"][0]["minDomains"] = 3;
  CHECK(c.spread(next, n1) == "node(s) didn't match pod topology spread constraints");
}

TEST_CASE("a placed pod's anti-affinity keeps selected pods off its node", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  json loner = pod("loner", "loner");
  loner["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("web", "kubernetes.io/hostname")});
  Cluster c{n1, n2};
  c.place(loner, "node-1");
  const json web = pod("web-1", "web");
  CHECK(c.inter_pod(web, n1) == "node(s) didn't satisfy existing pods anti-affinity rules");
  CHECK(c.inter_pod(web, n2).empty());
}

TEST_CASE("the cache sums each node's requests as pods come, are assumed and go",
          "[cluster][scheduler]") {
  cluster::SchedulerCache cache;
  cache.set_node(std::make_shared<const json>(node("node-1", "a")));
  json p = pod("p1", "web");
  p["spec"]["containers"] = json::array(
      {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "250m"}, {"memory", "1Gi"}}}}}}});
  auto pending = std::make_shared<const json>(p);
  cache.set_pod(pending);  // not bound: counted nowhere
  CHECK(cache.node("node-1")->pods.empty());
  cache.assume(pending, "node-1");
  const cluster::NodeInfo* n = cache.node("node-1");
  CHECK(n->requested.cpu == Approx(0.25));
  CHECK(n->requested.pods == Approx(1));
  // The informer's later view of the pod, still unbound, does not undo the assumption.
  cache.set_pod(pending);
  CHECK(cache.node_of("default/p1") == "node-1");
  // A container without requests counts 100m and 200Mi for the scores only.
  json bare = pod("p2", "web");
  bare["spec"]["containers"] = json::array({{{"name", "c"}}});
  bare["spec"]["nodeName"] = "node-1";
  cache.set_pod(std::make_shared<const json>(bare));
  CHECK(n->requested.cpu == Approx(0.25));
  CHECK(n->non_zero.cpu == Approx(0.35));
  CHECK(n->non_zero.memory == Approx(1024.0 * 1024 * 1024 + 200.0 * 1024 * 1024));
  // Done or deleted, a pod frees its room.
  bare["status"]["phase"] = "Succeeded";
  cache.set_pod(std::make_shared<const json>(bare));
  CHECK(n->requested.pods == Approx(1));
  cache.remove_pod("default/p1");
  CHECK(n->pods.empty());
  CHECK(n->requested.cpu == 0);
}
