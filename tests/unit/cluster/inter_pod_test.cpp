// The scheduler's filters over the other pods (scheduler/inter_pod): pod affinity and
// anti-affinity, and topology spread.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scheduler/inter_pod.h"

using nlohmann::json;

namespace {

json node(const std::string& name, const std::string& zone) {
  return {
      {"metadata",
       {{"name", name},
        {"labels", {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}}}}}};
}

json pod(const std::string& name, const std::string& app) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
          {"spec", json::object()}};
}

json term(const std::string& app, const std::string& key) {
  return {{"labelSelector", {{"matchLabels", {{"app", app}}}}}, {"topologyKey", key}};
}

}  // namespace

TEST_CASE("required pod anti-affinity keeps replicas apart", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "a");
  const json web1 = pod("web-1", "web");
  cluster::Placement placement{{&n1, &n2}, {{"node-1", {&web1}}}, {}};
  json web2 = pod("web-2", "web");
  web2["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("web", "kubernetes.io/hostname")});
  CHECK(cluster::inter_pod_misfits(web2, n1, placement) ==
        std::vector<std::string>{"node(s) didn't match pod anti-affinity rules"});
  CHECK(cluster::inter_pod_misfits(web2, n2, placement).empty());
  // By zone: both nodes are in zone a, so neither fits.
  web2["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("web", "topology.kubernetes.io/zone")});
  CHECK_FALSE(cluster::inter_pod_misfits(web2, n2, placement).empty());
}

TEST_CASE("required pod affinity follows the selected pods; the first may go anywhere",
          "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  json cache = pod("cache-1", "cache");
  cache["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("cache", "topology.kubernetes.io/zone")});
  cluster::Placement empty{{&n1, &n2}, {}, {}};
  CHECK(cluster::inter_pod_misfits(cache, n2, empty).empty());  // selects itself: the first
  const json placed = pod("cache-0", "cache");
  cluster::Placement one{{&n1, &n2}, {{"node-1", {&placed}}}, {}};
  CHECK(cluster::inter_pod_misfits(cache, n1, one).empty());
  CHECK(cluster::inter_pod_misfits(cache, n2, one) ==
        std::vector<std::string>{"node(s) didn't match pod affinity rules"});
}

TEST_CASE("topology spread with DoNotSchedule bounds the skew", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  const json p1 = pod("p1", "web"), p2 = pod("p2", "web");
  cluster::Placement placement{{&n1, &n2}, {{"node-1", {&p1, &p2}}}, {}};
  json next = pod("p3", "web");
  next["spec"]["topologySpreadConstraints"] =
      json::array({{{"maxSkew", 1},
                    {"topologyKey", "topology.kubernetes.io/zone"},
                    {"whenUnsatisfiable", "DoNotSchedule"},
                    {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}});
  CHECK(cluster::inter_pod_misfits(next, n1, placement) ==
        std::vector<std::string>{"node(s) didn't match pod topology spread constraints"});
  CHECK(cluster::inter_pod_misfits(next, n2, placement).empty());
  const json bare = {{"metadata", {{"name", "node-3"}}}};
  CHECK(cluster::inter_pod_misfits(next, bare, placement) ==
        std::vector<std::string>{
            "node(s) didn't match pod topology spread constraints (missing required label)"});
}

TEST_CASE("a placed pod's anti-affinity keeps selected pods off its node", "[cluster][scheduler]") {
  const json n1 = node("node-1", "a"), n2 = node("node-2", "b");
  json loner = pod("loner", "loner");
  loner["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::array({term("web", "kubernetes.io/hostname")});
  cluster::Placement placement{{&n1, &n2}, {}, {}};
  placement.place("node-1", &loner);
  const json web = pod("web-1", "web");
  CHECK(cluster::inter_pod_misfits(web, n1, placement) ==
        std::vector<std::string>{"node(s) didn't satisfy existing pods anti-affinity rules"});
  CHECK(cluster::inter_pod_misfits(web, n2, placement).empty());
}
