// Pod affinity and anti-affinity, as kube-scheduler's InterPodAffinity plugin decides them: the
// required terms filter nodes, the preferred ones score them.
//
// Filter (in this order, one reason per node):
//   "node(s) didn't match pod affinity rules"            a required affinity term has no
//                                                        selected pod in the node's domain
//   "node(s) didn't match pod anti-affinity rules"       a required anti-affinity term has one
//   "node(s) didn't satisfy existing pods anti-affinity rules"
//                                                        a placed pod's required anti-affinity
//                                                        term selects this pod in its domain
// The first pod of a group whose required affinity selects itself may go anywhere the topology
// keys exist (no pod anywhere matches every term yet).
//
// Score: every node in the domain (topologyKey value) of a placed pod gains a term's weight for
// each of the incoming pod's preferred affinity terms that selects that pod (anti-affinity: loses
// it); symmetrically for the placed pods' preferred terms that select the incoming pod, and their
// required affinity terms at weight 1 (hardPodAffinityWeight). The sums are then scaled between
// the lowest (0) and the highest (100) of the feasible nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/cache.h"

namespace cluster {

using nlohmann::json;

// The labels of a namespace, or null when it is not known; what namespaceSelector reads.
using NamespaceLabels = std::function<const json*(const std::string& namespace_)>;

// One PodAffinityTerm of `owner`, read once.
struct AffinityTerm {
  const json* selector = nullptr;            // labelSelector; null selects nothing
  const json* namespace_selector = nullptr;  // null: none ({} selects every namespace)
  std::vector<std::string> namespaces;       // the term's list, or the owner's namespace
  std::string topology_key;
  int64_t weight = 0;  // a preferred term's

  // Whether `pod` is selected: its namespace is listed or selected, and its labels match.
  bool selects(const json& pod, const NamespaceLabels& namespace_labels) const;
  // The same for a placed pod, whose namespace and labels the cache holds.
  bool selects(const PodInfo& pod, const NamespaceLabels& namespace_labels) const;
  bool selects(const std::string& namespace_, const json& labels,
               const NamespaceLabels& namespace_labels) const;
};

// The terms of `pod.spec.affinity.<kind>` ("podAffinity" or "podAntiAffinity"), required or
// preferred (with their weights; weight-0 terms are left out).
std::vector<AffinityTerm> affinity_terms(const json& pod, const char* kind, bool required);

// Counts per topology domain: (topologyKey, value) -> number.
using DomainCounts = std::map<std::pair<std::string, std::string>, int64_t>;

// The filter for one pod over the nodes of one attempt: what it needs of every placed pod is
// counted once here (upstream's PreFilter), then each node costs a few lookups.
class InterPodFilter {
 public:
  InterPodFilter(const json& pod, const std::vector<const NodeInfo*>& nodes,
                 const NamespaceLabels& namespace_labels);
  // The reason the node fails, or "" when it passes.
  std::string misfit(const json& node) const;

 private:
  const json& pod_;
  std::vector<AffinityTerm> affinity_;
  std::vector<AffinityTerm> anti_affinity_;
  DomainCounts affinity_counts_;
  DomainCounts anti_affinity_counts_;
  DomainCounts existing_anti_affinity_counts_;
  bool first_of_group_ = false;  // no pod matches every affinity term, and this one does
};

// The InterPodAffinity scores of the `feasible` nodes, normalized to 0..100 (all 0 when no term
// concerns the pod). `all`: every node, whose pods count.
std::vector<int64_t> inter_pod_scores(const json& pod, const std::vector<const NodeInfo*>& all,
                                      const std::vector<const NodeInfo*>& feasible,
                                      const NamespaceLabels& namespace_labels);

// The value of a node label, or nullptr when the node has none.
const std::string* node_label(const json& node, const std::string& key);

}  // namespace cluster
