#include "scheduler/inter_pod.h"

#include <algorithm>
#include <limits>
#include <set>

#include "client/objects.h"
#include "scheduler/fit.h"

namespace cluster {
namespace {

const json kNoLabels = json::object();

const json& labels_of(const json& object) {
  const json* labels = at(object, {"metadata", "labels"});
  return labels != nullptr && labels->is_object() ? *labels : kNoLabels;
}

// The node label `key`'s value, or nullopt when the node has none.
std::optional<std::string> domain(const json& node, const std::string& key) {
  const json& labels = labels_of(node);
  auto it = labels.find(key);
  if (it == labels.end() || !it->is_string())
    return std::nullopt;
  return it->get<std::string>();
}

// Whether `other` is selected by an affinity term written in `owner` (its namespaces: the
// term's list, else the owner's own; a namespaceSelector widens it to every namespace).
bool term_selects(const json& term, const json& owner, const json& other) {
  const json* selector = at(term, {"labelSelector"});
  if (selector == nullptr || !selector_matches(*selector, labels_of(other)))
    return false;
  if (at(term, {"namespaceSelector"}) != nullptr)
    return true;
  const json* namespaces = at(term, {"namespaces"});
  const std::string ns = namespace_of(other);
  if (namespaces != nullptr && namespaces->is_array() && !namespaces->empty()) {
    return std::find(namespaces->begin(), namespaces->end(), json(ns)) != namespaces->end();
  }
  return ns == namespace_of(owner);
}

std::vector<const json*> required_terms(const json& pod, const char* kind) {
  std::vector<const json*> terms;
  const json* list =
      at(pod, {"spec", "affinity", kind, "requiredDuringSchedulingIgnoredDuringExecution"});
  if (list != nullptr && list->is_array()) {
    for (const json& t : *list)
      terms.push_back(&t);
  }
  return terms;
}

// Whether some placed pod the term selects runs in the candidate node's domain of the term's
// topologyKey; `anywhere` says whether one runs anywhere at all.
bool selected_nearby(const json& term, const json& owner, const json& node,
                     const Placement& placement, bool& anywhere) {
  const std::string key = string_at(term, {"topologyKey"});
  const auto here = domain(node, key);
  bool nearby = false;
  for (const json* other_node : placement.nodes) {
    auto it = placement.pods_on.find(name_of(*other_node));
    if (it == placement.pods_on.end())
      continue;
    for (const json* other : it->second) {
      if (!term_selects(term, owner, *other))
        continue;
      anywhere = true;
      if (here && domain(*other_node, key) == here)
        nearby = true;
    }
  }
  return nearby;
}

}  // namespace

void Placement::place(const std::string& node, const json* pod) {
  pods_on[node].push_back(pod);
  if (!required_terms(*pod, "podAntiAffinity").empty()) {
    anti_affine.emplace_back(node, pod);
  }
}

std::vector<std::string> inter_pod_misfits(const json& pod, const json& node,
                                           const Placement& placement) {
  std::vector<std::string> reasons;
  // Required pod affinity: a selected pod in the same domain (the first pod of a group that
  // selects itself may start anywhere).
  for (const json* term : required_terms(pod, "podAffinity")) {
    bool anywhere = false;
    if (!selected_nearby(*term, pod, node, placement, anywhere) &&
        (anywhere || !term_selects(*term, pod, pod) ||
         !domain(node, string_at(*term, {"topologyKey"})))) {
      reasons.push_back("node(s) didn't match pod affinity rules");
      break;
    }
  }
  // Required pod anti-affinity: no selected pod in the same domain.
  for (const json* term : required_terms(pod, "podAntiAffinity")) {
    bool anywhere = false;
    if (selected_nearby(*term, pod, node, placement, anywhere)) {
      reasons.push_back("node(s) didn't match pod anti-affinity rules");
      break;
    }
  }
  // The placed pods' anti-affinity against this one.
  bool existing_refuses = false;
  for (const auto& [other_node_name, other] : placement.anti_affine) {
    const json* other_node = nullptr;
    for (const json* n : placement.nodes) {
      if (name_of(*n) == other_node_name)
        other_node = n;
    }
    if (other_node == nullptr)
      continue;
    for (const json* term : required_terms(*other, "podAntiAffinity")) {
      const std::string key = string_at(*term, {"topologyKey"});
      const auto here = domain(node, key);
      if (here && domain(*other_node, key) == here && term_selects(*term, *other, pod)) {
        existing_refuses = true;
      }
    }
  }
  if (existing_refuses) {
    reasons.push_back("node(s) didn't satisfy existing pods anti-affinity rules");
  }
  // Topology spread, DoNotSchedule constraints: the candidate's domain may not get more than
  // maxSkew above the least populated domain of the nodes the pod could go to.
  const json* constraints = at(pod, {"spec", "topologySpreadConstraints"});
  if (constraints != nullptr && constraints->is_array()) {
    for (const json& c : *constraints) {
      if (string_at(c, {"whenUnsatisfiable"}) != "DoNotSchedule")
        continue;
      const std::string key = string_at(c, {"topologyKey"});
      const auto here = domain(node, key);
      if (!here) {
        reasons.push_back(
            "node(s) didn't match pod topology spread constraints (missing required label)");
        break;
      }
      const json* selector = at(c, {"labelSelector"});
      std::map<std::string, int64_t> counts;
      for (const json* n : placement.nodes) {
        auto d = domain(*n, key);
        if (!d || !node_affinity_matches(pod, *n))
          continue;
        int64_t& count = counts[*d];
        auto it = placement.pods_on.find(name_of(*n));
        if (it == placement.pods_on.end() || selector == nullptr)
          continue;
        for (const json* other : it->second) {
          if (namespace_of(*other) == namespace_of(pod) &&
              selector_matches(*selector, labels_of(*other))) {
            ++count;
          }
        }
      }
      int64_t least = std::numeric_limits<int64_t>::max();
      for (const auto& [d, n] : counts)
        least = std::min(least, n);
      if (counts.empty())
        least = 0;
      const int64_t mine = counts.count(*here) != 0 ? counts[*here] : 0;
      const bool self = selector != nullptr && selector_matches(*selector, labels_of(pod));
      if (mine + (self ? 1 : 0) - least > int_at(c, {"maxSkew"}, 1)) {
        reasons.push_back("node(s) didn't match pod topology spread constraints");
        break;
      }
    }
  }
  return reasons;
}

}  // namespace cluster
