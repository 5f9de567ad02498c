#include "scheduler/scores.h"

#include <algorithm>
#include <cmath>

#include "client/objects.h"
#include "scheduler/spread.h"

namespace cluster {
namespace {

struct Amounts {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
};

Amounts amounts(const Resources& r) {
  return {std::llround(r.cpu * 1000), std::llround(r.memory)};
}

int64_t least_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) {
    return 0;
  }
  return (capacity - requested) * kMaxNodeScore / capacity;
}

// The plugins and their weights in the default profile.
struct Plugin {
  const char* name;
  int64_t weight;
};
constexpr Plugin kTaintToleration{"TaintToleration", 3};
constexpr Plugin kNodeAffinity{"NodeAffinity", 2};
constexpr Plugin kPodTopologySpread{"PodTopologySpread", 2};
constexpr Plugin kInterPodAffinity{"InterPodAffinity", 2};
constexpr Plugin kNodeResourcesFit{"NodeResourcesFit", 1};
constexpr Plugin kBalancedAllocation{"NodeResourcesBalancedAllocation", 1};

}  // namespace

int64_t least_allocated_score(const Resources& pod_non_zero, const NodeInfo& node) {
  const Amounts have = amounts(node_allocatable(*node.node));
  const Amounts used = amounts(node.non_zero);
  const Amounts want = amounts(pod_non_zero);
  int64_t sum = 0;
  int64_t weights = 0;
  if (have.milli_cpu > 0) {
    sum += least_requested(used.milli_cpu + want.milli_cpu, have.milli_cpu);
    ++weights;
  }
  if (have.memory > 0) {
    sum += least_requested(used.memory + want.memory, have.memory);
    ++weights;
  }
  return weights == 0 ? 0 : sum / weights;
}

int64_t balanced_allocation_score(const Resources& pod_requested, const NodeInfo& node) {
  const Amounts have = amounts(node_allocatable(*node.node));
  const Amounts used = amounts(node.requested);
  const Amounts want = amounts(pod_requested);
  std::vector<double> shares;
  auto share = [&](int64_t requested, int64_t capacity) {
    if (capacity > 0) {
      shares.push_back(
          std::min(1.0, static_cast<double>(requested) / static_cast<double>(capacity)));
    }
  };
  share(used.milli_cpu + want.milli_cpu, have.milli_cpu);
  share(used.memory + want.memory, have.memory);
  const double deviation = shares.size() == 2 ? std::abs((shares[0] - shares[1]) / 2) : 0.0;
  return static_cast<int64_t>((1 - deviation) * static_cast<double>(kMaxNodeScore));
}

int64_t node_affinity_preference(const json& pod, const json& node) {
  const json* terms = at(
      pod, {"spec", "affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution"});
  if (terms == nullptr || !terms->is_array()) {
    return 0;
  }
  int64_t sum = 0;
  for (const json& term : *terms) {
    const int64_t weight = int_at(term, {"weight"}, 0);
    const json* preference = at(term, {"preference"});
    // An empty preference matches nothing, as an empty required term does.
    if (weight != 0 && preference != nullptr &&
        node_selector_terms_match(json::array({*preference}), node)) {
      sum += weight;
    }
  }
  return sum;
}

int64_t intolerable_preferred_taints(const json& pod, const json& node) {
  const json* taints = at(node, {"spec", "taints"});
  if (taints == nullptr || !taints->is_array()) {
    return 0;
  }
  // Only the tolerations of PreferNoSchedule (or of every effect) count.
  json tolerations = json::array();
  if (const json* all = at(pod, {"spec", "tolerations"}); all != nullptr && all->is_array()) {
    for (const json& t : *all) {
      const std::string effect = string_at(t, {"effect"});
      if (effect.empty() || effect == "PreferNoSchedule") {
        tolerations.push_back(t);
      }
    }
  }
  int64_t n = 0;
  for (const json& taint : *taints) {
    if (string_at(taint, {"effect"}) != "PreferNoSchedule") {
      continue;
    }
    const bool tolerated = std::any_of(tolerations.begin(), tolerations.end(),
                                       [&](const json& t) { return toleration_matches(t, taint); });
    n += tolerated ? 0 : 1;
  }
  return n;
}

void normalize(std::vector<int64_t>& scores, bool reverse) {
  int64_t high = 0;
  for (int64_t s : scores) {
    high = std::max(high, s);
  }
  for (int64_t& s : scores) {
    if (high == 0) {
      s = reverse ? kMaxNodeScore : s;
      continue;
    }
    s = kMaxNodeScore * s / high;
    if (reverse) {
      s = kMaxNodeScore - s;
    }
  }
}

std::vector<NodeScore> prioritize(const json& pod, const std::vector<const NodeInfo*>& all,
                                  const std::vector<const NodeInfo*>& feasible,
                                  const ScoreInputs& inputs) {
  const size_t n = feasible.size();
  std::vector<NodeScore> out(n);
  const Resources requested = pod_requests(pod);
  const Resources non_zero = pod_requests_non_zero(pod);
  std::vector<int64_t> taints(n), affinity(n), fit(n), balanced(n);
  for (size_t i = 0; i < n; ++i) {
    const json& node = *feasible[i]->node;
    out[i].node = feasible[i]->name;
    taints[i] = intolerable_preferred_taints(pod, node);
    affinity[i] = node_affinity_preference(pod, node);
    fit[i] = least_allocated_score(non_zero, *feasible[i]);
    balanced[i] = balanced_allocation_score(requested, *feasible[i]);
  }
  normalize(taints, true);
  normalize(affinity, false);
  const std::vector<int64_t> spread =
      spread_scores(pod, inputs.default_spread_selector, all, feasible);
  const std::vector<int64_t> inter_pod =
      inter_pod_scores(pod, all, feasible, inputs.namespace_labels);
  const std::pair<Plugin, const std::vector<int64_t>*> plugins[] = {
      {kTaintToleration, &taints},     {kNodeAffinity, &affinity}, {kPodTopologySpread, &spread},
      {kInterPodAffinity, &inter_pod}, {kNodeResourcesFit, &fit},  {kBalancedAllocation, &balanced},
  };
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [plugin, scores] : plugins) {
      out[i].plugins[plugin.name] = (*scores)[i];
      out[i].total += (*scores)[i] * plugin.weight;
    }
  }
  return out;
}

size_t select_host(const std::vector<NodeScore>& scores, std::mt19937& random) {
  size_t chosen = 0;
  size_t ties = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (i == 0 || scores[i].total > scores[chosen].total) {
      chosen = i;
      ties = 1;
    } else if (scores[i].total == scores[chosen].total) {
      // Reservoir sampling: each of the equals ends up chosen with the same chance.
      ++ties;
      if (std::uniform_int_distribution<size_t>(0, ties - 1)(random) == 0) {
        chosen = i;
      }
    }
  }
  return chosen;
}

}  // namespace cluster
