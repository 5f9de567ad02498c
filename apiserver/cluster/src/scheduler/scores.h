// The scores of kube-scheduler's default profile. Each plugin gives every feasible node a score
// of 0..100 (normalized as that plugin does upstream); the node's total is the sum of the
// scores times the plugins' weights, and the highest total wins:
//
//   plugin                           weight  score
//   TaintToleration                   3      fewest PreferNoSchedule taints the pod does not
//                                            tolerate: 100 - 100 * n / max(n)
//   NodeAffinity                      2      summed weights of the preferred terms the node
//                                            matches: 100 * sum / max(sum)
//   PodTopologySpread                 2      scheduler/spread.h
//   InterPodAffinity                  2      scheduler/inter_pod.h
//   NodeResourcesFit (LeastAllocated) 1      per resource (cpu, memory, weight 1 each)
//                                            (allocatable - requested) * 100 / allocatable,
//                                            requests counted non-zero (100m, 200Mi for a
//                                            container that names none), the pod's included
//   NodeResourcesBalancedAllocation   1      (1 - |cpu share - memory share| / 2) * 100, shares
//                                            of allocatable requested (the real requests)
//   ImageLocality                     1      0: the simulated nodes report no images
//
// Ties are broken at random among the nodes with the highest total, as upstream's selectHost.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/cache.h"
#include "scheduler/inter_pod.h"

namespace cluster {

using nlohmann::json;

inline constexpr int64_t kMaxNodeScore = 100;

// NodeResourcesFit's LeastAllocated score of the node for a pod asking `pod_non_zero`.
int64_t least_allocated_score(const Resources& pod_non_zero, const NodeInfo& node);
// NodeResourcesBalancedAllocation's score of the node for a pod asking `pod_requested`.
int64_t balanced_allocation_score(const Resources& pod_requested, const NodeInfo& node);
// NodeAffinity before normalizing: the summed weights of the pod's preferred node affinity terms
// that the node matches.
int64_t node_affinity_preference(const json& pod, const json& node);
// TaintToleration before normalizing: the node's PreferNoSchedule taints the pod does not
// tolerate.
int64_t intolerable_preferred_taints(const json& pod, const json& node);
// DefaultNormalizeScore: scaled so that the highest becomes 100 (nothing changes when all are
// 0); `reverse` then takes each from 100 (all 100 when all were 0).
void normalize(std::vector<int64_t>& scores, bool reverse);

// One feasible node's scores.
struct NodeScore {
  std::string node;
  std::map<std::string, int64_t> plugins;  // plugin -> score, 0..100, before its weight
  int64_t total = 0;                       // sum of score * weight
};

// What the scores read besides the nodes.
struct ScoreInputs {
  NamespaceLabels namespace_labels;  // for pod affinity terms' namespaceSelector
  json default_spread_selector;      // spread.h: default_spread_selector
};

// Every score of every feasible node, in the order of `feasible`. `all`: every node, whose pods
// the inter-pod scores count.
std::vector<NodeScore> prioritize(const json& pod, const std::vector<const NodeInfo*>& all,
                                  const std::vector<const NodeInfo*>& feasible,
                                  const ScoreInputs& inputs);

// The index of the node to take: the highest total, one of equals chosen uniformly at random.
size_t select_host(const std::vector<NodeScore>& scores, std::mt19937& random);

}  // namespace cluster
