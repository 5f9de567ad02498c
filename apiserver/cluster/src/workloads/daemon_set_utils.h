// The DaemonSet controller's pure parts, as kube-controller-manager's daemon controller decides
// them: which nodes want a daemon pod (the template's nodeName, nodeSelector, required node
// affinity and the taints it does not tolerate), the pod made for a node (the automatic
// tolerations, pinned to the node with required node affinity on metadata.name, left to the
// scheduler to bind), which pods to create and delete, the pods a rolling update replaces (or,
// with maxSurge, surges next to), and the status.
//
// Worked example: nodes n1, n2 (n2 tainted dedicated=db:NoSchedule), a DaemonSet without
// tolerations and a pod on n2 only. n1 should run one (create there); n2 should not, but the pod
// may keep running (the taint is NoSchedule, not NoExecute), so it stays and counts as
// misscheduled.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/informer.h"

namespace cluster {

using nlohmann::json;

inline constexpr const char* kTemplateGenerationLabel = "pod-template-generation";

// The tolerations every daemon pod gets (not-ready and unreachable NoExecute; disk-, memory-
// and pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule with
// hostNetwork), added to `pod_spec` unless an equal one is there.
void add_daemon_tolerations(json& pod_spec);
// `affinity` with its required node affinity replaced by matchFields metadata.name In [node].
json pin_to_node(json affinity, const std::string& node);
// The node a daemon pod is for: spec.nodeName, or the node its affinity pins it to ("" if none).
std::string daemon_pod_node(const json& pod);

struct DaemonNodeFit {
  bool should_run = false;        // a daemon pod should be created there
  bool may_keep_running = false;  // an existing one may stay (no untolerated NoExecute taint)
};
DaemonNodeFit daemon_node_fit(const json& daemon_set, const json& node);

// The pod template with the automatic tolerations and the controller-revision-hash (and, when
// the DaemonSet has one, pod-template-generation) labels.
json daemon_pod_template(const json& daemon_set, const std::string& hash);
// The pod of `node` (generateName <set>-, pinned to the node).
json new_daemon_pod(const json& daemon_set, const json& pod_template, const std::string& node);

// Owned pods by the node they are for; finished pods being deleted are left out (those being
// deleted otherwise still hold their node).
std::map<std::string, std::vector<ObjectPtr>> daemon_pods_by_node(
    const std::vector<ObjectPtr>& pods);

struct DaemonPlan {
  std::vector<std::string> create_on;    // node names
  std::vector<std::string> delete_pods;  // pod names
  std::vector<ObjectPtr> failed;         // failed pods among delete_pods (a Warning each)
};
// The manage pass: nodes missing a pod that should run one (a node whose pod is still being
// deleted waits for it, unless the DaemonSet surges), and pods to delete: failed and succeeded
// ones, those on nodes where they may not keep running, and the extra ones of a node: all but
// the oldest, or with maxSurge all but the oldest new and oldest old pod, the old one too once it
// is not ready or the new one (of revision `hash`) is available at `now`.
DaemonPlan plan_daemon_set(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                           const std::vector<ObjectPtr>& pods, const std::string& hash,
                           std::chrono::system_clock::time_point now);

struct DaemonBudgets {
  int64_t surge = 0;
  int64_t unavailable = 0;
};
// maxSurge and maxUnavailable against `desired` nodes (a percentage rounds up; 0 unless the
// strategy is RollingUpdate); maxUnavailable 1 when both come to 0.
DaemonBudgets daemon_budgets(const json& daemon_set, int64_t desired);
// Whether maxSurge is not 0 (checked against one node).
bool daemon_allows_surge(const json& daemon_set);

// A rolling update's step, as kube-controller-manager's rollingUpdate. maxSurge 0: the old pods
// to delete now (every unavailable one, and available ones while fewer than maxUnavailable nodes
// lack an available pod); the manage pass creates their replacements. maxSurge > 0: the nodes to
// create a new pod on next to the old one (at once where the old one is unavailable, else at
// most maxSurge nodes surging at a time), and the old pods whose new pod is available.
DaemonPlan daemon_rolling_update(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                                 const std::vector<ObjectPtr>& pods, const std::string& hash,
                                 std::chrono::system_clock::time_point now);

// Whether the pod was made from the template of `hash` (or of the DaemonSet's template
// generation).
bool daemon_pod_updated(const json& daemon_set, const json& pod, const std::string& hash);

// The status the nodes and pods add up to.
json daemon_status(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                   const std::vector<ObjectPtr>& pods, const std::string& hash,
                   int64_t collision_count, std::chrono::system_clock::time_point now);

}  // namespace cluster
