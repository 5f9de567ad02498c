#include "nodes/node_lifecycle_controller.h"

#include "client/objects.h"

namespace cluster {
namespace {

const ResourceRef kNodes{"", "v1", "nodes", false};
const ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};
constexpr auto kGracePeriod = std::chrono::seconds(40);   // --node-monitor-grace-period
constexpr auto kMonitorPeriod = std::chrono::seconds(5);  // --node-monitor-period

const char* const kNotReady = "node.kubernetes.io/not-ready";
const char* const kUnreachable = "node.kubernetes.io/unreachable";

}  // namespace

NodeLifecycleController::NodeLifecycleController(const Client& client, const common::Clock& clock)
    : Controller("node-lifecycle-controller", clock),
      client_(client),
      events_(client, "node-controller", "", clock),
      nodes_(client, kNodes, {}, clock),
      leases_(client, kLeases, {{"fieldSelector", "metadata.namespace=kube-node-lease"}}, clock) {
  auto node_changed = [this](const json& n) { queue().add(name_of(n)); };
  nodes_.add_handlers({.added = node_changed,
                       .updated = [node_changed](const json&, const json& n) { node_changed(n); },
                       .deleted = {}});
}

NodeLifecycleController::~NodeLifecycleController() {
  stop();
  leases_.stop();
  nodes_.stop();
}

void NodeLifecycleController::start() {
  leases_.start();
  nodes_.start();
}

std::optional<std::string> NodeLifecycleController::sync(const std::string& name) {
  ObjectPtr node = nodes_.get("", name);
  if (node == nullptr) {
    return std::nullopt;
  }
  const auto wall = clock().system_now();
  // When the kubelet last said it is alive: its lease's renewTime, else the Ready heartbeat.
  std::optional<std::chrono::system_clock::time_point> alive;
  if (ObjectPtr lease = leases_.get("kube-node-lease", name)) {
    alive = parse_time(string_at(*lease, {"spec", "renewTime"}));
  }
  const json* ready = condition(*node, "Ready");
  if (!alive && ready != nullptr) {
    alive = parse_time(string_at(*ready, {"lastHeartbeatTime"}));
  }
  if (!alive) {
    alive = parse_time(string_at(*node, {"metadata", "creationTimestamp"}));
  }
  std::string ready_status = ready != nullptr ? string_at(*ready, {"status"}) : "Unknown";
  if (alive && wall - *alive > kGracePeriod && ready_status != "Unknown") {
    // The kubelet went quiet: every condition it reported becomes Unknown.
    json conditions = *at(*node, {"status", "conditions"});
    const std::string now = rfc3339(wall);
    for (json& c : conditions) {
      c["status"] = "Unknown";
      c["reason"] = "NodeStatusUnknown";
      c["message"] = "Kubelet stopped posting node status.";
      c["lastTransitionTime"] = now;
    }
    auto patched = client_.patch(kNodes.object("", name, "status"), "application/merge-patch+json",
                                 {{"status", {{"conditions", conditions}}}});
    if (!patched) {
      return "marking node " + name + " unknown: " + patched.error().message;
    }
    events_.record(*node, "Normal", "NodeNotReady",
                   "Node " + name + " status is now: NodeNotReady");
    ready_status = "Unknown";
  }
  // The taints that say why the node is not ready, and only those.
  json taints = json::array();
  bool changed = false;
  if (const json* current = at(*node, {"spec", "taints"}); current && current->is_array()) {
    for (const json& t : *current) {
      const std::string key = string_at(t, {"key"});
      if (key == kNotReady || key == kUnreachable) {
        const bool wanted = (key == kNotReady && ready_status == "False") ||
                            (key == kUnreachable && ready_status == "Unknown");
        if (!wanted) {
          changed = true;
          continue;
        }
      }
      taints.push_back(t);
    }
  }
  if (ready_status != "True") {
    const char* key = ready_status == "False" ? kNotReady : kUnreachable;
    for (const char* effect : {"NoSchedule", "NoExecute"}) {
      bool present = false;
      for (const json& t : taints) {
        present = present || (string_at(t, {"key"}) == key && string_at(t, {"effect"}) == effect);
      }
      if (!present) {
        json taint = {{"key", key}, {"effect", effect}};
        if (std::string(effect) == "NoExecute")
          taint["timeAdded"] = rfc3339(wall);
        taints.push_back(taint);
        changed = true;
      }
    }
  }
  if (changed) {
    auto patched = client_.patch(kNodes.object("", name), "application/merge-patch+json",
                                 {{"spec", {{"taints", taints.empty() ? json(nullptr) : taints}}}});
    if (!patched && !patched.error().not_found()) {
      return "updating the taints of node " + name + ": " + patched.error().message;
    }
  }
  requeue_after(name, kMonitorPeriod);
  return std::nullopt;
}

}  // namespace cluster
