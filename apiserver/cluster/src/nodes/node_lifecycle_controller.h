// The node lifecycle controller, as kube-controller-manager's: it watches the nodes and their
// Leases in kube-node-lease. A node whose kubelet stopped renewing its lease for the grace period
// (40 s) gets Ready=Unknown (NodeStatusUnknown, "Kubelet stopped posting node status.") and the
// unreachable taints; a node whose Ready condition is False gets the not-ready ones; a Ready node
// loses both (the API server adds not-ready:NoSchedule to every new node). The NoExecute taints
// are what evicts pods, after their tolerationSeconds.
#pragma once

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class NodeLifecycleController final : public Controller {
 public:
  NodeLifecycleController(const Client& client, const common::Clock& clock);
  ~NodeLifecycleController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  const Client& client_;
  EventRecorder events_;
  Informer nodes_;
  Informer leases_;
};

}  // namespace cluster
