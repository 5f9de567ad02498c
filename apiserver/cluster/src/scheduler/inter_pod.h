// The scheduler's filters that look at the other pods, as kube-scheduler's InterPodAffinity and
// PodTopologySpread plugins decide them (their required parts):
//   "node(s) didn't match pod affinity rules"
//   "node(s) didn't match pod anti-affinity rules"
//   "node(s) didn't satisfy existing pods anti-affinity rules"
//   "node(s) didn't match pod topology spread constraints"
//   "node(s) didn't match pod topology spread constraints (missing required label)"
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

// What the filters know of the cluster: every node, and the pods placed on each (by node name;
// pods that are done are left out).
struct Placement {
  std::vector<const json*> nodes;
  std::map<std::string, std::vector<const json*>> pods_on;
  // The placed pods with required anti-affinity terms, by node name (few, so each candidate
  // node checks them without walking every pod). place() fills both.
  std::vector<std::pair<std::string, const json*>> anti_affine;

  void place(const std::string& node, const json* pod);
};

// The reasons `pod` may not go to `node`; empty when the other pods allow it.
std::vector<std::string> inter_pod_misfits(const json& pod, const json& node,
                                           const Placement& placement);

}  // namespace cluster
