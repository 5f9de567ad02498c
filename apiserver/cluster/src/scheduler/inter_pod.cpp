#include "scheduler/inter_pod.h"

#include <algorithm>
#include <limits>

#include "client/objects.h"

namespace cluster {
namespace {

const json kNoLabels = json::object();

const json& labels_of(const json& object) {
  const json* labels = at(object, {"metadata", "labels"});
  return labels != nullptr && labels->is_object() ? *labels : kNoLabels;
}

AffinityTerm read_term(const json& owner, const json& term, int64_t weight) {
  AffinityTerm t;
  t.selector = at(term, {"labelSelector"});
  if (t.selector != nullptr && t.selector->is_null()) {
    t.selector = nullptr;
  }
  t.namespace_selector = at(term, {"namespaceSelector"});
  if (t.namespace_selector != nullptr && t.namespace_selector->is_null()) {
    t.namespace_selector = nullptr;
  }
  if (const json* list = at(term, {"namespaces"}); list != nullptr && list->is_array()) {
    for (const json& ns : *list) {
      if (ns.is_string()) {
        t.namespaces.push_back(ns.get<std::string>());
      }
    }
  }
  if (t.namespaces.empty() && t.namespace_selector == nullptr) {
    t.namespaces.push_back(namespace_of(owner));
  }
  t.topology_key = string_at(term, {"topologyKey"});
  t.weight = weight;
  return t;
}

// Adds `value` to the domain of `key` that `node` is in (nothing when it has no such label). The
// filter's counts forget a domain that drops back to 0; the score's keep it.
void count(DomainCounts& counts, const json& node, const std::string& key, int64_t value,
           bool keep_zero = false) {
  if (const std::string* domain = node_label(node, key)) {
    int64_t& n = counts[{key, *domain}];
    n += value;
    if (n == 0 && !keep_zero) {
      counts.erase({key, *domain});
    }
  }
}

template <class Pod>
bool selects_all(const std::vector<AffinityTerm>& terms, const Pod& pod,
                 const NamespaceLabels& namespace_labels) {
  return std::all_of(terms.begin(), terms.end(),
                     [&](const AffinityTerm& t) { return t.selects(pod, namespace_labels); });
}

bool has_preferred(const json& pod) {
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const json* list =
        at(pod, {"spec", "affinity", kind, "preferredDuringSchedulingIgnoredDuringExecution"});
    if (list != nullptr && list->is_array() && !list->empty()) {
      return true;
    }
  }
  return false;
}

}  // namespace

const std::string* node_label(const json& node, const std::string& key) {
  const json& labels = labels_of(node);
  auto it = labels.find(key);
  if (it == labels.end() || !it->is_string()) {
    return nullptr;
  }
  return it->get_ptr<const std::string*>();
}

bool AffinityTerm::selects(const json& pod, const NamespaceLabels& namespace_labels) const {
  return selects(namespace_of(pod), labels_of(pod), namespace_labels);
}

bool AffinityTerm::selects(const PodInfo& pod, const NamespaceLabels& namespace_labels) const {
  return selects(pod.namespace_, *pod.labels, namespace_labels);
}

bool AffinityTerm::selects(const std::string& ns, const json& labels,
                           const NamespaceLabels& namespace_labels) const {
  bool in_namespace = std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
  if (!in_namespace && namespace_selector != nullptr) {
    const json* of_namespace = namespace_labels ? namespace_labels(ns) : nullptr;
    in_namespace =
        selector_matches(*namespace_selector, of_namespace != nullptr ? *of_namespace : kNoLabels);
  }
  return in_namespace && selector != nullptr && selector_matches(*selector, labels);
}

std::vector<AffinityTerm> affinity_terms(const json& pod, const char* kind, bool required) {
  std::vector<AffinityTerm> terms;
  const json* list = at(pod, {"spec", "affinity", kind,
                              required ? "requiredDuringSchedulingIgnoredDuringExecution"
                                       : "preferredDuringSchedulingIgnoredDuringExecution"});
  if (list == nullptr || !list->is_array()) {
    return terms;
  }
  for (const json& entry : *list) {
    if (required) {
      terms.push_back(read_term(pod, entry, 0));
      continue;
    }
    const int64_t weight = int_at(entry, {"weight"}, 0);
    const json* term = at(entry, {"podAffinityTerm"});
    if (weight != 0 && term != nullptr) {
      terms.push_back(read_term(pod, *term, weight));
    }
  }
  return terms;
}

InterPodFilter::InterPodFilter(const json& pod, const std::vector<const NodeInfo*>& nodes,
                               const NamespaceLabels& namespace_labels)
    : pod_(pod),
      affinity_(affinity_terms(pod, "podAffinity", true)),
      anti_affinity_(affinity_terms(pod, "podAntiAffinity", true)) {
  for (const NodeInfo* n : nodes) {
    // The placed pods' required anti-affinity against this one.
    if (n->required_anti > 0) {
      for (const auto& entry : n->pods) {
        if (!entry.second.required_anti) {
          continue;
        }
        for (const AffinityTerm& t : affinity_terms(*entry.second.pod, "podAntiAffinity", true)) {
          if (t.selects(pod, namespace_labels)) {
            count(existing_anti_affinity_counts_, *n->node, t.topology_key, 1);
          }
        }
      }
    }
    if (affinity_.empty() && anti_affinity_.empty()) {
      continue;
    }
    // The placed pods this one's required terms select, by domain.
    for (const auto& entry : n->pods) {
      const PodInfo& other = entry.second;
      if (!affinity_.empty() && selects_all(affinity_, other, namespace_labels)) {
        for (const AffinityTerm& t : affinity_) {
          count(affinity_counts_, *n->node, t.topology_key, 1);
        }
      }
      for (const AffinityTerm& t : anti_affinity_) {
        if (t.selects(other, namespace_labels)) {
          count(anti_affinity_counts_, *n->node, t.topology_key, 1);
        }
      }
    }
  }
  // Whether the pod selects itself with every required affinity term: then, with no selected
  // pod anywhere, it may be the first of its group.
  if (affinity_counts_.empty() && !affinity_.empty() &&
      selects_all(affinity_, pod, namespace_labels)) {
    first_of_group_ = true;
  }
}

std::string InterPodFilter::misfit(const json& node) const {
  bool selected_everywhere = true;
  for (const AffinityTerm& t : affinity_) {
    const std::string* domain = node_label(node, t.topology_key);
    if (domain == nullptr) {
      return "node(s) didn't match pod affinity rules";  // every topology key must exist
    }
    auto it = affinity_counts_.find({t.topology_key, *domain});
    if (it == affinity_counts_.end() || it->second <= 0) {
      selected_everywhere = false;
    }
  }
  if (!selected_everywhere && !first_of_group_) {
    return "node(s) didn't match pod affinity rules";
  }
  if (!anti_affinity_counts_.empty()) {
    for (const AffinityTerm& t : anti_affinity_) {
      const std::string* domain = node_label(node, t.topology_key);
      if (domain == nullptr) {
        continue;
      }
      auto it = anti_affinity_counts_.find({t.topology_key, *domain});
      if (it != anti_affinity_counts_.end() && it->second > 0) {
        return "node(s) didn't match pod anti-affinity rules";
      }
    }
  }
  if (!existing_anti_affinity_counts_.empty()) {
    for (const auto& [key, value] : labels_of(node).items()) {
      if (!value.is_string()) {
        continue;
      }
      auto it = existing_anti_affinity_counts_.find({key, value.get<std::string>()});
      if (it != existing_anti_affinity_counts_.end() && it->second > 0) {
        return "node(s) didn't satisfy existing pods anti-affinity rules";
      }
    }
  }
  return "";
}

std::vector<int64_t> inter_pod_scores(const json& pod, const std::vector<const NodeInfo*>& all,
                                      const std::vector<const NodeInfo*>& feasible,
                                      const NamespaceLabels& namespace_labels) {
  std::vector<int64_t> scores(feasible.size(), 0);
  if (feasible.empty()) {
    return scores;
  }
  const bool own_terms = has_preferred(pod);
  const std::vector<AffinityTerm> preferred = affinity_terms(pod, "podAffinity", false);
  const std::vector<AffinityTerm> preferred_anti = affinity_terms(pod, "podAntiAffinity", false);
  constexpr int64_t kHardPodAffinityWeight = 1;
  DomainCounts topology;
  auto add_terms = [&](const std::vector<AffinityTerm>& terms, const auto& selected,
                       const json& node, int64_t sign) {
    for (const AffinityTerm& t : terms) {
      if (t.selects(selected, namespace_labels)) {
        count(topology, node, t.topology_key, sign * t.weight, true);
      }
    }
  };
  for (const NodeInfo* n : all) {
    // Without preferred terms of its own, only the placed pods with terms can matter.
    if ((!own_terms && n->with_affinity == 0) || labels_of(*n->node).empty()) {
      continue;
    }
    for (const auto& entry : n->pods) {
      const PodInfo& other = entry.second;
      if (!own_terms && !other.with_affinity) {
        continue;
      }
      const json& placed = *other.pod;
      add_terms(preferred, other, *n->node, 1);
      add_terms(preferred_anti, other, *n->node, -1);
      if (!other.with_affinity) {
        continue;
      }
      for (AffinityTerm t : affinity_terms(placed, "podAffinity", true)) {
        t.weight = kHardPodAffinityWeight;
        add_terms({t}, pod, *n->node, 1);
      }
      add_terms(affinity_terms(placed, "podAffinity", false), pod, *n->node, 1);
      add_terms(affinity_terms(placed, "podAntiAffinity", false), pod, *n->node, -1);
    }
  }
  if (topology.empty()) {
    return scores;  // the plugin has nothing to say: it is skipped
  }
  int64_t low = std::numeric_limits<int64_t>::max();
  int64_t high = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < feasible.size(); ++i) {
    for (const auto& [key, value] : labels_of(*feasible[i]->node).items()) {
      if (value.is_string()) {
        auto it = topology.find({key, value.get<std::string>()});
        scores[i] += it != topology.end() ? it->second : 0;
      }
    }
    low = std::min(low, scores[i]);
    high = std::max(high, scores[i]);
  }
  for (int64_t& s : scores) {
    s = high > low ? static_cast<int64_t>(100.0 * static_cast<double>(s - low) /
                                          static_cast<double>(high - low))
                   : 0;
  }
  return scores;
}

}  // namespace cluster
