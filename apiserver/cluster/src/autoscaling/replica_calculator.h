// The HPA controller's replica count for a resource metric (cpu, memory), as upstream's replica
// calculator works it out from the resource metrics API's pod metrics and the pods the target's
// selector matches: pods being deleted or Failed are left out; Pending ones, and for cpu those
// not ready (or ready too recently for a whole metrics window) are unready; pods without metrics
// are missing. The ratio of usage to target from the ready pods decides, unless it is within the
// tolerance; missing pods then count as using 100% (scaling down) or 0% (scaling up), unready
// ones as 0% when scaling up, and a count that would turn the direction around keeps the
// current one.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/informer.h"
#include "common/result.h"

namespace cluster {

using nlohmann::json;

// One pod's usage of the resource, summed over its containers (or the one container asked for),
// in milli-units, with when and over which window the metrics pipeline measured it.
struct PodMetric {
  int64_t milli = 0;
  std::chrono::system_clock::time_point timestamp{};
  std::chrono::milliseconds window{0};
};
using PodMetrics = std::map<std::string, PodMetric>;  // by pod name

// The pod metrics of a PodMetricsList (metrics.k8s.io/v1beta1) for `resource`; a pod whose
// containers lack it (or have none) is left out. An error when the list has no item.
common::Result<PodMetrics> pod_metrics(const json& list, const std::string& resource,
                                       const std::string& container);

// A resource.Quantity in milli-units, rounded up as Quantity.MilliValue does; nullopt when it
// does not parse.
std::optional<int64_t> milli_value(const std::string& quantity);

struct ReplicaCalculation {
  std::chrono::milliseconds cpu_initialization_period{std::chrono::minutes(5)};
  std::chrono::milliseconds initial_readiness_delay{std::chrono::seconds(30)};
  double tolerance = 0.1;
  std::chrono::system_clock::time_point now{};
};

struct ReplicaProposal {
  int64_t replicas = 0;
  int64_t utilization = 0;  // percent of the requests (Utilization targets)
  int64_t raw_average = 0;  // milli-units per pod
};

// For a Utilization target (percent of the pods' requests).
common::Result<ReplicaProposal> replicas_for_utilization(
    const ReplicaCalculation& how, int64_t current_replicas, int64_t target_utilization,
    const std::string& resource, const std::string& container, PodMetrics metrics,
    const std::vector<ObjectPtr>& pods);

// For an AverageValue target (milli-units per pod).
common::Result<ReplicaProposal> replicas_for_average_value(
    const ReplicaCalculation& how, int64_t current_replicas, int64_t target_milli,
    const std::string& resource, PodMetrics metrics, const std::vector<ObjectPtr>& pods);

}  // namespace cluster
