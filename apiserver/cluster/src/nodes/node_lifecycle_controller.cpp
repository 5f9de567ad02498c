#include "nodes/node_lifecycle_controller.h"

#include <algorithm>

#include "apiserver/log.h"
#include "client/objects.h"
#include "nodes/node_pods.h"

namespace cluster {
namespace {

const ResourceRef kNodes{"", "v1", "nodes", false};
const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};
constexpr const char* kLeaseNamespace = "kube-node-lease";
constexpr const char* kMergePatch = "application/merge-patch+json";

// kube-controller-manager's defaults for the flags this controller does not take.
constexpr double kEvictionRate = 0.1;             // --node-eviction-rate
constexpr double kSecondaryEvictionRate = 0.01;   // --secondary-node-eviction-rate
constexpr size_t kLargeClusterSize = 50;          // --large-cluster-size-threshold
constexpr double kUnhealthyZoneThreshold = 0.55;  // --unhealthy-zone-threshold
constexpr auto kTaintRetry = std::chrono::milliseconds(50);
constexpr int kConflictRetries = 5;
constexpr const char* kExcludeDisruption = "node.kubernetes.io/exclude-disruption";

// How many nodes a second a zone in `state` with `size` nodes gets tainted.
double zone_rate(ZoneState state, size_t size) {
  if (state == ZoneState::PartialDisruption) {
    return size > kLargeClusterSize ? kSecondaryEvictionRate : 0;  // small: wait it out
  }
  return kEvictionRate;
}

json taint(const char* key, const char* effect) {
  return {{"key", key}, {"effect", effect}};
}

void log_failure(const std::optional<std::string>& failed) {
  if (failed) {
    apiserver::log::info(2, "node-lifecycle-controller: " + *failed);
  }
}

}  // namespace

NodeLifecycleController::NodeLifecycleController(const Client& client, Informer& pods,
                                                 Informer& nodes, NodeMonitorTiming timing,
                                                 const common::Clock& clock)
    : Controller("node-lifecycle-controller", clock),
      client_(client),
      timing_(timing),
      events_(client, "node-controller", "", clock),
      pods_(pods),
      nodes_(nodes),
      leases_(client, kLeases, {{"fieldSelector", "metadata.namespace=kube-node-lease"}}, clock) {
  auto node_changed = [this](const json& n) { queue().add("node/" + name_of(n)); };
  nodes_.add_handlers({.added = node_changed,
                       .updated = [node_changed](const json&, const json& n) { node_changed(n); },
                       .deleted = {}});
  // A pod bound to a node (or moved): marked not Ready when that node is not.
  pods_.add_handlers({.added =
                          [this](const json& p) {
                            if (!string_at(p, {"spec", "nodeName"}).empty())
                              queue().add("pod/" + Informer::key_of(p));
                          },
                      .updated =
                          [this](const json& old, const json& p) {
                            const std::string node = string_at(p, {"spec", "nodeName"});
                            if (!node.empty() && node != string_at(old, {"spec", "nodeName"}))
                              queue().add("pod/" + Informer::key_of(p));
                          },
                      .deleted = {}});
}

NodeLifecycleController::~NodeLifecycleController() {
  stop();
  leases_.stop();
}

void NodeLifecycleController::start() {
  leases_.start();
  queue().add("monitor");
}

void NodeLifecycleController::stop_informers() {
  leases_.stop();
}

std::optional<std::string> NodeLifecycleController::sync(const std::string& key) {
  if (key == "monitor") {
    return monitor();
  }
  if (key == "taint") {
    return taint_pass();
  }
  if (key.starts_with("node/")) {
    return sync_no_schedule(key.substr(5));
  }
  if (key.starts_with("pod/")) {
    return sync_pod(key.substr(4));
  }
  return std::nullopt;
}

std::optional<std::string> NodeLifecycleController::monitor() {
  requeue_after("monitor", timing_.monitor_period);
  const auto wall = clock().system_now();
  const std::vector<ObjectPtr> nodes = nodes_.list();
  see_new_and_removed_nodes(nodes);
  std::map<std::string, std::vector<std::string>> zones;  // zone -> its nodes' Ready now
  for (const ObjectPtr& node : nodes) {
    const std::string name = name_of(*node);
    const Readiness ready = update_health(*node, wall);
    if (!ready.written) {
      continue;
    }
    if (at(*node, {"metadata", "labels", kExcludeDisruption}) == nullptr) {
      zones[zone_of(*node)].push_back(ready.current);
    }
    if (ready.current.empty()) {
      continue;  // never reported Ready, still within its start-up grace period
    }
    taint_by_readiness(*node, ready.observed);
    if (ready.current != "True" && ready.observed == "True") {
      events_.record(*node, "Normal", "NodeNotReady",
                     "Node " + name + " status is now: NodeNotReady");
    } else if (retry_not_ready_.count(name) == 0 || ready.observed == "True") {
      retry_not_ready_.erase(name);
      continue;
    }
    if (mark_pods_not_ready(pods_on_node(pods_, name))) {
      retry_not_ready_.erase(name);
    } else {
      retry_not_ready_.insert(name);
    }
  }
  handle_disruption(zones, nodes);
  const bool waiting = std::any_of(tainters_.begin(), tainters_.end(),
                                   [](const auto& zone) { return !zone.second.empty(); });
  if (waiting) {
    queue().add("taint");
  }
  return std::nullopt;
}

void NodeLifecycleController::see_new_and_removed_nodes(const std::vector<ObjectPtr>& nodes) {
  std::set<std::string> present;
  for (const ObjectPtr& node : nodes) {
    present.insert(name_of(*node));
  }
  for (auto it = known_.begin(); it != known_.end();) {
    if (present.count(it->first) != 0) {
      ++it;
      continue;
    }
    events_.record(*it->second, "Normal", "RemovingNode",
                   "Node " + it->first + " event: Removing Node " + it->first + " from Controller");
    health_.erase(it->first);
    retry_not_ready_.erase(it->first);
    it = known_.erase(it);
  }
  for (const ObjectPtr& node : nodes) {
    const std::string name = name_of(*node);
    tainter(*node);  // its zone is known from now on
    auto [it, added] = known_.insert_or_assign(name, node);
    if (added) {
      events_.record(*node, "Normal", "RegisteredNode",
                     "Node " + name + " event: Registered Node " + name + " in Controller");
      mark_reachable(*node);
    }
  }
}

NodeLifecycleController::Readiness NodeLifecycleController::update_health(
    const json& node, std::chrono::system_clock::time_point wall) {
  const std::string name = name_of(node);
  const json* ready = condition(node, "Ready");
  Readiness result;
  result.observed = ready != nullptr ? string_at(*ready, {"status"}) : "Unknown";
  result.current = ready != nullptr ? result.observed : "";
  // A sign of life: a new Ready heartbeat, or a renewed lease, seen now.
  const std::string heartbeat = ready != nullptr ? string_at(*ready, {"lastHeartbeatTime"}) : "";
  auto it = health_.find(name);
  if (it == health_.end()) {
    Health first;
    first.probe =
        ready != nullptr
            ? wall
            : parse_time(string_at(node, {"metadata", "creationTimestamp"})).value_or(wall);
    first.heartbeat = heartbeat;
    it = health_.emplace(name, first).first;
  } else if (heartbeat != it->second.heartbeat) {
    it->second.probe = wall;
    it->second.heartbeat = heartbeat;
  }
  Health& health = it->second;
  if (ObjectPtr lease = leases_.get(kLeaseNamespace, name)) {
    const std::string renewed = string_at(*lease, {"spec", "renewTime"});
    if (!renewed.empty() && renewed != health.renew_time) {
      health.renew_time = renewed;
      health.probe = wall;
    }
  }
  const auto grace = ready != nullptr ? timing_.grace_period : timing_.startup_grace_period;
  if (wall <= health.probe + grace) {
    return result;
  }
  // Silent for the grace period: what the kubelet reported is no longer known.
  const json conditions = unknown_conditions(node, rfc3339(wall));
  const json* now_ready = condition_in(conditions, "Ready");
  result.current = now_ready != nullptr ? string_at(*now_ready, {"status"}) : "Unknown";
  if (ready != nullptr && now_ready != nullptr && *ready == *now_ready) {
    return result;
  }
  auto patched = client_.patch(kNodes.object("", name, "status"), kMergePatch,
                               {{"metadata", {{"resourceVersion", resource_version_of(node)}}},
                                {"status", {{"conditions", conditions}}}});
  if (!patched) {
    log_failure("marking node " + name + " unknown: " + patched.error().message);
    result.written = false;
  }
  return result;
}

void NodeLifecycleController::taint_by_readiness(const json& node, const std::string& observed) {
  const std::string name = name_of(node);
  if (observed == "False" || observed == "Unknown") {
    const bool not_ready = observed == "False";
    const char* wanted = not_ready ? kTaintNotReady : kTaintUnreachable;
    const char* opposite = not_ready ? kTaintUnreachable : kTaintNotReady;
    if (has_taint(node, opposite, "NoExecute")) {
      // From one to the other at once, without waiting for the zone's turn.
      log_failure(swap_taints(name, {taint(wanted, "NoExecute")}, {taint(opposite, "NoExecute")}));
    } else {
      queue_for_taint(node, observed);
    }
  } else if (observed == "True") {
    mark_reachable(node);
  }
}

void NodeLifecycleController::queue_for_taint(const json& node, const std::string& status) {
  const std::string name = name_of(node);
  ZoneTainter& zone = tainter(node);
  const char* wanted = status == "False" ? kTaintNotReady : kTaintUnreachable;
  if (!has_taint(node, wanted, "NoExecute")) {
    zone.remove(name);  // tainted before and the taint is gone: queued again
  }
  zone.add(name);
}

void NodeLifecycleController::mark_reachable(const json& node) {
  const std::string name = name_of(node);
  if (has_taint(node, kTaintUnreachable, "NoExecute") ||
      has_taint(node, kTaintNotReady, "NoExecute")) {
    log_failure(swap_taints(
        name, {}, {taint(kTaintUnreachable, "NoExecute"), taint(kTaintNotReady, "NoExecute")}));
  }
  tainter(node).remove(name);
}

bool NodeLifecycleController::mark_pods_not_ready(const std::vector<ObjectPtr>& pods) {
  bool all = true;
  const std::string now = rfc3339(clock().system_now());
  for (const ObjectPtr& pod : pods) {
    const json* conditions = at(*pod, {"status", "conditions"});
    if (conditions == nullptr || !conditions->is_array()) {
      continue;
    }
    json updated = *conditions;
    bool changed = false;
    for (json& c : updated) {
      if (string_at(c, {"type"}) == "Ready" && string_at(c, {"status"}) != "False") {
        c["status"] = "False";
        c["lastTransitionTime"] = now;
        changed = true;
      }
    }
    if (!changed) {
      continue;
    }
    const std::string key = Informer::key_of(*pod);
    auto patched =
        client_.patch(kPods.object(namespace_of(*pod), name_of(*pod), "status"), kMergePatch,
                      {{"metadata", {{"resourceVersion", resource_version_of(*pod)}}},
                       {"status", {{"conditions", updated}}}});
    if (!patched) {
      if (patched.error().not_found()) {
        continue;
      }
      log_failure("marking pod " + key + " not ready: " + patched.error().message);
      all = false;
    }
    events_.record(*pod, "Warning", "NodeNotReady", "Node is not ready");
  }
  return all;
}

void NodeLifecycleController::handle_disruption(
    const std::map<std::string, std::vector<std::string>>& zones,
    const std::vector<ObjectPtr>& nodes) {
  std::map<std::string, ZoneState> fresh;
  bool all_down = true;
  for (const auto& [zone, readiness] : zones) {
    const auto ready = std::count(readiness.begin(), readiness.end(), "True");
    const auto not_ready = static_cast<std::ptrdiff_t>(readiness.size()) - ready;
    const ZoneState state =
        zone_state(static_cast<int>(ready), static_cast<int>(not_ready), kUnhealthyZoneThreshold);
    all_down = all_down && state == ZoneState::FullDisruption;
    fresh[zone] = state;
    zone_states_.emplace(zone, ZoneState::Initial);
  }
  bool all_were_down = true;
  for (auto it = zone_states_.begin(); it != zone_states_.end();) {
    if (zones.count(it->first) == 0) {
      it = zone_states_.erase(it);
      continue;
    }
    all_were_down = all_were_down && it->second == ZoneState::FullDisruption;
    ++it;
  }
  if (all_down && all_were_down) {
    return;
  }
  if (all_down) {
    // Every node down: more likely this controller's view than the nodes. Evict nothing.
    apiserver::log::info(0,
                         "node-lifecycle-controller: every node is not Ready: entering master "
                         "disruption mode (no NoExecute taints)");
    for (const ObjectPtr& node : nodes) {
      mark_reachable(*node);
    }
    for (auto& [zone, state] : zone_states_) {
      set_zone_rate(zone, 0);
      state = ZoneState::FullDisruption;
    }
    return;
  }
  if (all_were_down) {
    apiserver::log::info(0,
                         "node-lifecycle-controller: some nodes are Ready: exiting master "
                         "disruption mode");
    const auto wall = clock().system_now();
    for (auto& [name, health] : health_) {
      health.probe = wall;  // every node gets its grace period again
    }
  }
  for (auto& [zone, state] : zone_states_) {
    const ZoneState now = fresh[zone];
    if (!all_were_down && state == now) {
      continue;
    }
    apiserver::log::info(
        2, "node-lifecycle-controller: zone " + zone + " is now " + zone_state_name(now));
    set_zone_rate(zone, zone_rate(now, zones.at(zone).size()));
    state = now;
  }
}

void NodeLifecycleController::set_zone_rate(const std::string& zone, double rate) {
  if (auto it = tainters_.find(zone); it != tainters_.end()) {
    it->second.set_rate(rate, clock().now());
  }
}

ZoneTainter& NodeLifecycleController::tainter(const json& node) {
  const std::string zone = zone_of(node);
  auto it = tainters_.find(zone);
  if (it == tainters_.end()) {
    it = tainters_.emplace(zone, ZoneTainter(kEvictionRate, clock().now())).first;
  }
  return it->second;
}

std::optional<std::string> NodeLifecycleController::taint_pass() {
  const auto now = clock().now();
  std::optional<common::Clock::time_point> wake;
  for (auto& [zone, waiting] : tainters_) {
    while (auto name = waiting.next(now)) {
      ObjectPtr node = nodes_.get("", *name);
      const json* ready = node != nullptr ? condition(*node, "Ready") : nullptr;
      if (node == nullptr) {
        waiting.done(*name);
        continue;
      }
      if (ready == nullptr) {
        waiting.retry(*name, now + kTaintRetry);
        continue;
      }
      const std::string status = string_at(*ready, {"status"});
      std::optional<std::string> failed;
      if (status == "False") {
        failed = swap_taints(*name, {taint(kTaintNotReady, "NoExecute")},
                             {taint(kTaintUnreachable, "NoExecute")});
      } else if (status == "Unknown") {
        failed = swap_taints(*name, {taint(kTaintUnreachable, "NoExecute")},
                             {taint(kTaintNotReady, "NoExecute")});
      }
      if (failed) {
        log_failure(failed);
        waiting.retry(*name, now + kTaintRetry);
      } else {
        waiting.done(*name);  // tainted, or Ready again and not to be tainted
      }
    }
    if (auto at_time = waiting.wake_at(now)) {
      wake = wake ? std::min(*wake, *at_time) : *at_time;
    }
  }
  if (wake) {
    requeue_after("taint",
                  std::max<common::Clock::duration>(*wake - now, std::chrono::milliseconds(1)));
  }
  return std::nullopt;
}

std::optional<std::string> NodeLifecycleController::sync_no_schedule(const std::string& name) {
  ObjectPtr node = nodes_.get("", name);
  if (node == nullptr) {
    return std::nullopt;
  }
  // The conditions' taints, and the unschedulable one of a cordoned node, as upstream's
  // NoSchedule tainting pass.
  std::vector<json> wanted = condition_taints(*node);
  if (const json* cordoned = at(*node, {"spec", "unschedulable"});
      cordoned != nullptr && cordoned->is_boolean() && cordoned->get<bool>()) {
    wanted.push_back(taint(kTaintUnschedulable, "NoSchedule"));
  }
  std::vector<json> present;
  if (const json* taints = at(*node, {"spec", "taints"}); taints && taints->is_array()) {
    for (const json& t : *taints) {
      const std::string key = string_at(t, {"key"});
      if (string_at(t, {"effect"}) == "NoSchedule" &&
          (condition_taint_key(key) || key == kTaintUnschedulable)) {
        present.push_back(t);
      }
    }
  }
  auto missing_from = [](const std::vector<json>& from, const std::vector<json>& what) {
    std::vector<json> out;
    for (const json& t : what) {
      const bool found = std::any_of(from.begin(), from.end(), [&](const json& f) {
        return string_at(f, {"key"}) == string_at(t, {"key"});
      });
      if (!found) {
        out.push_back(taint(string_at(t, {"key"}).c_str(), "NoSchedule"));
      }
    }
    return out;
  };
  const std::vector<json> add = missing_from(present, wanted);
  const std::vector<json> remove = missing_from(wanted, present);
  if (add.empty() && remove.empty()) {
    return std::nullopt;
  }
  return swap_taints(name, add, remove);
}

std::optional<std::string> NodeLifecycleController::sync_pod(const std::string& key) {
  ObjectPtr pod = pod_by_key(pods_, key);
  const std::string node_name = pod ? string_at(*pod, {"spec", "nodeName"}) : std::string();
  ObjectPtr node = pod ? nodes_.get("", node_name) : nullptr;
  if (node == nullptr || health_.count(node_name) == 0) {
    return std::nullopt;  // gone, or its node not looked at yet: the next monitor pass does
  }
  const json* ready = condition(*node, "Ready");
  if (ready == nullptr || string_at(*ready, {"status"}) == "True") {
    return std::nullopt;
  }
  if (!mark_pods_not_ready({pod})) {
    return "marking pod " + key + " not ready failed";
  }
  return std::nullopt;
}

std::optional<std::string> NodeLifecycleController::swap_taints(const std::string& name,
                                                                const std::vector<json>& add,
                                                                const std::vector<json>& remove) {
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    auto node = client_.get(kNodes.object("", name));
    if (!node) {
      if (node.error().not_found()) {
        return std::nullopt;
      }
      return "reading node " + name + ": " + node.error().message;
    }
    const json* taints = at(*node, {"spec", "taints"});
    auto changed = with_taints(taints != nullptr ? *taints : json(nullptr), add, remove,
                               rfc3339(clock().system_now()));
    if (!changed) {
      return std::nullopt;
    }
    auto patched =
        client_.patch(kNodes.object("", name), kMergePatch,
                      {{"metadata", {{"resourceVersion", resource_version_of(*node)}}},
                       {"spec", {{"taints", changed->empty() ? json(nullptr) : *changed}}}});
    if (patched || patched.error().not_found()) {
      return std::nullopt;
    }
    if (!patched.error().conflict()) {
      return "updating the taints of node " + name + ": " + patched.error().message;
    }
  }
  return "updating the taints of node " + name + ": conflicts " + std::to_string(kConflictRetries) +
         " times in a row";
}

}  // namespace cluster
