// The DaemonSet controller's pure parts (workloads/daemon_set_utils): which nodes want a daemon
// pod, the pod made for one, what to create and delete, the rolling update and the status.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "client/informer.h"
#include "workloads/daemon_set_utils.h"

using nlohmann::json;

namespace {

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

json daemon_set() {
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "DaemonSet"},
      {"metadata",
       {{"name", "agent"}, {"namespace", "kube-system"}, {"uid", "d1"}, {"generation", 3}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
        {"updateStrategy",
         {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 1}, {"maxSurge", 0}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "agent"}}}}},
          {"spec", {{"containers", json::array({{{"name", "a"}, {"image", "agent:1"}}})}}}}}}}};
}

cluster::ObjectPtr node(const std::string& name, json taints = json::array(),
                        json labels = json::object()) {
  return std::make_shared<const json>(
      json{{"metadata", {{"name", name}, {"labels", labels}}}, {"spec", {{"taints", taints}}}});
}

// A daemon pod for `node_name` made from revision `hash`: "ready", "pending", "failed".
cluster::ObjectPtr pod(const std::string& name, const std::string& node_name,
                       const std::string& state, const std::string& hash = "h1",
                       const std::string& created = "2026-01-01T00:00:00Z") {
  const json ds = daemon_set();
  json p = cluster::new_daemon_pod(ds, cluster::daemon_pod_template(ds, hash), node_name);
  p["metadata"]["name"] = name;
  p["metadata"]["creationTimestamp"] = created;
  p["status"]["phase"] = state == "ready" ? "Running" : state == "failed" ? "Failed" : "Pending";
  if (state == "ready") {
    p["status"]["conditions"] = json::array(
        {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}}});
  }
  return std::make_shared<const json>(std::move(p));
}

}  // namespace

TEST_CASE("daemon pods tolerate the node conditions' taints", "[cluster][daemonset]") {
  json spec = {{"tolerations", json::array({{{"key", "node.kubernetes.io/unschedulable"},
                                             {"operator", "Exists"},
                                             {"effect", "NoSchedule"}}})}};
  cluster::add_daemon_tolerations(spec);
  std::vector<std::string> keys;
  for (const json& t : spec["tolerations"]) {
    keys.push_back(t["key"].get<std::string>() + ":" + t["effect"].get<std::string>());
  }
  CHECK(keys == std::vector<std::string>{"node.kubernetes.io/unschedulable:NoSchedule",
                                         "node.kubernetes.io/not-ready:NoExecute",
                                         "node.kubernetes.io/unreachable:NoExecute",
                                         "node.kubernetes.io/disk-pressure:NoSchedule",
                                         "node.kubernetes.io/memory-pressure:NoSchedule",
                                         "node.kubernetes.io/pid-pressure:NoSchedule"});
  json host = {{"hostNetwork", true}};
  cluster::add_daemon_tolerations(host);
  CHECK(host["tolerations"].size() == 7);
  CHECK(host["tolerations"][6]["key"] == "node.kubernetes.io/network-unavailable");
}

TEST_CASE("a daemon pod is pinned to its node by node affinity", "[cluster][daemonset]") {
  const json preferred = {{"weight", 1}, {"preference", json::object()}};
  json affinity = {
      {"nodeAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         {{"nodeSelectorTerms",
           json::array({{{"matchExpressions",
                          json::array({{{"key", "zone"}, {"operator", "Exists"}}})}}})}}},
        {"preferredDuringSchedulingIgnoredDuringExecution", json::array({preferred})}}}};
  const json pinned = cluster::pin_to_node(affinity, "node-2");
  CHECK(pinned["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] ==
        json{{"nodeSelectorTerms",
              json::array({{{"matchFields", json::array({{{"key", "metadata.name"},
                                                          {"operator", "In"},
                                                          {"values", {"node-2"}}}})}}})}});
  CHECK(pinned["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0] == preferred);

  const json p = *pod("agent-x", "node-2", "pending", "h9");
  CHECK(cluster::daemon_pod_node(p) == "node-2");
  CHECK(p["metadata"]["generateName"] == "agent-");
  CHECK(p["metadata"]["labels"] == json{{"app", "agent"}, {"controller-revision-hash", "h9"}});
  CHECK_FALSE(p["spec"].contains("nodeName"));
  json bound = p;
  bound["spec"]["nodeName"] = "node-3";
  CHECK(cluster::daemon_pod_node(bound) == "node-3");
}

TEST_CASE("which nodes want a daemon pod", "[cluster][daemonset]") {
  json ds = daemon_set();
  const json no_schedule = {{"key", "dedicated"}, {"value", "db"}, {"effect", "NoSchedule"}};
  const json no_execute = {{"key", "dedicated"}, {"value", "db"}, {"effect", "NoExecute"}};
  const json not_ready = {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}};
  auto fit = [&](const cluster::ObjectPtr& n) {
    const auto f = cluster::daemon_node_fit(ds, *n);
    return std::pair{f.should_run, f.may_keep_running};
  };
  CHECK(fit(node("n1")) == std::pair{true, true});
  CHECK(fit(node("n1", json::array({not_ready}))) == std::pair{true, true});
  CHECK(fit(node("n1", json::array({no_schedule}))) == std::pair{false, true});
  CHECK(fit(node("n1", json::array({no_execute}))) == std::pair{false, false});
  ds["spec"]["template"]["spec"]["tolerations"] =
      json::array({{{"key", "dedicated"}, {"operator", "Exists"}}});
  CHECK(fit(node("n1", json::array({no_execute}))) == std::pair{true, true});
  ds["spec"]["template"]["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  CHECK(fit(node("n1")) == std::pair{false, false});
  CHECK(fit(node("n1", json::array(), {{"disk", "ssd"}})) == std::pair{true, true});
  ds["spec"]["template"]["spec"]["nodeName"] = "n2";
  CHECK(fit(node("n1", json::array(), {{"disk", "ssd"}})) == std::pair{false, false});
}

TEST_CASE("the manage pass creates missing pods and deletes extra ones", "[cluster][daemonset]") {
  const json ds = daemon_set();
  const json no_execute = {{"key", "gone"}, {"effect", "NoExecute"}};
  const json no_schedule = {{"key", "new"}, {"effect", "NoSchedule"}};
  const std::vector<cluster::ObjectPtr> nodes = {
      node("n1"), node("n2"), node("n3", json::array({no_execute})),
      node("n4", json::array({no_schedule})), node("n5")};
  const std::vector<cluster::ObjectPtr> pods = {
      pod("a-old", "n2", "ready", "h1", "2026-01-01T00:00:00Z"),
      pod("a-new", "n2", "ready", "h1", "2026-01-02T00:00:00Z"),
      pod("a-n3", "n3", "ready"),
      pod("a-n4", "n4", "ready"),
      pod("a-n5", "n5", "failed"),
      pod("a-gone", "n9", "ready")};
  const auto plan = cluster::plan_daemon_set(ds, nodes, pods);
  CHECK(plan.create_on == std::vector<std::string>{"n1"});
  CHECK(plan.delete_pods == std::vector<std::string>{"a-new", "a-n3", "a-n5"});
  REQUIRE(plan.failed.size() == 1);
  CHECK((*plan.failed[0])["metadata"]["name"] == "a-n5");

  const json status = cluster::daemon_status(ds, nodes, pods, "h1", 0, kNow);
  CHECK(status == json{{"currentNumberScheduled", 2},
                       {"numberMisscheduled", 2},
                       {"desiredNumberScheduled", 3},
                       {"numberReady", 1},
                       {"numberAvailable", 1},
                       {"numberUnavailable", 2},
                       {"updatedNumberScheduled", 2},
                       {"observedGeneration", 3}});
}

TEST_CASE("a rolling update deletes at most maxUnavailable available old pods",
          "[cluster][daemonset]") {
  json ds = daemon_set();
  const std::vector<cluster::ObjectPtr> nodes = {node("n1"), node("n2"), node("n3")};
  CHECK(cluster::daemon_max_unavailable(ds, 3) == 1);
  const std::vector<cluster::ObjectPtr> old = {pod("a1", "n1", "ready"), pod("a2", "n2", "ready"),
                                               pod("a3", "n3", "ready")};
  CHECK(cluster::rolling_update_deletions(ds, nodes, old, "h2", kNow).size() == 1);
  CHECK(cluster::rolling_update_deletions(ds, nodes, old, "h1", kNow).empty());
  // A new pod not yet available uses up the budget.
  const std::vector<cluster::ObjectPtr> one_new = {
      pod("b1", "n1", "pending", "h2"), pod("a2", "n2", "ready"), pod("a3", "n3", "ready")};
  CHECK(cluster::rolling_update_deletions(ds, nodes, one_new, "h2", kNow).empty());
  // An unavailable old pod is always replaced, outside the budget.
  const std::vector<cluster::ObjectPtr> broken = {
      pod("a1", "n1", "pending"), pod("a2", "n2", "ready"), pod("a3", "n3", "ready")};
  const auto deletions = cluster::rolling_update_deletions(ds, nodes, broken, "h2", kNow);
  REQUIRE(deletions.size() == 2);
  CHECK(deletions[0] == "a1");

  ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = "50%";
  CHECK(cluster::daemon_max_unavailable(ds, 3) == 2);
  CHECK(cluster::rolling_update_deletions(ds, nodes, old, "h2", kNow).size() == 2);
  ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = 0;
  CHECK(cluster::daemon_max_unavailable(ds, 3) == 1);
}
