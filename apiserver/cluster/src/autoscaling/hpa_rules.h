// The horizontal pod autoscaler controller's rules, apart from its requests: what the replica
// bounds decide alone, and how a metric that cannot be read is reported (the condition, the
// events and the error text, each worded as kube-controller-manager's).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace cluster {

using nlohmann::json;

// scaleTargetRef.apiVersion as group and version ("apps/v1", or "v1" for the core group); the
// error as apimachinery's ParseGroupVersion words it.
struct GroupVersion {
  std::string group;
  std::string version;
};
common::Result<GroupVersion> parse_group_version(const std::string& api_version);

// What the target's replicas and the HPA's bounds decide before any metric is read.
struct BoundsDecision {
  enum class Kind {
    Disabled,  // the target is at 0 replicas and minReplicas is not: the HPA stays out
    Rescale,   // above maxReplicas or below minReplicas: to the bound, for `reason`
    Metrics,   // within the bounds: the metrics decide
  };
  Kind kind = Kind::Metrics;
  int64_t desired = 0;
  std::string reason;
};
BoundsDecision decide_by_bounds(int64_t current, int64_t min_replicas, int64_t max_replicas);

// A metric of spec.metrics that could not be turned into a replica count.
struct MetricFailure {
  std::string reason;             // the Warning event's and the ScalingActive condition's reason
  std::string event_message;      // that event's message
  std::string condition_message;  // ScalingActive=False's message
  std::string error;              // the metric's error, as FailedComputeMetricsReplicas quotes it
};

// Why `metric` (one entry of spec.metrics) gave no replica count, `cause` being what reading it
// answered (for a resource metric: resource_metrics_error's text).
MetricFailure metric_failure(const json& metric, const std::string& cause);

// The resource metrics API's answer to the pod metrics list, when it was no list, in the words of
// the controller's metrics client: 404 (no metrics.k8s.io served) and 503 (served by an extension
// server that is not available) as client-go words them; otherwise the Status's message.
std::string resource_metrics_error(const std::string& resource, int code,
                                   const std::string& message);

// FailedComputeMetricsReplicas's message when every metric failed, `first` being the first one's.
std::string invalid_metrics_message(size_t invalid, size_t total, const std::string& first);

}  // namespace cluster
