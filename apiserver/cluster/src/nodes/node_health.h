// What the node lifecycle controller decides about one node or one zone, as pure functions of the
// objects: the conditions it writes when a kubelet went quiet, the NoSchedule taints that mirror
// a node's conditions, how a taint list changes, and how healthy a zone is.
//
// Worked example: node-3's kubelet stops. Its lease is not renewed; once the grace period passed
// the controller writes unknown_conditions() (Ready, MemoryPressure, DiskPressure, PIDPressure
// become Unknown, "Kubelet stopped posting node status."). condition_taints() then wants
// node.kubernetes.io/unreachable:NoSchedule, and the tainting pass adds
// node.kubernetes.io/unreachable:NoExecute (with_taints(), each with its timeAdded). The zone of
// node-3 has no other node: zone_state() says FullDisruption, which still taints at the normal
// rate; only when every zone is fully disrupted does the controller stop tainting.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

inline constexpr const char* kTaintNotReady = "node.kubernetes.io/not-ready";
inline constexpr const char* kTaintUnreachable = "node.kubernetes.io/unreachable";
inline constexpr const char* kTaintUnschedulable = "node.kubernetes.io/unschedulable";

// The node's conditions once its kubelet stopped posting status, at `now` (RFC 3339): Ready,
// MemoryPressure, DiskPressure and PIDPressure Unknown (reason NodeStatusUnknown, message
// "Kubelet stopped posting node status.", lastTransitionTime now, lastHeartbeatTime kept); one
// that is missing is added (NodeStatusNeverUpdated, "Kubelet never posted node status.",
// lastHeartbeatTime the node's creation); one already Unknown and the others stay as they are.
json unknown_conditions(const json& node, const std::string& now);

// The NoSchedule taints the node's conditions call for (kube-controller-manager's map): Ready
// False -> not-ready, Ready Unknown -> unreachable, MemoryPressure, DiskPressure, PIDPressure or
// NetworkUnavailable True -> memory-pressure, disk-pressure, pid-pressure, network-unavailable.
std::vector<json> condition_taints(const json& node);
// Whether `key` is one of those condition taints' keys.
bool condition_taint_key(const std::string& key);

// Whether the node has the taint `key`:`effect`.
bool has_taint(const json& node, const std::string& key, const std::string& effect);

// `taints` (an array, or null) with `remove` taken out and `add` put in (matched by key and
// effect; an added one gets timeAdded `now`), or nullopt when that changes nothing.
std::optional<json> with_taints(const json& taints, const std::vector<json>& add,
                                const std::vector<json>& remove, const std::string& now);

// A zone, as the controller groups nodes: the region and zone labels
// (failure-domain.beta.kubernetes.io/, else topology.kubernetes.io/), "" when it has neither.
std::string zone_of(const json& node);

enum class ZoneState { Initial, Normal, PartialDisruption, FullDisruption };
const char* zone_state_name(ZoneState state);

// A zone's state from its nodes' Ready: FullDisruption when none is Ready, PartialDisruption when
// more than 2 are not and they are at least `unhealthy_threshold` of the zone, else Normal.
ZoneState zone_state(int ready, int not_ready, double unhealthy_threshold);

}  // namespace cluster
