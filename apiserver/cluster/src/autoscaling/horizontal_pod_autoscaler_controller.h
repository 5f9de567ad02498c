// The horizontal pod autoscaler controller, as kube-controller-manager's, for a cluster without
// a metrics pipeline: every sync period (first one sync period after an HPA appears) it reads the
// target's scale subresource (found through discovery, as the RESTMapper finds it), keeps the
// target within minReplicas and maxReplicas (SuccessfulRescale), stays out of a target scaled to
// zero (ScalingDisabled), and otherwise asks the metrics APIs for each metric of spec.metrics. The
// simulated pods use no CPU and kube-sandbox serves no metrics API, so that is where it stops, as
// upstream's does without metrics-server: ScalingActive=False with the error, the events
// FailedGetResourceMetric and FailedComputeMetricsReplicas, and no scaling. When a metrics API
// does answer (an extension server registered for metrics.k8s.io), the controller says that it
// does not compute replicas from metric values. Status (currentReplicas, desiredReplicas,
// currentMetrics, lastScaleTime, the AbleToScale and ScalingActive conditions) is written through
// the status subresource when it changed.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "gc/discovery.h"

namespace cluster {

class HorizontalPodAutoscalerController final : public Controller {
 public:
  // `sync_period`: --horizontal-pod-autoscaler-sync-period.
  HorizontalPodAutoscalerController(const Client& client, std::chrono::milliseconds sync_period,
                                    const common::Clock& clock);
  ~HorizontalPodAutoscalerController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // One look at the HPA; the error upstream's controller would log.
  std::optional<std::string> reconcile(const json& hpa);
  // The resource whose scale subresource the reference names; the error as the controller words
  // it when there is none.
  common::Result<ResourceRef> scale_resource(const std::string& api_version,
                                             const std::string& kind);
  // Why the metric gives no replica count (a metric is read as the controller reads it).
  std::string metric_cause(const json& metric, const std::string& namespace_,
                           const std::string& selector) const;
  // Writes the HPA's status when it differs from what the cache holds.
  std::optional<std::string> write_status(const json& before, const json& after);

  const Client& client_;
  EventRecorder events_;
  Informer autoscalers_;
  const std::chrono::milliseconds period_;
  std::optional<gc::Discovery> discovery_;
  common::Clock::time_point discovered_at_{};
};

}  // namespace cluster
