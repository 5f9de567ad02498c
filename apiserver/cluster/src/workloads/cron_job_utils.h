// The CronJob controller's decisions that need no API (kube-controller-manager's cronjob utils):
// which due time a CronJob is at and when the next one comes, the text its schedule is parsed
// from, the Job made for a run, and the status.active list. Pure functions of their arguments.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/informer.h"
#include "common/cron_schedule.h"
#include "common/time_zone.h"

namespace cluster {

using nlohmann::json;

// How many due times went by unrun; past 100 the controller warns (TooManyMissedTimes).
enum class MissedSchedules { None, Few, Many };

struct ScheduleTimes {
  // status.lastScheduleTime, else `created`; moved up to now - startingDeadlineSeconds when the
  // deadline counts and is later.
  std::chrono::system_clock::time_point earliest;
  // The latest due time after `earliest` and not after now; none when the next one is still ahead.
  std::optional<std::chrono::system_clock::time_point> most_recent;
  MissedSchedules missed = MissedSchedules::None;
  // The schedule parses but two due times are less than a second apart or never come
  // ("59 23 31 2 *"): "time difference between two schedules is less than 1 second".
  std::optional<std::string> error;
};

// kube-controller-manager's mostRecentScheduleTime. The count of missed times is rough, as
// upstream's: the whole span divided by the first interval, so that a CronJob decades behind
// costs no walk over decades; the most recent time is then found by walking from one interval
// before the count's estimate. `created` is the CronJob's creationTimestamp on the controller's
// clock; `with_deadline`: whether spec.startingDeadlineSeconds moves `earliest` up.
ScheduleTimes most_recent_schedule_time(const json& cron_job,
                                        std::chrono::system_clock::time_point created,
                                        std::chrono::system_clock::time_point now,
                                        const common::CronSchedule& schedule, bool with_deadline);

// kube-controller-manager's nextScheduleTimeDuration: how long from `now` until the due time after
// the most recent one (after `earliest` when none was missed, after `now` when the times are in
// error), plus 100 ms so that the due time has passed when the CronJob is looked at again. Zero or
// negative when the schedule has no next time: upstream then looks again at once.
std::chrono::system_clock::duration next_schedule_delay(
    const json& cron_job, std::chrono::system_clock::time_point created,
    std::chrono::system_clock::time_point now, const common::CronSchedule& schedule);

// The text the controller parses (upstream's formatSchedule): spec.schedule, prefixed with
// "TZ=<spec.timeZone> " when spec.timeZone names a zone that loads and the schedule itself has no
// "TZ" in it.
std::string format_schedule(const json& cron_job);

// The name of the Job for the run due at `scheduled`: "<cronjob>-<minutes since the epoch>", so
// that one run never makes two Jobs.
std::string cron_job_name(const std::string& cron_job,
                          std::chrono::system_clock::time_point scheduled);

// The Job for the run due at `scheduled` (upstream's getJobFromTemplate2): the template's labels,
// annotations and spec, the batch.kubernetes.io/cronjob-scheduled-timestamp annotation (RFC 3339
// in `zone`, spec.timeZone's), and a controller ownerReference to the CronJob.
json job_from_template(const json& cron_job, std::chrono::system_clock::time_point scheduled,
                       const common::TimeZone& zone);

// An ObjectReference to a Job, as client-go's reference.GetReference makes it for status.active.
json job_reference(const json& job);

// "Complete" or "Failed" when the Job finished (the first such condition that is True), else "".
std::string finished_condition(const json& job);

// status.active holds a reference with this uid / this namespace and name.
bool in_active(const json& status, const std::string& uid);
bool in_active_by_name(const json& status, const std::string& ns, const std::string& name);
// Takes the reference with this uid out of status.active (an emptied list is left out, as Go's
// omitempty writes it).
void remove_from_active(json& status, const std::string& uid);

// Oldest status.startTime first, Jobs that never started last, names breaking ties (upstream's
// byJobStartTime).
void sort_by_start_time(std::vector<ObjectPtr>& jobs);

// "Mon, 02 Jan 2006 15:04:05 +0000": Go's RFC1123Z, in UTC.
std::string rfc1123z(std::chrono::system_clock::time_point t);

}  // namespace cluster
