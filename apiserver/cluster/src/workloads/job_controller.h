// The Job controller, as kube-controller-manager's (v1.32): it runs pods until spec.completions
// of them succeeded (or, without completions, until one did), at most spec.parallelism at once.
//
// - Pods: <job>-<random> (Indexed: <job>-<index>-<random>, with the completion index annotation
//   and label, hostname <job>-<index> and JOB_COMPLETION_INDEX), the job's template and labels,
//   a controller reference, and the batch.kubernetes.io/job-tracking finalizer. A finished pod is
//   counted through status.uncountedTerminatedPods first, then its finalizer is removed, then it
//   moves into succeeded/failed: no pod is counted twice or lost. A pod deleted before it
//   succeeded counts as failed (unless only failed pods are replaced).
// - A failed pod is replaced after a back-off (10 s, doubling, at most 6 min); failures beyond
//   backoffLimit fail the job (BackoffLimitExceeded), as do container restarts reaching it under
//   restartPolicy OnFailure, activeDeadlineSeconds (DeadlineExceeded) and a podFailurePolicy
//   FailJob rule (PodFailurePolicy); an Ignore rule's failures do not count.
// - Finishing: the interim condition first (SuccessCriteriaMet, or FailureTarget), active pods
//   deleted (a failing job counts them as failed), then, once no pod is terminating, Complete
//   (with completionTime) or Failed; events Completed or the failure's reason.
// - suspend deletes the active pods, letting them go uncounted (Suspended=True, JobSuspended);
//   resuming restarts the clock.
// - A pod with the tracking finalizer and no live job to count it (orphaned with
//   --cascade=orphan, its job deleted) loses the finalizer, so it can be deleted.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class JobController final : public Controller {
 public:
  JobController(const Client& client, Informer& pods, const common::Clock& clock);
  ~JobController() override;

  void start() override;
  Informer& jobs() { return jobs_; }

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  void pod_changed(const json& pod);
  // Removes the pod's tracking finalizer (a pod already gone is fine); the error otherwise.
  std::optional<std::string> drop_tracking_finalizer(const json& pod);
  // The same, when no live job tracks the pod any more.
  std::optional<std::string> release_if_orphaned(const json& pod);
  std::optional<std::string> write_status(const json& job, const json& status);

  const Client& client_;
  EventRecorder events_;
  Informer jobs_;
  Informer& pods_;
  std::mutex mu_;
  std::map<std::string, std::set<std::string>> creating_;  // job key -> pod names not yet seen
  // job key -> uids of pods whose tracking finalizer this controller removed, until the pod
  // cache shows it gone (sync)
  std::map<std::string, std::set<std::string>> released_;
};

}  // namespace cluster
