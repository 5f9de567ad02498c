// The Deployment controller, as kube-controller-manager's: a Deployment's pod template lives in
// a ReplicaSet named <deployment>-<pod-template-hash> (the hash also in its selector and template
// labels, a controller ownerReference to the Deployment, the revision, desired-replicas and
// max-replicas annotations). A template change makes a new ReplicaSet, and the rollout moves the
// replicas to it: RollingUpdate within maxSurge and maxUnavailable, Recreate by scaling the old
// ones to 0 and waiting for their pods to go first. A changed spec.replicas, or a paused
// Deployment's, scales the ReplicaSets in proportion. Old ReplicaSets beyond
// revisionHistoryLimit are deleted once empty. The status counts the ReplicaSets' replicas and
// carries the Available and Progressing conditions (progressDeadlineSeconds is timed with
// requeue_after). Events: ScalingReplicaSet, ReplicaSetCreateError, SelectingAll.
//
// Each sync makes at most one step of the rollout (rollout logic in deployment_rollout.h) and
// writes the status; the ReplicaSets' changes come back through the informer and queue the
// Deployment again. Matching orphan ReplicaSets are adopted, those it no longer selects released.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/deployment_rollout.h"

namespace cluster {

class DeploymentController final : public Controller {
 public:
  // `pods`: the shared informer (Recreate waits for the old pods to be gone).
  DeploymentController(const Client& client, Informer& pods, const common::Clock& clock);
  ~DeploymentController() override;

  void start() override;  // starts the Deployments' and ReplicaSets' informers

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  void pod_deleted(const json& pod);
  // The ReplicaSets the Deployment controls, adopting matching orphans and releasing those it
  // no longer selects (controller_ref_manager).
  Result<std::vector<json>> claim_replica_sets(const json& d);
  // Finds the new ReplicaSet (creating it when `create`), syncs its annotations and the
  // Deployment's revision; `d` is updated with what the API answered. No new_rs and no error
  // when there is none (yet).
  struct Sets {
    std::optional<json> new_rs;
    std::vector<json> old;
    std::vector<json> all() const;
  };
  Result<Sets> sets_and_revision(json& d, const std::vector<json>& rs_list, bool create);
  Result<json> create_new_rs(json& d, const std::vector<json>& old, int64_t revision);
  // Writes one scale of a ReplicaSet (and its replicas annotations); the event when the size
  // changed.
  Result<json> scale(const json& d, const json& rs, int64_t to);
  // Applies `steps` in order; true when one scaled.
  Result<bool> apply(const json& d, const std::vector<json>& all,
                     const std::vector<deployment::Scale>& steps);
  std::optional<std::string> write_status(json& d, const json& status);
  std::optional<std::string> sync_paused_or_scaled(json& d, const Sets& sets);
  std::optional<std::string> rollout(json& d, const std::vector<json>& rs_list, Sets sets);
  std::optional<std::string> finish_rollout(json& d, const Sets& sets);
  void clean_up(const json& d, const std::vector<json>& old);
  bool old_pods_running(const Sets& sets) const;

  const Client& client_;
  EventRecorder events_;
  Informer deployments_;
  Informer replica_sets_;
  Informer& pods_;
};

}  // namespace cluster
