// The horizontal pod autoscaler controller, as kube-controller-manager's: every sync period (first
// one sync period after an HPA appears) it reads the target's scale subresource (found through
// discovery, as the RESTMapper finds it), keeps the target within minReplicas and maxReplicas
// (SuccessfulRescale), stays out of a target scaled to zero (ScalingDisabled), and otherwise reads
// each metric of spec.metrics. Resource and ContainerResource metrics come from the resource
// metrics API (metrics.k8s.io, which metrics-server serves through an APIService): the replica
// count is the calculator's (replica_calculator), the largest of the metrics', normalized by the
// stabilization windows, rate limits and bounds (hpa_normalize), and written to the scale
// subresource. kube-sandbox serves no metrics API itself (the simulated pods use no CPU), so
// without one the controller stops where upstream's does without metrics-server: ScalingActive=
// False with the error, the events FailedGetResourceMetric and FailedComputeMetricsReplicas, and
// no scaling; so too when another HPA's target selects the same pods (AmbiguousSelector). Pods,
// Object and External metrics (the custom and external metrics APIs) are not read. Status
// (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime, the AbleToScale, ScalingActive
// and ScalingLimited conditions) is written through the status subresource when it changed.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "autoscaling/hpa_normalize.h"
#include "autoscaling/hpa_rules.h"
#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "gc/discovery.h"

namespace cluster {

// A metric's replica count, its name as conditions and events say it, and its status entry.
struct MetricProposal {
  int64_t replicas = 0;
  std::string name;  // "cpu resource utilization (percentage of request)"
  json status;       // an entry of status.currentMetrics
};
using MetricOutcome = std::variant<MetricProposal, MetricFailure>;

class HorizontalPodAutoscalerController final : public Controller {
 public:
  // `sync_period`: --horizontal-pod-autoscaler-sync-period; `downscale_stabilization`:
  // --horizontal-pod-autoscaler-downscale-stabilization.
  HorizontalPodAutoscalerController(const Client& client, std::chrono::milliseconds sync_period,
                                    std::chrono::seconds downscale_stabilization,
                                    const common::Clock& clock);
  ~HorizontalPodAutoscalerController() override;

  void start() override;
  // The HPA as the controller's cache holds it (tests wait for the cache to see a write).
  ObjectPtr cached(const std::string& namespace_, const std::string& name) const {
    return autoscalers_.get(namespace_, name);
  }

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // One look at the HPA; the error upstream's controller would log.
  std::optional<std::string> reconcile(const json& hpa);
  // The resource whose scale subresource the reference names; the error as the controller words
  // it when there is none.
  common::Result<ResourceRef> scale_resource(const std::string& api_version,
                                             const std::string& kind);
  // One metric of spec.metrics read and turned into a replica count for the pods `selector`
  // matches, the target being at `current` replicas; or why not.
  MetricOutcome evaluate_metric(const json& metric, const std::string& namespace_,
                                const std::string& selector, int64_t current,
                                const std::vector<ObjectPtr>& pods) const;
  // Writes the HPA's status when it differs from what the cache holds.
  std::optional<std::string> write_status(const json& before, const json& after);

  const Client& client_;
  EventRecorder events_;
  Informer autoscalers_;
  const std::chrono::milliseconds period_;
  const std::chrono::seconds downscale_stabilization_;
  // Whether `pods` (those the HPA's target selects) are selected by another HPA of the namespace
  // too (its target's selector as last read): then the error, in upstream's words, naming every
  // HPA that selects them.
  std::optional<std::string> ambiguity(const json& hpa, const std::string& selector,
                                       const json& pods) const;

  std::map<std::string, ScaleHistory> histories_;  // by HPA key; the worker's alone
  std::map<std::string, std::string> selectors_;   // by HPA key: its target's selector, as read
  std::optional<gc::Discovery> discovery_;
  common::Clock::time_point discovered_at_{};
};

}  // namespace cluster
