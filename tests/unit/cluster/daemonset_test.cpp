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
  const auto plan = cluster::plan_daemon_set(ds, nodes, pods, "h1", kNow);
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

TEST_CASE("a node whose daemon pod is going waits for it unless the DaemonSet surges",
          "[cluster][daemonset]") {
  json ds = daemon_set();
  const std::vector<cluster::ObjectPtr> nodes = {node("n1"), node("n2")};
  json going = *pod("a1", "n1", "ready");
  going["metadata"]["deletionTimestamp"] = "2026-01-03T00:00:00Z";
  json finished = *pod("a2", "n2", "ready");
  finished["status"]["phase"] = "Succeeded";
  const std::vector<cluster::ObjectPtr> pods = {std::make_shared<const json>(going),
                                                std::make_shared<const json>(finished)};
  auto plan = cluster::plan_daemon_set(ds, nodes, pods, "h1", kNow);
  CHECK(plan.create_on.empty());
  CHECK(plan.delete_pods == std::vector<std::string>{"a2"});  // succeeded: deleted, not failed
  CHECK(plan.failed.empty());
  // The pod being deleted still holds its node in the status.
  CHECK(cluster::daemon_status(ds, nodes, pods, "h1", 0, kNow)["currentNumberScheduled"] == 2);

  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxSurge", 1}, {"maxUnavailable", 0}};
  plan = cluster::plan_daemon_set(ds, nodes, pods, "h1", kNow);
  CHECK(plan.create_on == std::vector<std::string>{"n1", "n2"});
}

TEST_CASE("the update budgets scale against the nodes that want a pod", "[cluster][daemonset]") {
  json ds = daemon_set();
  auto budgets = [&](int64_t desired) {
    const auto b = cluster::daemon_budgets(ds, desired);
    return std::pair{b.surge, b.unavailable};
  };
  CHECK(budgets(3) == std::pair<int64_t, int64_t>{0, 1});
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxSurge", "50%"}, {"maxUnavailable", 0}};
  CHECK(budgets(3) == std::pair<int64_t, int64_t>{2, 0});  // rounds up
  CHECK(cluster::daemon_allows_surge(ds));
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxSurge", 0}, {"maxUnavailable", "50%"}};
  CHECK(budgets(3) == std::pair<int64_t, int64_t>{0, 2});
  CHECK_FALSE(cluster::daemon_allows_surge(ds));
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxSurge", 0}, {"maxUnavailable", 0}};
  CHECK(budgets(3) == std::pair<int64_t, int64_t>{0, 1});  // both 0 would never move
  CHECK(budgets(0) == std::pair<int64_t, int64_t>{0, 0});
  ds["spec"]["updateStrategy"] = {{"type", "OnDelete"}, {"rollingUpdate", {{"maxSurge", 1}}}};
  CHECK_FALSE(cluster::daemon_allows_surge(ds));
}

TEST_CASE("a rolling update deletes at most maxUnavailable available old pods",
          "[cluster][daemonset]") {
  json ds = daemon_set();
  const std::vector<cluster::ObjectPtr> nodes = {node("n1"), node("n2"), node("n3")};
  auto deletions = [&](const std::vector<cluster::ObjectPtr>& pods, const std::string& hash) {
    const auto plan = cluster::daemon_rolling_update(ds, nodes, pods, hash, kNow);
    CHECK(plan.create_on.empty());  // the manage pass creates the replacements
    return plan.delete_pods;
  };
  const std::vector<cluster::ObjectPtr> old = {pod("a1", "n1", "ready"), pod("a2", "n2", "ready"),
                                               pod("a3", "n3", "ready")};
  CHECK(deletions(old, "h2") == std::vector<std::string>{"a1"});
  CHECK(deletions(old, "h1").empty());
  // A new pod not yet available uses up the budget.
  const std::vector<cluster::ObjectPtr> one_new = {
      pod("b1", "n1", "pending", "h2"), pod("a2", "n2", "ready"), pod("a3", "n3", "ready")};
  CHECK(deletions(one_new, "h2").empty());
  // An unavailable old pod is always replaced, and counts against the budget.
  const std::vector<cluster::ObjectPtr> broken = {
      pod("a1", "n1", "pending"), pod("a2", "n2", "ready"), pod("a3", "n3", "ready")};
  CHECK(deletions(broken, "h2") == std::vector<std::string>{"a1"});
  // A node still without its pod counts as unavailable.
  CHECK(deletions({pod("a2", "n2", "ready"), pod("a3", "n3", "ready")}, "h2").empty());

  ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = "50%";
  CHECK(deletions(old, "h2") == std::vector<std::string>{"a1", "a2"});
}

TEST_CASE("with maxSurge a new pod starts next to the old one, which goes once it is available",
          "[cluster][daemonset]") {
  json ds = daemon_set();
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxSurge", 1}, {"maxUnavailable", 0}};
  const std::vector<cluster::ObjectPtr> nodes = {node("n1"), node("n2"), node("n3")};
  using Names = std::vector<std::string>;
  auto step = [&](const std::vector<cluster::ObjectPtr>& pods) {
    const auto plan = cluster::daemon_rolling_update(ds, nodes, pods, "h2", kNow);
    return std::pair{plan.create_on, plan.delete_pods};
  };
  const auto a1 = pod("a1", "n1", "ready"), a2 = pod("a2", "n2", "ready"),
             a3 = pod("a3", "n3", "ready");
  // One node surges at a time.
  CHECK(step({a1, a2, a3}) == std::pair{Names{"n1"}, Names{}});
  // While the new pod is not available, nothing more.
  const auto b1_pending = pod("b1", "n1", "pending", "h2", "2026-01-02T00:00:00Z");
  CHECK(step({a1, b1_pending, a2, a3}) == std::pair{Names{}, Names{}});
  // Available: the old pod goes, and the next node surges.
  const auto b1 = pod("b1", "n1", "ready", "h2", "2026-01-02T00:00:00Z");
  CHECK(step({a1, b1, a2, a3}) == std::pair{Names{"n2"}, Names{"a1"}});
  // An unavailable old pod is replaced at once, outside the budget.
  const auto a3_broken = pod("a3", "n3", "pending");
  CHECK(step({a1, b1_pending, a2, a3_broken}) == std::pair{Names{"n3"}, Names{}});
  // A node with two old pods is the manage pass's first.
  const auto a1_twin = pod("a1-twin", "n1", "ready");
  CHECK(step({a1, a1_twin, a2, a3}) == std::pair{Names{}, Names{}});

  // The manage pass keeps one old and one new pod on a node, the old one until the new one is
  // available (or the old one is not ready).
  auto manage = [&](const std::vector<cluster::ObjectPtr>& pods) {
    return cluster::plan_daemon_set(ds, {node("n1")}, pods, "h2", kNow).delete_pods;
  };
  CHECK(manage({a1, b1_pending}).empty());
  CHECK(manage({a1, b1}) == Names{"a1"});
  CHECK(manage({pod("a1", "n1", "pending"), b1_pending}) == Names{"a1"});
  const auto b1_twin = pod("b1-twin", "n1", "pending", "h2", "2026-01-03T00:00:00Z");
  CHECK(manage({a1, b1_pending, b1_twin}) == Names{"b1-twin"});
}

TEST_CASE("with maxSurge an old pod on a node that no longer wants one waits for the others",
          "[cluster][daemonset]") {
  json ds = daemon_set();
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxSurge", 1}, {"maxUnavailable", 0}};
  ds["spec"]["template"]["spec"]["nodeSelector"] = {{"pool", "b"}};
  const json b = {{"pool", "b"}};
  // n1 no longer fits (NoSchedule taint: its pod may keep running); n2 fits but has no pod yet.
  const json taint = {{"key", "x"}, {"effect", "NoSchedule"}};
  const std::vector<cluster::ObjectPtr> nodes = {node("n1", json::array({taint}), b),
                                                 node("n2", json::array(), b)};
  const auto a1 = pod("a1", "n1", "ready");
  auto deletions = [&](const std::vector<cluster::ObjectPtr>& pods) {
    return cluster::daemon_rolling_update(ds, nodes, pods, "h2", kNow).delete_pods;
  };
  CHECK(deletions({a1}).empty());  // 1 available, 1 wanted: nothing to spare
  CHECK(deletions({a1, pod("b2", "n2", "ready", "h2")}) == std::vector<std::string>{"a1"});
  CHECK(deletions({pod("a1", "n1", "pending")}) == std::vector<std::string>{"a1"});
}
