// The CronJob controller, as kube-controller-manager's (cronjob-controller, v2): at each time
// spec.schedule names (read in spec.timeZone, UTC when unset) it creates a Job from
// spec.jobTemplate named <cronjob>-<scheduled time in minutes since the epoch>, with a controller
// ownerReference and the batch.kubernetes.io/cronjob-scheduled-timestamp annotation, and keeps
// status.active, lastScheduleTime and lastSuccessfulTime. Only the most recent missed time runs;
// more than 100 missed ones warn (TooManyMissedTimes), and startingDeadlineSeconds leaves out
// the times older than it. It honours concurrencyPolicy (Allow; Forbid: no new Job while one is
// active; Replace: the active ones are deleted first) and suspend, and deletes the oldest
// finished Jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit. Between due times
// each CronJob waits in the queue (requeue_after) for its next one. The decisions that need no
// API are in cron_job_utils.
//
// Its time can run faster than the cluster's (ClusterOptions::cron_clock_speed), so that
// schedules counted in minutes can be watched in seconds.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "workloads/cron_job_utils.h"

namespace cluster {

// The CronJob controller's clock: real time sped up `speed` times from `start` (the moment the
// cluster started). Instants before `start` read as they are.
struct CronClock {
  std::chrono::system_clock::time_point start;
  double speed = 1;

  // The controller's time at real time `real` (start + (real - start) * speed).
  std::chrono::system_clock::time_point virtual_time(
      std::chrono::system_clock::time_point real) const;
  // How long to wait in real time for `delay` of the controller's time to pass (never negative).
  common::Clock::duration real_delay(std::chrono::system_clock::duration delay) const;
};

class CronJobController final : public Controller {
 public:
  // `speed`: ClusterOptions::cron_clock_speed.
  CronJobController(const Client& client, double speed, const common::Clock& clock);
  ~CronJobController() override;

  // Starts the CronJobs' and Jobs' informers; the controller's time starts running `speed` times
  // faster from here.
  void start() override;

  // What one sync decided: when to look again (on the controller's clock), or an error to retry
  // with a backoff; neither when the CronJob waits for a change (suspended, a bad schedule).
  struct Outcome {
    std::optional<std::chrono::system_clock::duration> requeue;
    std::optional<std::string> error;
  };
  // One sync of `cron_job` (as the informer has it) with the Jobs that name it as their
  // controller, at `now` on the controller's clock: everything sync(key) does after reading the
  // informers, requests, events and the status write included.
  Outcome sync_for_test(const json& cron_job, const std::vector<ObjectPtr>& jobs,
                        std::chrono::system_clock::time_point now);

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  std::chrono::system_clock::time_point now() const;
  // creationTimestamp on the controller's clock.
  std::chrono::system_clock::time_point created(const json& cron_job,
                                                std::chrono::system_clock::time_point now) const;
  // The informers' handlers: who to look at again when a Job or a CronJob changes.
  void job_changed(const json* old, const json& job);
  void cron_job_updated(const json& old, const json& cron_job);
  // The CronJob a controller reference names, when it is still that one (same uid).
  ObjectPtr resolve(const std::string& ns, const json& ref) const;

  Outcome sync_object(json cron_job, const std::vector<ObjectPtr>& jobs,
                      std::chrono::system_clock::time_point now);
  // upstream's cleanupFinishedJobs: the oldest finished Jobs beyond the history limits.
  void clean_up_finished(json& cron_job, const std::vector<ObjectPtr>& jobs);
  // upstream's syncCronJob, on a copy of the CronJob whose status it changes. `written`: the
  // status the API has, which the status write compares with.
  Outcome sync_cron_job(json& cron_job, const std::vector<ObjectPtr>& jobs,
                        std::chrono::system_clock::time_point now, json& written);
  // status.active against the Jobs seen; an error when the API could not be asked. A live read
  // of the CronJob that is newer replaces `cron_job` and `written`.
  std::optional<std::string> reconcile_active(json& cron_job, const std::vector<ObjectPtr>& jobs,
                                              json& written);
  // Starts the run due at `scheduled` (concurrencyPolicy, the Job, status.active). Returns an
  // error, nothing (the CronJob waits for a change), or a zero requeue: look again at the next
  // due time, which the caller works out from the status this leaves.
  Outcome start_run(json& cron_job, std::chrono::system_clock::time_point scheduled,
                    const common::TimeZone& zone);
  bool delete_job(json& cron_job, const json& job);

  const Client& client_;
  EventRecorder events_;
  Informer cron_jobs_;
  Informer jobs_;
  CronClock time_;  // set by start(), before the worker runs
};

}  // namespace cluster
