// The StatefulSet controller, as kube-controller-manager's: pods with a stable identity
// (<set>-<ordinal>, hostname and subdomain), each with its own PersistentVolumeClaims made from
// spec.volumeClaimTemplates before the pod. OrderedReady sets create pods one at a time, lowest
// ordinal first, each after the previous one is Running and Ready, and scale down from the
// highest ordinal, one at a time; Parallel sets do not wait. ControllerRevisions record each
// template (currentRevision, updateRevision); a RollingUpdate replaces the pods at or above the
// partition whose controller-revision-hash is not the update revision, highest first, one at a
// time; OnDelete waits for the user to delete them. The plan is stateful_set_utils'; this class
// reads the informers, carries the plan out and writes the status.
//
// Events, as upstream: SuccessfulCreate "create Pod web-0 in StatefulSet web successful",
// "create Claim data-web-0 Pod web-0 in StatefulSet web success"; SuccessfulDelete,
// SuccessfulUpdate; FailedCreate, FailedDelete, FailedUpdate ("... failed error: <why>");
// RecreatingFailedPod, RecreatingTerminatedPod.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/stateful_set_utils.h"

namespace cluster {

class StatefulSetController final : public Controller {
 public:
  // `pods`: the shared informer, started by its owner.
  StatefulSetController(const Client& client, Informer& pods, const common::Clock& clock);
  ~StatefulSetController() override;

  void start() override;  // starts the sets' and revisions' informers

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  struct Revisions {
    json current;
    json update;
    int64_t collision_count = 0;
  };
  void claim_deleted(const json& claim);
  // Adopts the revisions matching the set's selector that have no controller, adding them to
  // `history`.
  std::optional<std::string> adopt_orphan_revisions(ControllerRefManager& refs, const json& set,
                                                    std::vector<ObjectPtr>& history);
  Result<Revisions> revisions_of(const json& set, const std::vector<ObjectPtr>& history);
  std::optional<std::string> apply(const json& set, const StatefulAction& action,
                                   const Revisions& revisions);
  std::optional<std::string> create_pod(const json& set, const json& pod);
  std::optional<std::string> create_claims(const json& set, const std::string& pod,
                                           int64_t ordinal);
  // Sets the references of `pod`'s claims as the retention policy wants (stateful_set_retention);
  // a failure is recorded as a failed pod update when `record_failure`.
  std::optional<std::string> retain_claims(const json& set, const json& pod, bool record_failure);
  std::optional<std::string> delete_pod(const json& set, const std::string& pod);
  void record(const json& set, const std::string& verb, const std::string& pod,
              const std::optional<ApiError>& error);
  std::optional<std::string> update_status(const json& set, const json& status);
  void prune_history(const json& set, const Revisions& revisions,
                     const std::vector<ObjectPtr>& history, const std::vector<ObjectPtr>& pods);

  const Client& client_;
  EventRecorder events_;
  Informer sets_;
  Informer revisions_;
  Informer claims_;
  Informer& pods_;
};

}  // namespace cluster
