// Whether a pod fits a node, as kube-scheduler's filter plugins decide it, and the reason in the
// scheduler's words when it does not (plugins in the default profile's order):
//   NodeUnschedulable   "node(s) were unschedulable"
//   TaintToleration     "node(s) had untolerated taint {key: value}"
//   NodeAffinity        "node(s) didn't match Pod's node affinity/selector"   (nodeSelector too)
//   NodeResourcesFit    "Too many pods", "Insufficient cpu", "Insufficient memory"
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

struct Resources {
  double cpu = 0;     // cores
  double memory = 0;  // bytes
  double pods = 0;
};

// What the pod asks for: the sum of its containers' requests, or its largest init container's
// when larger, plus its overhead; pods = 1.
Resources pod_requests(const json& pod);
// The same, a container that names no cpu or memory request counting 100m and 200Mi: what the
// resource scores count (the scheduler's non-zero requests).
Resources pod_requests_non_zero(const json& pod);
// The node's allocatable (capacity when allocatable is missing).
Resources node_allocatable(const json& node);

// The filters' reasons for `pod` not fitting `node`, given what is already `used` there; empty
// when it fits. Only the first failing plugin speaks (NodeResourcesFit names every shortage).
std::vector<std::string> misfits(const json& pod, const json& node, const Resources& used);

// Whether the node's labels satisfy a NodeSelectorTerm list (any term; within one, all of its
// matchExpressions and matchFields), as required node affinity reads them.
bool node_selector_terms_match(const json& terms, const json& node);

// Whether the pod's nodeSelector and required node affinity accept the node.
bool node_affinity_matches(const json& pod, const json& node);
// Whether one toleration tolerates `taint` (key, value, effect), as v1.Toleration.ToleratesTaint.
bool toleration_matches(const json& toleration, const json& taint);
// Whether one of the pod's tolerations tolerates `taint`.
bool tolerates(const json& pod, const json& taint);

// Whether preemption could help with this reason: the filters' Unschedulable verdicts (resource
// shortages, anti-affinity, topology spread skew), which removing pods could lift, as opposed to
// their UnschedulableAndUnresolvable ones.
bool preemption_might_help(const std::string& reason);

}  // namespace cluster
