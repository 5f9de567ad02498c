// The ReplicaSet controller (and, with the same loop, the ReplicationController one), as
// kube-controller-manager's: it keeps spec.replicas pods matching the selector, created from the
// pod template with a controller ownerReference (named <owner>-<random>), adopting matching
// orphans and releasing the pods it no longer selects (controller_ref_manager), deleting the
// least useful surplus pods first (unscheduled, then pending, then not ready, then the newest).
// It waits for the pods it created or deleted to show in its informer before it counts again
// (client-go's "expectations"), and keeps status (replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas, observedGeneration, the ReplicaFailure condition). Events:
// SuccessfulCreate, SuccessfulDelete, FailedCreate.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/expectations.h"

namespace cluster {

class ReplicaSetController final : public Controller {
 public:
  // `owners`: replicasets (apps/v1) or replicationcontrollers (v1); `pods` the shared informer.
  ReplicaSetController(const Client& client, ResourceRef owners, Informer& pods,
                       const common::Clock& clock);
  ~ReplicaSetController() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  json selector_of(const json& owner) const;
  std::optional<std::string> update_status(const json& owner, const std::vector<ObjectPtr>& pods,
                                           const std::optional<std::string>& failure);

  const Client& client_;
  const ResourceRef owners_;
  const std::string kind_;
  EventRecorder events_;
  Informer owner_informer_;
  Informer& pods_;
  PodExpectations expectations_;
};

}  // namespace cluster
