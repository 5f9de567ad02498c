// The disruption controller, as kube-controller-manager's: it keeps each PodDisruptionBudget's
// status (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, the
// DisruptionAllowed condition) from the pods its selector matches, so that evictions (kubectl
// drain) know how many pods may go. Percentages and maxUnavailable count against the scale of
// the pods' controllers (ReplicaSet, ReplicationController, StatefulSet, and a ReplicaSet's
// Deployment).
#pragma once

#include "client/api_client.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class DisruptionController final : public Controller {
 public:
  DisruptionController(const Client& client, Informer& pods, const common::Clock& clock);
  ~DisruptionController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  void pod_changed(const json& pod);
  // The replicas of the pod's controller (nullopt when it has none or it cannot be read).
  std::optional<int64_t> controller_scale(const json& pod, const std::string& ns);

  const Client& client_;
  Informer budgets_;
  Informer& pods_;
};

// `value`: minAvailable or maxUnavailable (int or "N%"); `of`: the count a percentage is of.
// Percentages round up, as upstream's GetScaledValueFromIntOrPercent(..., true).
std::optional<int64_t> scaled_value(const json& value, int64_t of);

}  // namespace cluster
