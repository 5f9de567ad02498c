// The scheduler's filters (scheduler/fit) and resource quantities (common/quantity).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cluster/cluster.h"
#include "common/quantity.h"
#include "nodes/taint_eviction_controller.h"
#include "scheduler/fit.h"

using nlohmann::json;

namespace {

json node(const std::string& cpu = "4", const std::string& memory = "16Gi") {
  return {{"metadata", {{"name", "node-1"}, {"labels", {{"zone", "a"}, {"disk", "ssd"}}}}},
          {"status", {{"allocatable", {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}}}}};
}

json pod_requesting(const std::string& cpu, const std::string& memory) {
  return {{"spec",
           {{"containers",
             json::array({{{"name", "c"},
                           {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}}})}}}};
}

}  // namespace

TEST_CASE("quantities read as numbers of base units", "[cluster][scheduler]") {
  CHECK(common::parse_quantity("100m") == Approx(0.1));
  CHECK(common::parse_quantity("2") == Approx(2));
  CHECK(common::parse_quantity("1.5") == Approx(1.5));
  CHECK(common::parse_quantity("128Mi") == Approx(128.0 * 1024 * 1024));
  CHECK(common::parse_quantity("1G") == Approx(1e9));
  CHECK(common::parse_quantity("1e3") == Approx(1000));
  CHECK_FALSE(common::parse_quantity(""));
  CHECK_FALSE(common::parse_quantity("lots"));
  CHECK_FALSE(common::parse_quantity("1Qi"));
}

TEST_CASE("a pod fits when its requests fit what is left", "[cluster][scheduler]") {
  cluster::Resources used{3.5, 0, 10};
  CHECK(cluster::misfits(pod_requesting("500m", "1Gi"), node(), used).empty());
  const auto why = cluster::misfits(pod_requesting("600m", "1Gi"), node(), used);
  REQUIRE(why.size() == 1);
  CHECK(why[0] == "Insufficient cpu");
  CHECK(cluster::misfits(pod_requesting("1", "17Gi"), node(), {}) ==
        std::vector<std::string>{"Insufficient memory"});
}

TEST_CASE("nodeSelector, node affinity, taints and cordons filter nodes", "[cluster][scheduler]") {
  json pod = pod_requesting("1", "1Gi");
  pod["spec"]["nodeSelector"] = {{"disk", "hdd"}};
  CHECK(cluster::misfits(pod, node(), {}) ==
        std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
  pod["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  CHECK(cluster::misfits(pod, node(), {}).empty());

  pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       json::array({{{"matchExpressions",
                      json::array({{{"key", "zone"}, {"operator", "In"}, {"values", {"b"}}}})}},
                    {{"matchFields", json::array({{{"key", "metadata.name"},
                                                   {"operator", "In"},
                                                   {"values", {"node-1"}}}})}}})}};
  CHECK(cluster::misfits(pod, node(), {}).empty());  // the second term matches

  json tainted = node();
  tainted["spec"]["taints"] =
      json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  CHECK(cluster::misfits(pod, tainted, {}) ==
        std::vector<std::string>{"node(s) had untolerated taint {dedicated: gpu}"});
  pod["spec"]["tolerations"] =
      json::array({{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "gpu"}}});
  CHECK(cluster::misfits(pod, tainted, {}).empty());

  json cordoned = node();
  cordoned["spec"]["unschedulable"] = true;
  CHECK(cluster::misfits(pod, cordoned, {}) ==
        std::vector<std::string>{"node(s) were unschedulable"});
}

TEST_CASE("the controllers flag reads as kube-controller-manager's", "[cluster]") {
  auto all = cluster::parse_controllers("*");
  REQUIRE(all);
  CHECK(all->count("replicaset-controller") == 1);
  auto without = cluster::parse_controllers("*,-replicaset");
  REQUIRE(without);
  CHECK(without->count("replicaset-controller") == 0);
  CHECK(without->count("scheduler") == 1);
  auto only = cluster::parse_controllers("replicaset-controller");
  REQUIRE(only);
  CHECK(*only == std::set<std::string>{"replicaset-controller"});
  auto unknown = cluster::parse_controllers("*,-nope");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error() == "\"nope\" is not in the list of known controllers");
}

TEST_CASE("a NoExecute taint evicts at once, after tolerationSeconds, or never",
          "[cluster][taints]") {
  const json taint = {{"key", "node.kubernetes.io/unreachable"}, {"effect", "NoExecute"}};
  json pod = {{"spec", json::object()}};
  CHECK(cluster::toleration_time(pod, taint) == std::chrono::seconds(0));
  pod["spec"]["tolerations"] = json::array({{{"key", "node.kubernetes.io/unreachable"},
                                             {"operator", "Exists"},
                                             {"effect", "NoExecute"},
                                             {"tolerationSeconds", 300}}});
  CHECK(cluster::toleration_time(pod, taint) == std::chrono::seconds(300));
  pod["spec"]["tolerations"].push_back({{"operator", "Exists"}});
  // The first matching toleration counts, as kube-controller-manager's GetMatchingTolerations.
  CHECK(cluster::toleration_time(pod, taint) == std::chrono::seconds(300));
  pod["spec"]["tolerations"].erase(0);
  CHECK_FALSE(cluster::toleration_time(pod, taint));  // an empty key with Exists tolerates all
}
