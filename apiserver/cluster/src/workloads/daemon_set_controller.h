// The DaemonSet controller, as kube-controller-manager's: one pod per node that the template
// fits (daemon_set_utils decides which), created pinned to its node and bound by the scheduler;
// pods on nodes that no longer want them are deleted, failed ones replaced. It adopts matching
// orphan pods and ControllerRevisions and releases those it no longer selects
// (controller_ref_manager). ControllerRevisions record each template; a RollingUpdate with
// maxSurge 0 deletes old pods while at most maxUnavailable nodes lack an available new one, and
// the manage pass creates their replacements; with maxSurge it creates the new pod next to the
// old one and deletes the old one once the new one is available; OnDelete waits for the user.
// Waits for its creations and deletions to show in the informer before it counts again
// (expectations).
//
// Events, as upstream: SuccessfulCreate "Created pod: <name>", SuccessfulDelete
// "Deleted pod: <name>", FailedCreate "Error creating: <why>", FailedDelete, and FailedDaemonPod
// "Found failed daemon pod <ns>/<name> on node <node>, will try to kill it".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/expectations.h"

namespace cluster {

class DaemonSetController final : public Controller {
 public:
  // `pods`: the shared informer, started by its owner.
  DaemonSetController(const Client& client, Informer& pods, const common::Clock& clock);
  ~DaemonSetController() override;

  void start() override;  // starts the DaemonSets', nodes' and revisions' informers

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  void pod_updated(const json& old, const json& pod);
  void enqueue_all();
  // The current revision (created, or renumbered to the newest, when needed); collision_count
  // grows with the hash collisions met.
  Result<json> current_revision(const json& daemon_set, const std::vector<ObjectPtr>& history,
                                int64_t& collision_count);
  std::optional<std::string> create_pods(const json& daemon_set, const json& pod_template,
                                         const std::vector<std::string>& nodes,
                                         std::set<std::string>& created);
  std::optional<std::string> delete_pods(const json& daemon_set,
                                         const std::vector<std::string>& names,
                                         std::set<std::string>& deleted);
  void prune_history(const json& daemon_set, const json& current,
                     const std::vector<ObjectPtr>& history, const std::vector<ObjectPtr>& pods);

  const Client& client_;
  EventRecorder events_;
  Informer daemon_sets_;
  Informer nodes_;
  Informer revisions_;
  Informer& pods_;
  PodExpectations expectations_;
};

}  // namespace cluster
