// What a simulated node reports about itself, as a kubelet registers and heartbeats its Node:
// capacity and allocatable, labels, addresses, node info, the pod CIDR its pods' IPs come from,
// and the four pressure conditions plus Ready.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

// The Node a kubelet registers for node number `index` (1-based) named `name`: labels
// (kubernetes.io/hostname, os, arch, topology.kubernetes.io/zone), spec.podCIDR
// 10.244.<index>.0/24, and its status at `now` (RFC 3339).
json registered_node(const std::string& name, int index, const std::string& now);

// The status a kubelet reports for `node` at `now`: what the node already says (capacity set by
// the user who created it) completed with the simulated node's defaults, conditions heartbeated.
json reported_status(const json& node, int index, const std::string& now);

// The node's pod CIDR's base ("10.244.3."), from spec.podCIDR or the index.
std::string pod_ip_prefix(const json& node, int index);

// The annotation that stops a simulated node's kubelet, as `systemctl stop kubelet` would on a
// real node: with the value "stopped" the kubelet renews no lease, reports no status and does no
// pod work until the annotation goes (or says anything else). Its containers keep running.
inline constexpr const char* kKubeletAnnotation = "kube-sandbox.io/kubelet";
bool kubelet_stopped(const json& node);

// The events a kubelet records when its report changes a condition of `node` to what `status`
// says, by reason, in the order of `status`'s conditions: NodeHasSufficientMemory,
// NodeHasNoDiskPressure, NodeHasSufficientPID, NodeReady (or their opposites). Each event's
// message is "Node <name> status is now: <reason>".
std::vector<std::string> condition_events(const json& node, const json& status);

}  // namespace cluster
