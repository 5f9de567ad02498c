#include "scheduler/spread.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "client/objects.h"
#include "scheduler/fit.h"
#include "scheduler/inter_pod.h"

namespace cluster {
namespace {

const json kNoLabels = json::object();
const char* const kHostname = "kubernetes.io/hostname";

const json& labels_of(const json& object) {
  const json* labels = at(object, {"metadata", "labels"});
  return labels != nullptr && labels->is_object() ? *labels : kNoLabels;
}

// Whether a LabelSelector selects every pod (no requirement at all).
bool selects_everything(const json& selector) {
  const json* labels = at(selector, {"matchLabels"});
  const json* exprs = at(selector, {"matchExpressions"});
  return (labels == nullptr || !labels->is_object() || labels->empty()) &&
         (exprs == nullptr || !exprs->is_array() || exprs->empty());
}

// countPodsMatchSelector: a selector that selects nothing or everything counts none.
int64_t matching_pods(const NodeInfo& node, const json& selector, const std::string& ns) {
  if (!selector.is_object() || selects_everything(selector)) {
    return 0;
  }
  int64_t n = 0;
  for (const auto& entry : node.pods) {
    const PodInfo& p = entry.second;
    if (!p.terminating && p.namespace_ == ns && selector_matches(selector, *p.labels)) {
      ++n;
    }
  }
  return n;
}

// The matching pods of each node, counted once per distinct selector of an attempt (the system
// defaults' two constraints share theirs).
class PodCounts {
 public:
  PodCounts(const std::vector<SpreadConstraint>& constraints, std::string ns)
      : constraints_(constraints), ns_(std::move(ns)) {}
  int64_t of(size_t constraint, const NodeInfo& node) {
    size_t first = 0;  // the first constraint with this selector: its counts serve
    while (constraints_[first].selector != constraints_[constraint].selector) {
      ++first;
    }
    auto [it, inserted] = counts_.try_emplace({first, &node}, 0);
    if (inserted) {
      it->second = matching_pods(node, constraints_[constraint].selector, ns_);
    }
    return it->second;
  }

 private:
  const std::vector<SpreadConstraint>& constraints_;
  const std::string ns_;
  std::map<std::pair<size_t, const NodeInfo*>, int64_t> counts_;
};

// Whether the node has every constraint's topology key.
bool has_all_keys(const json& node, const std::vector<SpreadConstraint>& constraints) {
  return std::all_of(constraints.begin(), constraints.end(), [&](const SpreadConstraint& c) {
    return node_label(node, c.topology_key) != nullptr;
  });
}

// The node inclusion policies: whether the node's domain counts for the constraint.
bool includes(const SpreadConstraint& c, const json& pod, const json& node) {
  if (c.honor_node_affinity && !node_affinity_matches(pod, node)) {
    return false;
  }
  if (c.honor_node_taints) {
    if (const json* taints = at(node, {"spec", "taints"}); taints && taints->is_array()) {
      for (const json& taint : *taints) {
        const std::string effect = string_at(taint, {"effect"});
        if ((effect == "NoSchedule" || effect == "NoExecute") && !tolerates(pod, taint)) {
          return false;
        }
      }
    }
  }
  return true;
}

SpreadConstraint read_constraint(const json& pod, const json& c) {
  SpreadConstraint out;
  out.max_skew = int_at(c, {"maxSkew"}, 1);
  out.topology_key = string_at(c, {"topologyKey"});
  out.min_domains = int_at(c, {"minDomains"}, 1);
  out.honor_node_affinity = string_at(c, {"nodeAffinityPolicy"}) != "Ignore";
  out.honor_node_taints = string_at(c, {"nodeTaintsPolicy"}) == "Honor";
  const json* selector = at(c, {"labelSelector"});
  if (selector == nullptr || !selector->is_object()) {
    return out;  // selects nothing, whatever matchLabelKeys says
  }
  out.selector = *selector;
  // matchLabelKeys: the pod's own values of those labels narrow the selector.
  if (const json* keys = at(c, {"matchLabelKeys"}); keys != nullptr && keys->is_array()) {
    const json& labels = labels_of(pod);
    for (const json& key : *keys) {
      if (!key.is_string()) {
        continue;
      }
      auto value = labels.find(key.get<std::string>());
      if (value != labels.end() && value->is_string()) {
        out.selector["matchExpressions"].push_back(
            {{"key", key}, {"operator", "In"}, {"values", json::array({*value})}});
      }
    }
  }
  return out;
}

}  // namespace

std::vector<SpreadConstraint> spread_constraints(const json& pod, const std::string& when,
                                                 const json& default_selector) {
  std::vector<SpreadConstraint> out;
  const json* own = at(pod, {"spec", "topologySpreadConstraints"});
  if (own != nullptr && own->is_array() && !own->empty()) {
    for (const json& c : *own) {
      if (string_at(c, {"whenUnsatisfiable"}) == when) {
        out.push_back(read_constraint(pod, c));
      }
    }
    return out;
  }
  if (when != "ScheduleAnyway" || !default_selector.is_object() ||
      selects_everything(default_selector)) {
    return out;
  }
  SpreadConstraint host{.max_skew = 3, .topology_key = kHostname, .selector = default_selector};
  SpreadConstraint zone{
      .max_skew = 5, .topology_key = "topology.kubernetes.io/zone", .selector = default_selector};
  out.push_back(std::move(host));
  out.push_back(std::move(zone));
  return out;
}

json default_spread_selector(const json& pod, const std::vector<const json*>& services,
                             const json* controller) {
  json match_labels = json::object();
  json expressions = json::array();
  const json& labels = labels_of(pod);
  for (const json* service : services) {
    const json* selector = at(*service, {"spec", "selector"});
    if (selector == nullptr || !selector->is_object() ||
        !selector_matches({{"matchLabels", *selector}}, labels)) {
      continue;
    }
    for (const auto& [key, value] : selector->items()) {
      match_labels[key] = value;
    }
  }
  if (controller != nullptr) {
    const std::string kind = string_at(*controller, {"kind"});
    const json* selector = at(*controller, {"spec", "selector"});
    if (kind == "ReplicationController" && selector != nullptr && selector->is_object()) {
      for (const auto& [key, value] : selector->items()) {
        match_labels[key] = value;
      }
    } else if ((kind == "ReplicaSet" || kind == "StatefulSet") && selector != nullptr &&
               selector->is_object()) {
      if (const json* ml = at(*selector, {"matchLabels"}); ml != nullptr && ml->is_object()) {
        for (const auto& [key, value] : ml->items()) {
          expressions.push_back(
              {{"key", key}, {"operator", "In"}, {"values", json::array({value})}});
        }
      }
      if (const json* me = at(*selector, {"matchExpressions"}); me != nullptr && me->is_array()) {
        for (const json& e : *me) {
          expressions.push_back(e);
        }
      }
    }
  }
  if (match_labels.empty() && expressions.empty()) {
    return nullptr;
  }
  json selector = {{"matchLabels", match_labels}};
  if (!expressions.empty()) {
    selector["matchExpressions"] = expressions;
  }
  return selector;
}

SpreadFilter::SpreadFilter(const json& pod, const std::vector<const NodeInfo*>& nodes) {
  const std::vector<SpreadConstraint> constraints =
      spread_constraints(pod, "DoNotSchedule", nullptr);
  if (constraints.empty()) {
    return;
  }
  PodCounts pods(constraints, namespace_of(pod));
  for (size_t i = 0; i < constraints.size(); ++i) {
    const SpreadConstraint& c = constraints[i];
    Counted counted{c, {}, c.selector.is_object() && selector_matches(c.selector, labels_of(pod))};
    for (const NodeInfo* n : nodes) {
      if (!has_all_keys(*n->node, constraints) || !includes(c, pod, *n->node)) {
        continue;
      }
      counted.domains[*node_label(*n->node, c.topology_key)] += pods.of(i, *n);
    }
    constraints_.push_back(std::move(counted));
  }
}

std::string SpreadFilter::misfit(const json& node) const {
  for (const Counted& c : constraints_) {
    const std::string* domain = node_label(node, c.constraint.topology_key);
    if (domain == nullptr) {
      return "node(s) didn't match pod topology spread constraints (missing required label)";
    }
    int64_t least = 0;
    if (!c.domains.empty() && static_cast<int64_t>(c.domains.size()) >= c.constraint.min_domains) {
      least = std::numeric_limits<int64_t>::max();
      for (const auto& entry : c.domains) {
        least = std::min(least, entry.second);
      }
    }
    auto here = c.domains.find(*domain);
    const int64_t mine = here != c.domains.end() ? here->second : 0;
    if (mine + (c.self_match ? 1 : 0) - least > c.constraint.max_skew) {
      return "node(s) didn't match pod topology spread constraints";
    }
  }
  return "";
}

std::vector<int64_t> spread_scores(const json& pod, const json& default_selector,
                                   const std::vector<const NodeInfo*>& all,
                                   const std::vector<const NodeInfo*>& feasible) {
  std::vector<int64_t> scores(feasible.size(), 0);
  const std::vector<SpreadConstraint> constraints =
      spread_constraints(pod, "ScheduleAnyway", default_selector);
  if (constraints.empty() || feasible.empty() || all.empty()) {
    return scores;  // the plugin is skipped
  }
  // Nodes without every key are left out, except with the system defaults (a node without a
  // zone label still spreads by hostname).
  const json* own = at(pod, {"spec", "topologySpreadConstraints"});
  const bool require_all_keys = own != nullptr && own->is_array() && !own->empty();
  PodCounts pods(constraints, namespace_of(pod));
  std::vector<bool> ignored(feasible.size(), false);
  // The domains of the feasible nodes, per constraint, and how many there are.
  std::vector<std::map<std::string, int64_t>> counts(constraints.size());
  std::vector<double> weights(constraints.size(), 0);
  size_t scored = 0;
  for (size_t i = 0; i < feasible.size(); ++i) {
    const json& node = *feasible[i]->node;
    if (require_all_keys && !has_all_keys(node, constraints)) {
      ignored[i] = true;
      continue;
    }
    ++scored;
    for (size_t c = 0; c < constraints.size(); ++c) {
      if (constraints[c].topology_key == kHostname) {
        continue;  // counted per node below
      }
      const std::string* domain = node_label(node, constraints[c].topology_key);
      counts[c].emplace(domain != nullptr ? *domain : std::string(), 0);
    }
  }
  for (size_t c = 0; c < constraints.size(); ++c) {
    const size_t domains = constraints[c].topology_key == kHostname ? scored : counts[c].size();
    weights[c] = std::log(static_cast<double>(domains + 2));
  }
  for (const NodeInfo* n : all) {
    const json& node = *n->node;
    if (require_all_keys && !has_all_keys(node, constraints)) {
      continue;
    }
    for (size_t c = 0; c < constraints.size(); ++c) {
      const SpreadConstraint& sc = constraints[c];
      if (sc.topology_key == kHostname || !includes(sc, pod, node)) {
        continue;
      }
      const std::string* domain = node_label(node, sc.topology_key);
      auto it = counts[c].find(domain != nullptr ? *domain : std::string());
      if (it != counts[c].end()) {
        it->second += pods.of(c, *n);
      }
    }
  }
  int64_t low = std::numeric_limits<int64_t>::max();
  int64_t high = 0;
  for (size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i]) {
      continue;
    }
    const json& node = *feasible[i]->node;
    double sum = 0;
    for (size_t c = 0; c < constraints.size(); ++c) {
      const SpreadConstraint& sc = constraints[c];
      const std::string* domain = node_label(node, sc.topology_key);
      if (domain == nullptr) {
        continue;
      }
      const int64_t n =
          sc.topology_key == kHostname ? pods.of(c, *feasible[i]) : counts[c][*domain];
      sum += static_cast<double>(n) * weights[c] + static_cast<double>(sc.max_skew - 1);
    }
    scores[i] = std::llround(sum);
    low = std::min(low, scores[i]);
    high = std::max(high, scores[i]);
  }
  for (size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i]) {
      scores[i] = 0;
    } else if (high == 0) {
      scores[i] = 100;
    } else {
      scores[i] = 100 * (high + low - scores[i]) / high;
    }
  }
  return scores;
}

}  // namespace cluster
