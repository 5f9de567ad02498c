// Pod topology spread, as kube-scheduler's PodTopologySpread plugin decides it: constraints with
// whenUnsatisfiable DoNotSchedule filter nodes, those with ScheduleAnyway score them. A pod with
// no constraints of its own is scored with the system defaults (ScheduleAnyway,
// kubernetes.io/hostname maxSkew 3 and topology.kubernetes.io/zone maxSkew 5) over the selector
// of the services, ReplicationController, ReplicaSet or StatefulSet it belongs to; with no such
// selector there is nothing to spread.
//
// Counting: a domain (a value of the topology key) counts the pods of the pod's namespace that
// the constraint's selector (with matchLabelKeys added) selects, not being deleted, on the nodes
// the constraint includes (nodeAffinityPolicy Honor by default: nodes the pod's nodeSelector and
// required node affinity accept; nodeTaintsPolicy Ignore by default).
//
// Filter: "node(s) didn't match pod topology spread constraints (missing required label)" when
// the node lacks a topology key; "node(s) didn't match pod topology spread constraints" when
// placing the pod there would leave its domain more than maxSkew above the least populated one
// (0 when fewer domains than minDomains exist).
//
// Score: each constraint gives a node count * log(domains + 2) + maxSkew - 1 (the count of its
// own pods for the hostname key); the node with the lowest sum scores 100 relative to the
// highest: 100 * (max + min - s) / max.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/cache.h"

namespace cluster {

using nlohmann::json;

struct SpreadConstraint {
  int64_t max_skew = 1;
  std::string topology_key;
  json selector;  // a metav1.LabelSelector with matchLabelKeys merged; null selects nothing
  int64_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy
  bool honor_node_taints = false;   // nodeTaintsPolicy
};

// The pod's constraints whose whenUnsatisfiable is `when`; for ScheduleAnyway, a pod without
// any constraint gets the system defaults over `default_selector` (none when it is null or
// selects every pod).
std::vector<SpreadConstraint> spread_constraints(const json& pod, const std::string& when,
                                                 const json& default_selector);

// upstream's DefaultSelector: the selectors of the `services` (of the pod's namespace) that
// select the pod, merged, and of `controller`, the ReplicationController, ReplicaSet or
// StatefulSet that owns it (null when none); null when there is none.
json default_spread_selector(const json& pod, const std::vector<const json*>& services,
                             const json* controller);

// The filter for one pod over the nodes of one attempt; the domains are counted once here.
class SpreadFilter {
 public:
  SpreadFilter(const json& pod, const std::vector<const NodeInfo*>& nodes);
  // The reason the node fails, or "" when it passes.
  std::string misfit(const json& node) const;

 private:
  struct Counted {
    SpreadConstraint constraint;
    std::map<std::string, int64_t> domains;  // value of the key -> matching pods
    bool self_match = false;                 // the pod itself is selected
  };
  std::vector<Counted> constraints_;
};

// The PodTopologySpread scores of the `feasible` nodes, normalized to 0..100 (all 0 when the pod
// has nothing to spread). `all`: every node, whose pods count.
std::vector<int64_t> spread_scores(const json& pod, const json& default_selector,
                                   const std::vector<const NodeInfo*>& all,
                                   const std::vector<const NodeInfo*>& feasible);

}  // namespace cluster
