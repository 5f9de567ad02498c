#include "autoscaling/hpa_rules.h"

#include "client/objects.h"

namespace cluster {

common::Result<GroupVersion> parse_group_version(const std::string& api_version) {
  const size_t slash = api_version.find('/');
  if (slash == std::string::npos) {
    return GroupVersion{"", api_version};
  }
  if (api_version.find('/', slash + 1) != std::string::npos) {
    return common::Result<GroupVersion>::failure("unexpected GroupVersion string: " + api_version);
  }
  return GroupVersion{api_version.substr(0, slash), api_version.substr(slash + 1)};
}

BoundsDecision decide_by_bounds(int64_t current, int64_t min_replicas, int64_t max_replicas) {
  if (current == 0 && min_replicas != 0) {
    return {BoundsDecision::Kind::Disabled, 0, ""};
  }
  if (current > max_replicas) {
    return {BoundsDecision::Kind::Rescale, max_replicas,
            "Current number of replicas above Spec.MaxReplicas"};
  }
  if (current < min_replicas) {
    return {BoundsDecision::Kind::Rescale, min_replicas,
            "Current number of replicas below Spec.MinReplicas"};
  }
  return {BoundsDecision::Kind::Metrics, current, ""};
}

namespace {

// A failure reported as getUnableComputeReplicaCountCondition does: the event carries the
// error, the condition says the count could not be computed.
MetricFailure unable(const std::string& reason, const std::string& error,
                     const std::string& wrapped) {
  return {reason, error, "the HPA was unable to compute the replica count: " + error, wrapped};
}

// A resource or container resource metric: utilization or average value, of the resource named.
MetricFailure resource_failure(const json& source, const std::string& reason,
                               const std::string& what, const std::string& cause) {
  const std::string name = string_at(source, {"name"});
  const json* target = at(source, {"target"});
  std::string error;
  if (target != nullptr && at(*target, {"averageValue"}) != nullptr) {
    error = "failed to get " + name + " usage: " + cause;
  } else if (target == nullptr || at(*target, {"averageUtilization"}) == nullptr) {
    error =
        "invalid resource metric source: neither a utilization target nor a value target was "
        "set";
  } else {
    error = "failed to get " + name + " utilization: " + cause;
  }
  return unable(reason, error, "failed to get " + name + " " + what + " metric value: " + error);
}

}  // namespace

MetricFailure metric_failure(const json& metric, const std::string& cause) {
  const std::string type = string_at(metric, {"type"});
  if (type == "Resource") {
    const json* source = at(metric, {"resource"});
    return resource_failure(source ? *source : json::object(), "FailedGetResourceMetric",
                            "resource", cause);
  }
  if (type == "ContainerResource") {
    const json* source = at(metric, {"containerResource"});
    return resource_failure(source ? *source : json::object(), "FailedGetContainerResourceMetric",
                            "container", cause);
  }
  if (type == "Pods") {
    return unable("FailedGetPodsMetric", cause, "failed to get pods metric value: " + cause);
  }
  if (type == "Object") {
    return unable("FailedGetObjectMetric", cause, "failed to get object metric value: " + cause);
  }
  if (type == "External") {
    const std::string name = string_at(metric, {"external", "metric", "name"});
    return unable("FailedGetExternalMetric", cause,
                  "failed to get external metric " + name + ": " + cause);
  }
  const std::string error = "unknown metric source type \"" + type + "\"";
  return unable("InvalidMetricSourceType", error, error);
}

std::string resource_metrics_error(const std::string& resource, int code,
                                   const std::string& message) {
  std::string inner = message;
  if (code == 404) {
    inner = "the server could not find the requested resource (get pods.metrics.k8s.io)";
  } else if (code == 503) {
    inner = "the server is currently unable to handle the request (get pods.metrics.k8s.io)";
  }
  return "unable to get metrics for resource " + resource +
         ": unable to fetch metrics from resource metrics API: " + inner;
}

std::string invalid_metrics_message(size_t invalid, size_t total, const std::string& first) {
  return "invalid metrics (" + std::to_string(invalid) + " invalid out of " +
         std::to_string(total) + "), first error is: " + first;
}

}  // namespace cluster
