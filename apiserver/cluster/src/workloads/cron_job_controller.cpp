#include "workloads/cron_job_controller.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "client/objects.h"

namespace cluster {
namespace {

using std::chrono::system_clock;
using TimePoint = system_clock::time_point;

const ResourceRef kCronJobs{"batch", "v1", "cronjobs", true};
const ResourceRef kJobs{"batch", "v1", "jobs", true};
constexpr const char* kScheduledAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp";
// Requeues land this much after the due time, so that the due time has passed when the key comes
// back (kube-controller-manager's nextScheduleDelta).
constexpr auto kNextScheduleDelta = std::chrono::milliseconds(100);
constexpr int64_t kMostMissed = 100;

enum class Missed { None, Few, Many };

struct Recent {
  TimePoint earliest;
  std::optional<TimePoint> most_recent;
  Missed missed = Missed::None;
  std::optional<std::string> error;
};

int64_t unix_seconds(TimePoint t) {
  return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

// The most recent due time in (earliest, now], where earliest is the last scheduled time (or the
// creation time), moved up to now - startingDeadlineSeconds when `with_deadline`; and a rough
// count of the due times missed (kube-controller-manager's mostRecentScheduleTime: it counts
// intervals instead of walking a schedule that may be decades behind).
Recent most_recent(const json& status, TimePoint created, std::optional<int64_t> deadline,
                   TimePoint now, const CronSchedule& schedule, const TimeZone& zone,
                   bool with_deadline) {
  Recent r;
  r.earliest = created;
  if (auto last = parse_time(string_at(status, {"lastScheduleTime"}))) {
    r.earliest = *last;
  }
  if (with_deadline && deadline) {
    r.earliest = std::max(r.earliest, now - std::chrono::seconds(*deadline));
  }
  const auto t1 = next_activation(schedule, zone, r.earliest);
  const auto t2 = t1 ? next_activation(schedule, zone, *t1) : std::nullopt;
  if (t1 && now < *t1) {
    return r;
  }
  if (t1 && t2 && now < *t2) {
    r.most_recent = t1;
    return r;
  }
  // A schedule such as "59 23 31 2 *" parses but never comes.
  const int64_t between = t1 && t2 ? unix_seconds(*t2) - unix_seconds(*t1) : 0;
  if (between < 1) {
    r.error = "time difference between two schedules is less than 1 second";
    return r;
  }
  const int64_t elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - *t1).count();
  const int64_t missed = elapsed / between + 1;
  // Back one interval more than the count says, and walk forward: irregular schedules
  // ("30 6-16/4 * * 1-5") have intervals of several lengths.
  auto t = next_activation(schedule, zone, *t1 + std::chrono::seconds((missed - 2) * between));
  for (; t && *t <= now; t = next_activation(schedule, zone, *t)) {
    r.most_recent = t;
  }
  r.missed = missed > kMostMissed ? Missed::Many : (missed > 0 ? Missed::Few : Missed::None);
  return r;
}

// "Complete" or "Failed" when the Job finished, else "".
std::string finished_as(const json& job) {
  if (const json* conditions = at(job, {"status", "conditions"});
      conditions && conditions->is_array()) {
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
  if (active == nullptr || !active->is_array()) {
    return false;
  }
  return std::any_of(active->begin(), active->end(),
                     [&](const json& ref) { return string_at(ref, {"uid"}) == uid; });
}

bool in_active_by_name(const json& status, const std::string& ns, const std::string& name) {
  const json* active = at(status, {"active"});
  if (active == nullptr || !active->is_array()) {
    return false;
  }
  return std::any_of(active->begin(), active->end(), [&](const json& ref) {
    return string_at(ref, {"name"}) == name && string_at(ref, {"namespace"}) == ns;
  });
}

void remove_from_active(json& status, const std::string& uid) {
  if (!status.contains("active") || !status["active"].is_array()) {
    return;
  }
  json kept = json::array();
  for (const json& ref : status["active"]) {
    if (string_at(ref, {"uid"}) != uid) {
      kept.push_back(ref);
    }
  }
  // An empty list is left out, as Go's omitempty writes it.
  if (kept.empty()) {
    status.erase("active");
  } else {
    status["active"] = std::move(kept);
  }
}

// An ObjectReference to a Job, as client-go's reference.GetReference makes it.
json reference_to(const json& job) {
  return {{"kind", "Job"},
          {"namespace", namespace_of(job)},
          {"name", name_of(job)},
          {"uid", uid_of(job)},
          {"apiVersion", "batch/v1"},
          {"resourceVersion", resource_version_of(job)}};
}

// "Mon, 02 Jan 2006 15:04:05 +0000": Go's RFC1123Z, in UTC.
std::string rfc1123z(TimePoint t) {
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const CivilTime c = TimeZone().civil(unix_seconds(t));
  char out[48];
  std::snprintf(out, sizeof out, "%s, %02d %s %04lld %02d:%02d:%02d +0000", kDays[c.weekday], c.day,
                kMonths[c.month - 1], static_cast<long long>(c.year), c.hour, c.minute, c.second);
  return out;
}

std::optional<int64_t> optional_int(const json& object, std::initializer_list<const char*> path) {
  const json* v = at(object, path);
  if (v == nullptr || !v->is_number_integer()) {
    return std::nullopt;
  }
  return v->get<int64_t>();
}

}  // namespace

TimePoint CronClock::virtual_time(TimePoint real) const {
  if (real <= start || speed == 1) {
    return real;
  }
  const auto elapsed = std::chrono::duration<double>(real - start) * speed;
  return start + std::chrono::duration_cast<system_clock::duration>(elapsed);
}

common::Clock::duration CronClock::real_delay(system_clock::duration delay) const {
  if (delay.count() <= 0) {
    return common::Clock::duration::zero();
  }
  return std::chrono::duration_cast<common::Clock::duration>(std::chrono::duration<double>(delay) /
                                                             speed);
}

std::string cron_job_name(const std::string& cron_job, TimePoint scheduled) {
  return cron_job + "-" +
         std::to_string(
             std::chrono::floor<std::chrono::minutes>(scheduled.time_since_epoch()).count());
}

std::string rfc3339_in(const TimeZone& zone, TimePoint scheduled) {
  const int64_t unix = unix_seconds(scheduled);
  const CivilTime c = zone.civil(unix);
  const int32_t offset = zone.lookup(unix).offset;
  char out[48];
  int n = std::snprintf(out, sizeof out, "%04lld-%02d-%02dT%02d:%02d:%02d",
                        static_cast<long long>(c.year), c.month, c.day, c.hour, c.minute, c.second);
  if (offset == 0) {
    std::snprintf(out + n, sizeof out - static_cast<size_t>(n), "Z");
  } else {
    const int32_t a = offset < 0 ? -offset : offset;
    std::snprintf(out + n, sizeof out - static_cast<size_t>(n), "%c%02d:%02d",
                  offset < 0 ? '-' : '+', a / 3600, a % 3600 / 60);
  }
  return out;
}

CronJobController::CronJobController(const Client& client, double speed, const common::Clock& clock)
    : Controller("cronjob-controller", clock),
      client_(client),
      events_(client, "cronjob-controller", "", clock),
      cron_jobs_(client, kCronJobs, {}, clock),
      jobs_(client, kJobs, {}, clock) {
  time_.speed = speed;
  auto add = [this](const json& o) { queue().add(Informer::key_of(o)); };
  cron_jobs_.add_handlers(
      {.added = add,
       .updated = [this](const json& old, const json& o) { cron_job_updated(old, o); },
       .deleted = add});
  jobs_.add_handlers({.added = [this](const json& j) { job_changed(j); },
                      .updated = [this](const json&, const json& j) { job_changed(j); },
                      .deleted = [this](const json& j) { job_changed(j); }});
}

CronJobController::~CronJobController() {
  stop();
  cron_jobs_.stop();
  jobs_.stop();
}

void CronJobController::start() {
  time_.start = clock().system_now();
  jobs_.start();
  cron_jobs_.start();
}

TimePoint CronJobController::now() const {
  return time_.virtual_time(clock().system_now());
}

void CronJobController::job_changed(const json& job) {
  const json* ref = controller_ref(job);
  if (ref == nullptr || string_at(*ref, {"kind"}) != "CronJob") {
    return;
  }
  ObjectPtr owner = cron_jobs_.get(namespace_of(job), string_at(*ref, {"name"}));
  if (owner != nullptr && uid_of(*owner) == string_at(*ref, {"uid"})) {
    queue().add(Informer::key_of(*owner));
  }
}

void CronJobController::cron_job_updated(const json& old, const json& cron_job) {
  const std::string key = Informer::key_of(cron_job);
  const json* old_zone = at(old, {"spec", "timeZone"});
  const json* zone_name = at(cron_job, {"spec", "timeZone"});
  const bool zone_changed = (old_zone == nullptr) != (zone_name == nullptr) ||
                            (old_zone != nullptr && *old_zone != *zone_name);
  if (string_at(old, {"spec", "schedule"}) == string_at(cron_job, {"spec", "schedule"}) &&
      !zone_changed) {
    queue().add(key);
    return;
  }
  // A new schedule: wait for its next time rather than catching up on the old one's.
  auto schedule = parse_cron_schedule(string_at(cron_job, {"spec", "schedule"}));
  auto zone = TimeZone::load(string_at(cron_job, {"spec", "timeZone"}));
  if (!schedule) {
    events_.record(
        cron_job, "Warning", "UnParseableCronJobSchedule",
        "unparseable schedule for cronjob: " + string_at(cron_job, {"spec", "schedule"}));
    return;
  }
  if (!zone) {
    queue().add(key);  // sync reports the zone
    return;
  }
  const json* status = at(cron_job, {"status"});
  if (auto delay = next_delay(cron_job, status ? *status : json::object(), *schedule, *zone)) {
    requeue_after(key, time_.real_delay(*delay));
  }
}

std::optional<system_clock::duration> CronJobController::next_delay(const json& cron_job,
                                                                    const json& status,
                                                                    const CronSchedule& schedule,
                                                                    const TimeZone& zone) const {
  const TimePoint t = now();
  const TimePoint created = time_.virtual_time(
      parse_time(string_at(cron_job, {"metadata", "creationTimestamp"})).value_or(t));
  Recent r = most_recent(status, created, std::nullopt, t, schedule, zone, false);
  TimePoint from = t;
  if (!r.error && r.most_recent) {
    from = *r.most_recent;
  } else if (!r.error && r.missed == Missed::None) {
    from = r.earliest;
  }
  auto next = next_activation(schedule, zone, from);
  if (!next) {
    return std::nullopt;
  }
  return *next + kNextScheduleDelta - t;
}

std::optional<std::string> CronJobController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  ObjectPtr cron_job = cron_jobs_.get(ns, key.substr(slash + 1));
  if (cron_job == nullptr) {
    return std::nullopt;
  }
  // Every Job whose controller reference names this CronJob, even one whose labels no longer
  // match the template.
  std::vector<ObjectPtr> jobs;
  for (const ObjectPtr& job : jobs_.list(ns)) {
    const json* ref = controller_ref(*job);
    if (ref != nullptr && string_at(*ref, {"kind"}) == "CronJob" &&
        string_at(*ref, {"name"}) == name_of(*cron_job)) {
      jobs.push_back(job);
    }
  }
  const json* current = at(*cron_job, {"status"});
  const json original = current != nullptr ? *current : json::object();
  json status = original;
  clean_up_finished(*cron_job, status, jobs);
  Outcome outcome = reconcile(*cron_job, status, jobs);
  if (status != original) {
    json body = *cron_job;
    body["status"] = status;
    auto written = client_.update(kCronJobs.object(ns, name_of(*cron_job), "status"), body);
    if (!written && !written.error().not_found()) {
      return "updating the status of " + key + ": " + written.error().message;
    }
  }
  if (outcome.requeue) {
    requeue_after(key, time_.real_delay(*outcome.requeue));
    return std::nullopt;
  }
  return outcome.error;
}

void CronJobController::clean_up_finished(const json& cron_job, json& status,
                                          const std::vector<ObjectPtr>& jobs) {
  const auto successful_limit = optional_int(cron_job, {"spec", "successfulJobsHistoryLimit"});
  const auto failed_limit = optional_int(cron_job, {"spec", "failedJobsHistoryLimit"});
  std::vector<ObjectPtr> succeeded, failed;
  for (const ObjectPtr& job : jobs) {
    const std::string how = finished_as(*job);
    if (how == "Complete") {
      succeeded.push_back(job);
    } else if (how == "Failed") {
      failed.push_back(job);
    }
  }
  auto remove_oldest = [&](std::vector<ObjectPtr>& finished, std::optional<int64_t> limit) {
    if (!limit || static_cast<int64_t>(finished.size()) <= *limit) {
      return;
    }
    // Oldest start first; Jobs that never started last; names break ties.
    std::sort(finished.begin(), finished.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
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
    const size_t surplus = finished.size() - static_cast<size_t>(std::max<int64_t>(*limit, 0));
    for (size_t i = 0; i < surplus; ++i) {
      delete_job(cron_job, status, *finished[i]);
    }
  };
  remove_oldest(succeeded, successful_limit);
  remove_oldest(failed, failed_limit);
}

bool CronJobController::delete_job(const json& cron_job, json& status, const json& job) {
  auto removed = client_.remove(kJobs.object(namespace_of(job), name_of(job)),
                                {{"propagationPolicy", "Background"}});
  if (!removed && !removed.error().not_found()) {
    events_.record(cron_job, "Warning", "FailedDelete", "Deleted job: " + removed.error().message);
    return false;
  }
  remove_from_active(status, uid_of(job));
  events_.record(cron_job, "Normal", "SuccessfulDelete", "Deleted job " + name_of(job));
  return true;
}

CronJobController::Outcome CronJobController::reconcile(const json& cron_job, json& status,
                                                        const std::vector<ObjectPtr>& jobs) {
  const std::string ns = namespace_of(cron_job);
  const std::string name = name_of(cron_job);
  const TimePoint t = now();
  std::set<std::string> children;
  for (const ObjectPtr& job : jobs) {
    const std::string uid = uid_of(*job);
    children.insert(uid);
    const bool found = in_active(status, uid);
    const std::string finished = finished_as(*job);
    if (!found && finished.empty()) {
      // Maybe our own status update is not in the informer yet: ask the API.
      auto live = client_.get(kCronJobs.object(ns, name));
      if (!live) {
        return {std::nullopt, "getting " + ns + "/" + name + ": " + live.error().message};
      }
      const json* live_status = at(*live, {"status"});
      if (live_status != nullptr && in_active(*live_status, uid)) {
        status = *live_status;
        continue;
      }
      events_.record(cron_job, "Warning", "UnexpectedJob",
                     "Saw a job that the controller did not create or forgot: " + name_of(*job));
    } else if (found && !finished.empty()) {
      remove_from_active(status, uid);
      events_.record(cron_job, "Normal", "SawCompletedJob",
                     "Saw completed job: " + name_of(*job) + ", status: " + finished);
    } else if (condition_true(*job, "Complete")) {
      const auto completed = parse_time(string_at(*job, {"status", "completionTime"}));
      const auto last = parse_time(string_at(status, {"lastSuccessfulTime"}));
      if (completed && (!last || *completed > *last)) {
        status["lastSuccessfulTime"] = rfc3339(*completed);
      }
    }
  }
  // Active Jobs that are gone (asked of the API, in case the informer is behind).
  if (const json* active = at(status, {"active"}); active != nullptr && active->is_array()) {
    const json refs = *active;
    for (const json& ref : refs) {
      if (children.count(string_at(ref, {"uid"})) != 0) {
        continue;
      }
      auto job = client_.get(kJobs.object(string_at(ref, {"namespace"}), string_at(ref, {"name"})));
      if (!job && job.error().not_found()) {
        events_.record(cron_job, "Normal", "MissingJob",
                       "Active job went missing: " + string_at(ref, {"name"}));
        remove_from_active(status, string_at(ref, {"uid"}));
      } else if (!job) {
        return {std::nullopt,
                "getting job " + string_at(ref, {"name"}) + ": " + job.error().message};
      }
    }
  }
  if (being_deleted(cron_job)) {
    return {};
  }
  const std::string zone_name = string_at(cron_job, {"spec", "timeZone"});
  auto spec_zone = TimeZone::load(zone_name);
  if (!spec_zone) {
    events_.record(cron_job, "Warning", "UnknownTimeZone",
                   "invalid timeZone: \"" + zone_name + "\": " + spec_zone.error());
    return {};
  }
  if (bool_at(cron_job, {"spec", "suspend"}, false)) {
    return {};
  }
  const std::string text = string_at(cron_job, {"spec", "schedule"});
  if (text.find("TZ") != std::string::npos) {
    events_.record(cron_job, "Warning", "UnsupportedSchedule",
                   "CRON_TZ or TZ used in schedule \"" + text +
                       "\" is not officially supported, see "
                       "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for "
                       "more details");
  }
  auto schedule = parse_cron_schedule(text);
  if (!schedule) {
    events_.record(cron_job, "Warning", "UnparseableSchedule",
                   "unparseable schedule: \"" + text + "\" : " + schedule.error());
    return {};
  }
  // A TZ= prefix names the zone the schedule is read in; else spec.timeZone (UTC when unset).
  TimeZone zone = *spec_zone;
  if (!schedule->zone.empty()) {
    if (auto prefixed = TimeZone::load(schedule->zone)) {
      zone = *prefixed;
    }
  }
  const TimePoint created = time_.virtual_time(
      parse_time(string_at(cron_job, {"metadata", "creationTimestamp"})).value_or(t));
  const auto deadline = optional_int(cron_job, {"spec", "startingDeadlineSeconds"});
  const Recent recent = most_recent(status, created, deadline, t, *schedule, zone, true);
  if (recent.most_recent && recent.missed == Missed::Many) {
    events_.record(cron_job, "Warning", "TooManyMissedTimes",
                   "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                   "or check clock skew");
  }
  auto later = [&]() -> Outcome { return {next_delay(cron_job, status, *schedule, zone), {}}; };
  if (!recent.most_recent) {
    if (recent.error) {
      events_.record(cron_job, "Warning", "InvalidSchedule",
                     "invalid schedule: " + text + " : " + *recent.error);
      return {};
    }
    return later();
  }
  const TimePoint scheduled = *recent.most_recent;
  if (deadline && scheduled + std::chrono::seconds(*deadline) < t) {
    events_.record(cron_job, "Warning", "MissSchedule",
                   "Missed scheduled time to start a job: " + rfc1123z(scheduled));
    return later();
  }
  const std::string job_name = cron_job_name(name, scheduled);
  if (in_active_by_name(status, ns, job_name) ||
      parse_time(string_at(status, {"lastScheduleTime"})) == scheduled) {
    return later();
  }
  const std::string policy = string_at(cron_job, {"spec", "concurrencyPolicy"});
  const json* active = at(status, {"active"});
  const bool any_active = active != nullptr && active->is_array() && !active->empty();
  if (policy == "Forbid" && any_active) {
    events_.record(cron_job, "Normal", "JobAlreadyActive",
                   "Not starting job because prior execution is running and concurrency policy "
                   "is Forbid");
    return later();
  }
  if (policy == "Replace" && any_active) {
    const json refs = *active;
    for (const json& ref : refs) {
      auto job = client_.get(kJobs.object(string_at(ref, {"namespace"}), string_at(ref, {"name"})));
      if (!job) {
        events_.record(cron_job, "Warning", "FailedGet", "Get job: " + job.error().message);
        return {std::nullopt,
                "getting job " + string_at(ref, {"name"}) + ": " + job.error().message};
      }
      if (!delete_job(cron_job, status, *job)) {
        return {std::nullopt, "could not replace job " + namespace_of(*job) + "/" + name_of(*job)};
      }
    }
  }
  // The Job, from the template.
  const json* tmpl = at(cron_job, {"spec", "jobTemplate"});
  json metadata = json::object();
  for (const char* field : {"labels", "annotations"}) {
    const json* value = tmpl != nullptr ? at(*tmpl, {"metadata", field}) : nullptr;
    metadata[field] = value != nullptr && value->is_object() ? *value : json::object();
  }
  metadata["annotations"][kScheduledAnnotation] = rfc3339_in(*spec_zone, scheduled);
  if (metadata["labels"].empty()) {
    metadata.erase("labels");
  }
  metadata["name"] = job_name;
  metadata["namespace"] = ns;
  metadata["ownerReferences"] = json::array({controller_owner_ref(cron_job)});
  const json* job_spec = tmpl != nullptr ? at(*tmpl, {"spec"}) : nullptr;
  const json job = {{"apiVersion", "batch/v1"},
                    {"kind", "Job"},
                    {"metadata", metadata},
                    {"spec", job_spec != nullptr ? *job_spec : json::object()}};
  auto created_job = client_.create(kJobs.collection(ns), job);
  json made;
  if (!created_job && created_job.error().already_exists()) {
    // Made before, by us (the status update that followed was lost) or by someone else.
    auto existing = client_.get(kJobs.object(ns, job_name));
    if (!existing) {
      return {std::nullopt, "getting job " + job_name + ": " + existing.error().message};
    }
    const json* ref = controller_ref(*existing);
    if (ref == nullptr || string_at(*ref, {"uid"}) != uid_of(cron_job) ||
        in_active(status, uid_of(*existing))) {
      return {};
    }
    made = *existing;
  } else if (!created_job) {
    events_.record(cron_job, "Warning", "FailedCreate",
                   "Error creating job: " + created_job.error().message);
    return {std::nullopt, "creating job " + job_name + ": " + created_job.error().message};
  } else {
    made = *created_job;
    events_.record(cron_job, "Normal", "SuccessfulCreate", "Created job " + name_of(made));
  }
  if (!status.contains("active") || !status["active"].is_array()) {
    status["active"] = json::array();
  }
  status["active"].push_back(reference_to(made));
  status["lastScheduleTime"] = rfc3339(scheduled);
  return later();
}

}  // namespace cluster
