#include "autoscaling/replica_calculator.h"

#include <cmath>
#include <set>

#include "client/objects.h"
#include "common/go_numbers.h"
#include "common/quantity.h"

namespace cluster {
namespace {

using Proposal = common::Result<ReplicaProposal>;

struct PodGroups {
  int64_t ready = 0;
  std::set<std::string> unready;
  std::set<std::string> missing;
  std::set<std::string> ignored;
};

// Sorts the pods as upstream's groupPods does.
PodGroups group_pods(const ReplicaCalculation& how, const std::vector<ObjectPtr>& pods,
                     const PodMetrics& metrics, const std::string& resource) {
  PodGroups groups;
  for (const ObjectPtr& pod : pods) {
    const std::string name = name_of(*pod);
    const std::string phase = string_at(*pod, {"status", "phase"});
    if (being_deleted(*pod) || phase == "Failed") {
      groups.ignored.insert(name);
      continue;
    }
    if (phase == "Pending") {
      groups.unready.insert(name);
      continue;
    }
    auto metric = metrics.find(name);
    if (metric == metrics.end()) {
      groups.missing.insert(name);
      continue;
    }
    if (resource == "cpu") {
      const json* ready = condition(*pod, "Ready");
      const auto started = parse_time(string_at(*pod, {"status", "startTime"}));
      bool unready = true;
      if (ready != nullptr && started) {
        const bool ready_false = string_at(*ready, {"status"}) == "False";
        const auto transition =
            parse_time(string_at(*ready, {"lastTransitionTime"})).value_or(*started);
        if (*started + how.cpu_initialization_period > how.now) {
          // Still starting: a sample counts once a whole window follows the last transition.
          unready = ready_false || metric->second.timestamp < transition + metric->second.window;
        } else {
          // Not ready and never ready since it started: left out.
          unready = ready_false && *started + how.initial_readiness_delay > transition;
        }
      }
      if (unready) {
        groups.unready.insert(name);
        continue;
      }
    }
    ++groups.ready;
  }
  return groups;
}

// The pods' requests of the resource in milli-units (summed over the containers, or the one
// named); an error naming the first container without one.
common::Result<std::map<std::string, int64_t>> pod_requests(const std::vector<ObjectPtr>& pods,
                                                            const std::string& container,
                                                            const std::string& resource) {
  std::map<std::string, int64_t> requests;
  for (const ObjectPtr& pod : pods) {
    int64_t sum = 0;
    const json* containers = at(*pod, {"spec", "containers"});
    if (containers != nullptr && containers->is_array()) {
      for (const json& c : *containers) {
        const std::string name = string_at(c, {"name"});
        if (!container.empty() && name != container) {
          continue;
        }
        const auto request = milli_value(string_at(c, {"resources", "requests", resource.c_str()}));
        if (!request) {
          return common::Result<std::map<std::string, int64_t>>::failure(
              "missing request for " + resource + " in container " + name + " of Pod " +
              name_of(*pod));
        }
        sum += *request;
      }
    }
    requests[name_of(*pod)] = sum;
  }
  return requests;
}

struct Ratio {
  double ratio = 0;
  int64_t utilization = 0;
  int64_t raw_average = 0;
};

// GetResourceUtilizationRatio: usage over requests of the pods that have both.
common::Result<Ratio> utilization_ratio(const PodMetrics& metrics,
                                        const std::map<std::string, int64_t>& requests,
                                        int64_t target) {
  int64_t used = 0;
  int64_t requested = 0;
  int64_t entries = 0;
  for (const auto& [pod, metric] : metrics) {
    auto request = requests.find(pod);
    if (request == requests.end()) {
      continue;
    }
    used += metric.milli;
    requested += request->second;
    ++entries;
  }
  if (requested == 0) {
    return common::Result<Ratio>::failure("no metrics returned matched known pods");
  }
  const int64_t utilization = used * 100 / requested;
  return Ratio{static_cast<double>(utilization) / static_cast<double>(target), utilization,
               used / entries};
}

// GetMetricUsageRatio: the average usage over the target.
Ratio usage_ratio(const PodMetrics& metrics, int64_t target) {
  int64_t total = 0;
  for (const auto& [pod, metric] : metrics) {
    total += metric.milli;
  }
  const int64_t average = total / static_cast<int64_t>(metrics.size());
  return Ratio{static_cast<double>(average) / static_cast<double>(target), 0, average};
}

int64_t ceil_count(double ratio, size_t pods) {
  return static_cast<int64_t>(std::ceil(ratio * static_cast<double>(pods)));
}

// The part both targets share: `ratio_of` computes the ratio of a set of metrics, `missing_down`
// is what a missing pod counts as using when scaling down.
template <class RatioOf>
Proposal propose(const ReplicaCalculation& how, int64_t current, const std::string& resource,
                 PodMetrics metrics, const std::vector<ObjectPtr>& pods, RatioOf ratio_of,
                 const std::map<std::string, int64_t>& missing_down) {
  if (pods.empty()) {
    return Proposal::failure("no pods returned by selector while calculating replica count");
  }
  const PodGroups groups = group_pods(how, pods, metrics, resource);
  for (const auto* left_out : {&groups.ignored, &groups.unready}) {
    for (const std::string& pod : *left_out) {
      metrics.erase(pod);
    }
  }
  if (metrics.empty()) {
    return Proposal::failure("did not receive metrics for targeted pods (pods might be unready)");
  }
  auto first = ratio_of(metrics);
  if (!first) {
    return Proposal::failure(first.error());
  }
  const ReplicaProposal measured{current, first->utilization, first->raw_average};
  const double ratio = first->ratio;
  const bool up_with_unready = !groups.unready.empty() && ratio > 1.0;
  if (!up_with_unready && groups.missing.empty()) {
    if (std::abs(1.0 - ratio) <= how.tolerance) {
      return measured;
    }
    return ReplicaProposal{ceil_count(ratio, static_cast<size_t>(groups.ready)),
                           measured.utilization, measured.raw_average};
  }
  if (ratio < 1.0) {
    for (const std::string& pod : groups.missing) {
      auto fallback = missing_down.find(pod);
      metrics[pod] = PodMetric{fallback != missing_down.end() ? fallback->second : 0, {}, {}};
    }
  } else if (ratio > 1.0) {
    for (const std::string& pod : groups.missing) {
      metrics[pod] = PodMetric{};
    }
  }
  if (up_with_unready) {
    for (const std::string& pod : groups.unready) {
      metrics[pod] = PodMetric{};
    }
  }
  auto second = ratio_of(metrics);
  if (!second) {
    return Proposal::failure(second.error());
  }
  const double again = second->ratio;
  if (std::abs(1.0 - again) <= how.tolerance || (ratio < 1.0 && again > 1.0) ||
      (ratio > 1.0 && again < 1.0)) {
    return measured;  // too small a change, or one that would turn the direction around
  }
  const int64_t replicas = ceil_count(again, metrics.size());
  if ((again < 1.0 && replicas > current) || (again > 1.0 && replicas < current)) {
    return measured;
  }
  return ReplicaProposal{replicas, measured.utilization, measured.raw_average};
}

}  // namespace

std::optional<int64_t> milli_value(const std::string& quantity) {
  const auto value = common::parse_quantity(quantity);
  if (!value) {
    return std::nullopt;
  }
  const double milli = *value * 1000;
  const double nearest = std::round(milli);
  // Quantity.MilliValue rounds a fraction of a milli-unit up; a float's last bits are no fraction.
  return static_cast<int64_t>(std::abs(milli - nearest) < 1e-6 ? nearest : std::ceil(milli));
}

common::Result<PodMetrics> pod_metrics(const json& list, const std::string& resource,
                                       const std::string& container) {
  const json* items = at(list, {"items"});
  if (items == nullptr || !items->is_array() || items->empty()) {
    return common::Result<PodMetrics>::failure("no metrics returned from resource metrics API");
  }
  PodMetrics metrics;
  for (const json& item : *items) {
    const json* containers = at(item, {"containers"});
    bool missing = containers == nullptr || !containers->is_array() || containers->empty();
    int64_t sum = 0;
    bool counted = false;
    for (const json& c : missing ? json::array() : *containers) {
      if (!container.empty() && string_at(c, {"name"}) != container) {
        continue;
      }
      const auto used = milli_value(string_at(c, {"usage", resource.c_str()}));
      if (!used) {
        missing = true;
        break;
      }
      sum += *used;
      counted = true;
    }
    if (missing || (!container.empty() && !counted)) {
      continue;
    }
    PodMetric metric{sum, {}, {}};
    if (auto at_time = parse_time(string_at(item, {"timestamp"}))) {
      metric.timestamp = *at_time;
    }
    if (auto window = common::parse_duration(string_at(item, {"window"}))) {
      metric.window = std::chrono::duration_cast<std::chrono::milliseconds>(*window);
    }
    metrics[string_at(item, {"metadata", "name"})] = metric;
  }
  return metrics;
}

common::Result<ReplicaProposal> replicas_for_utilization(
    const ReplicaCalculation& how, int64_t current_replicas, int64_t target_utilization,
    const std::string& resource, const std::string& container, PodMetrics metrics,
    const std::vector<ObjectPtr>& pods) {
  auto requests = pod_requests(pods, container, resource);
  if (!requests) {
    return Proposal::failure(requests.error());
  }
  // A missing pod counts as using its whole request (or the target, above 100%) scaling down.
  std::map<std::string, int64_t> missing_down;
  for (const auto& [pod, request] : *requests) {
    missing_down[pod] = request * std::max<int64_t>(100, target_utilization) / 100;
  }
  auto ratio_of = [&](const PodMetrics& m) {
    return utilization_ratio(m, *requests, target_utilization);
  };
  return propose(how, current_replicas, resource, std::move(metrics), pods, ratio_of, missing_down);
}

common::Result<ReplicaProposal> replicas_for_average_value(
    const ReplicaCalculation& how, int64_t current_replicas, int64_t target_milli,
    const std::string& resource, PodMetrics metrics, const std::vector<ObjectPtr>& pods) {
  // A missing pod counts as using the target scaling down.
  std::map<std::string, int64_t> missing_down;
  for (const ObjectPtr& pod : pods) {
    missing_down[name_of(*pod)] = target_milli;
  }
  auto ratio_of = [&](const PodMetrics& m) {
    return common::Result<Ratio>(usage_ratio(m, target_milli));
  };
  return propose(how, current_replicas, resource, std::move(metrics), pods, ratio_of, missing_down);
}

}  // namespace cluster
