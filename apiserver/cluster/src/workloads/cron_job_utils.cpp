#include "workloads/cron_job_utils.h"

#include <algorithm>
#include <cstdio>

#include "client/objects.h"

namespace cluster {
namespace {

using std::chrono::system_clock;
using TimePoint = system_clock::time_point;

constexpr const char* kScheduledAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp";
// Requeues land this much after the due time, so that it has passed when the key comes back
// (kube-controller-manager's nextScheduleDelta).
constexpr auto kNextScheduleDelta = std::chrono::milliseconds(100);
constexpr int64_t kMostMissed = 100;

int64_t unix_seconds(TimePoint t) {
  return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

const json& status_of(const json& cron_job) {
  static const json kEmpty = json::object();
  const json* status = at(cron_job, {"status"});
  return status != nullptr && status->is_object() ? *status : kEmpty;
}

}  // namespace

ScheduleTimes most_recent_schedule_time(const json& cron_job, TimePoint created, TimePoint now,
                                        const common::CronSchedule& schedule, bool with_deadline) {
  ScheduleTimes r;
  r.earliest = parse_time(string_at(status_of(cron_job), {"lastScheduleTime"})).value_or(created);
  const json* deadline = at(cron_job, {"spec", "startingDeadlineSeconds"});
  if (with_deadline && deadline != nullptr && deadline->is_number_integer()) {
    r.earliest = std::max(r.earliest, now - std::chrono::seconds(deadline->get<int64_t>()));
  }
  const auto t1 = common::next_activation(schedule, r.earliest);
  const auto t2 = t1 ? common::next_activation(schedule, *t1) : std::nullopt;
  if (t1 && now < *t1) {
    return r;
  }
  if (t1 && t2 && now < *t2) {
    r.most_recent = t1;
    return r;
  }
  // A schedule such as "59 23 31 2 *" parses but never comes (robfig's zero time).
  const int64_t between = t1 && t2 ? unix_seconds(*t2) - unix_seconds(*t1) : 0;
  if (between < 1) {
    r.error = "time difference between two schedules is less than 1 second";
    return r;
  }
  const int64_t elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - *t1).count();
  const int64_t missed = elapsed / between + 1;
  // One interval further back than the count says, then forward along the schedule: irregular
  // schedules ("30 6-16/4 * * 1-5") have intervals of several lengths.
  auto t = common::next_activation(schedule, *t1 + std::chrono::seconds((missed - 2) * between));
  for (; t && *t <= now; t = common::next_activation(schedule, *t)) {
    r.most_recent = t;
  }
  r.missed = missed > kMostMissed ? MissedSchedules::Many
                                  : (missed > 0 ? MissedSchedules::Few : MissedSchedules::None);
  return r;
}

system_clock::duration next_schedule_delay(const json& cron_job, TimePoint created, TimePoint now,
                                           const common::CronSchedule& schedule) {
  const ScheduleTimes r = most_recent_schedule_time(cron_job, created, now, schedule, false);
  TimePoint from = now;
  if (!r.error && r.most_recent) {
    from = *r.most_recent;
  } else if (!r.error && r.missed == MissedSchedules::None) {
    from = r.earliest;
  }
  const auto next = common::next_activation(schedule, from);
  if (!next) {
    return system_clock::duration::zero();
  }
  return *next + kNextScheduleDelta - now;
}

std::string format_schedule(const json& cron_job) {
  const std::string schedule = string_at(cron_job, {"spec", "schedule"});
  const json* zone = at(cron_job, {"spec", "timeZone"});
  if (schedule.find("TZ") != std::string::npos || zone == nullptr || !zone->is_string()) {
    return schedule;
  }
  if (!common::TimeZone::load(zone->get<std::string>())) {
    return schedule;
  }
  return "TZ=" + zone->get<std::string>() + " " + schedule;
}

std::string cron_job_name(const std::string& cron_job, TimePoint scheduled) {
  return cron_job + "-" + std::to_string(unix_seconds(scheduled) / 60);
}

json job_from_template(const json& cron_job, TimePoint scheduled, const common::TimeZone& zone) {
  const json* tmpl = at(cron_job, {"spec", "jobTemplate"});
  json metadata = json::object();
  for (const char* field : {"labels", "annotations"}) {
    const json* value = tmpl != nullptr ? at(*tmpl, {"metadata", field}) : nullptr;
    metadata[field] = value != nullptr && value->is_object() ? *value : json::object();
  }
  metadata["annotations"][kScheduledAnnotation] = zone.rfc3339(unix_seconds(scheduled));
  if (metadata["labels"].empty()) {
    metadata.erase("labels");
  }
  metadata["name"] = cron_job_name(name_of(cron_job), scheduled);
  metadata["namespace"] = namespace_of(cron_job);
  metadata["ownerReferences"] = json::array({controller_owner_ref(cron_job)});
  const json* spec = tmpl != nullptr ? at(*tmpl, {"spec"}) : nullptr;
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", metadata},
          {"spec", spec != nullptr && spec->is_object() ? *spec : json::object()}};
}

json job_reference(const json& job) {
  return {{"kind", "Job"},
          {"namespace", namespace_of(job)},
          {"name", name_of(job)},
          {"uid", uid_of(job)},
          {"apiVersion", "batch/v1"},
          {"resourceVersion", string_at(job, {"metadata", "resourceVersion"})}};
}

std::string finished_condition(const json& job) {
  if (const json* conditions = at(job, {"status", "conditions"});
      conditions != nullptr && conditions->is_array()) {
    for (const json& c : *conditions) {
      const std::string type = string_at(c, {"type"});
      if ((type == "Complete" || type == "Failed") && string_at(c, {"status"}) == "True") {
        return type;
      }
    }
  }
  return "";
}

bool in_active(const json& status, const std::string& uid) {
  const json* active = at(status, {"active"});
  return active != nullptr && active->is_array() &&
         std::any_of(active->begin(), active->end(),
                     [&](const json& ref) { return string_at(ref, {"uid"}) == uid; });
}

bool in_active_by_name(const json& status, const std::string& ns, const std::string& name) {
  const json* active = at(status, {"active"});
  return active != nullptr && active->is_array() &&
         std::any_of(active->begin(), active->end(), [&](const json& ref) {
           return string_at(ref, {"name"}) == name && string_at(ref, {"namespace"}) == ns;
         });
}

void remove_from_active(json& status, const std::string& uid) {
  if (!status.is_object() || !status.contains("active") || !status["active"].is_array()) {
    return;
  }
  json kept = json::array();
  for (const json& ref : status["active"]) {
    if (string_at(ref, {"uid"}) != uid) {
      kept.push_back(ref);
    }
  }
  if (kept.empty()) {
    status.erase("active");
  } else {
    status["active"] = std::move(kept);
  }
}

void sort_by_start_time(std::vector<ObjectPtr>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    const auto sa = parse_time(string_at(*a, {"status", "startTime"}));
    const auto sb = parse_time(string_at(*b, {"status", "startTime"}));
    if (sa.has_value() != sb.has_value()) {
      return sa.has_value();
    }
    if (sa == sb) {
      return name_of(*a) < name_of(*b);
    }
    return *sa < *sb;
  });
}

std::string rfc1123z(TimePoint t) {
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const common::CivilTime c = common::TimeZone().civil(unix_seconds(t));
  char out[48];
  std::snprintf(out, sizeof out, "%s, %02d %s %04lld %02d:%02d:%02d +0000", kDays[c.weekday], c.day,
                kMonths[c.month - 1], static_cast<long long>(c.year), c.hour, c.minute, c.second);
  return out;
}

}  // namespace cluster
