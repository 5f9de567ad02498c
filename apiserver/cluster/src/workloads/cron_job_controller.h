// The CronJob controller, as kube-controller-manager's (cronjob-controller, v2): at each time
// spec.schedule names (read in spec.timeZone, UTC when unset) it creates a Job from
// spec.jobTemplate named <cronjob>-<scheduled time in minutes since the epoch>, with a controller
// ownerReference and the batch.kubernetes.io/cronjob-scheduled-timestamp annotation, and keeps
// status.active, lastScheduleTime and lastSuccessfulTime. It honours concurrencyPolicy (Allow,
// Forbid: skip while a Job is active, Replace: delete the active ones first), suspend,
// startingDeadlineSeconds (and gives up when more than 100 start times were missed), and deletes
// finished Jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit. Between due times
// each CronJob waits in the queue (requeue_after) for its next one.
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
#include "workloads/cron_schedule.h"

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

// The name of the Job for the run scheduled at `scheduled`: "<cronjob>-<minutes since the
// epoch>", so that one run never makes two Jobs.
std::string cron_job_name(const std::string& cron_job,
                          std::chrono::system_clock::time_point scheduled);

// `scheduled` as RFC 3339 in `zone` ("2024-03-10T03:00:00-04:00", "...Z" at offset zero), as the
// cronjob-scheduled-timestamp annotation writes it.
std::string rfc3339_in(const TimeZone& zone, std::chrono::system_clock::time_point scheduled);

class CronJobController final : public Controller {
 public:
  // `speed`: ClusterOptions::cron_clock_speed.
  CronJobController(const Client& client, double speed, const common::Clock& clock);
  ~CronJobController() override;

  // Starts the CronJobs' and Jobs' informers; the controller's time starts running `speed` times
  // faster from here.
  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // What one pass decided: when to look again (the controller's time), and an error to retry.
  struct Outcome {
    std::optional<std::chrono::system_clock::duration> requeue;
    std::optional<std::string> error;
  };
  std::chrono::system_clock::time_point now() const;
  void job_changed(const json& job);
  void cron_job_updated(const json& old, const json& cron_job);
  // The delay to the next due time after the last one (kube-controller-manager's
  // nextScheduleTimeDuration, 100 ms late), or nullopt when the schedule has no next time.
  std::optional<std::chrono::system_clock::duration> next_delay(const json& cron_job,
                                                                const json& status,
                                                                const CronSchedule& schedule,
                                                                const TimeZone& zone) const;
  void clean_up_finished(const json& cron_job, json& status, const std::vector<ObjectPtr>& jobs);
  bool delete_job(const json& cron_job, json& status, const json& job);
  Outcome reconcile(const json& cron_job, json& status, const std::vector<ObjectPtr>& jobs);

  const Client& client_;
  EventRecorder events_;
  Informer cron_jobs_;
  Informer jobs_;
  CronClock time_;  // set by start(), before the worker runs
};

}  // namespace cluster
