#include "workloads/cron_job_controller.h"

#include <algorithm>
#include <set>

#include "client/objects.h"
#include "common/go_quote.h"

namespace cluster {
namespace {

using std::chrono::system_clock;
using TimePoint = system_clock::time_point;

const ResourceRef kCronJobs{"batch", "v1", "cronjobs", true};
const ResourceRef kJobs{"batch", "v1", "jobs", true};

std::optional<int64_t> optional_int(const json& object, std::initializer_list<const char*> path) {
  const json* v = at(object, path);
  if (v == nullptr || !v->is_number_integer()) {
    return std::nullopt;
  }
  return v->get<int64_t>();
}

json& status_of(json& cron_job) {
  if (!cron_job.contains("status") || !cron_job["status"].is_object()) {
    cron_job["status"] = json::object();
  }
  return cron_job["status"];
}

// The API refused to create in a namespace that is being deleted (cause NamespaceTerminating).
bool namespace_terminating(const ApiError& e) {
  return e.code == 403 && e.message.find("because it is being terminated") != std::string::npos;
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
  jobs_.add_handlers({.added = [this](const json& j) { job_changed(nullptr, j); },
                      .updated = [this](const json& old, const json& j) { job_changed(&old, j); },
                      .deleted = [this](const json& j) { job_changed(nullptr, j); }});
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

TimePoint CronJobController::created(const json& cron_job, TimePoint now) const {
  return time_.virtual_time(
      parse_time(string_at(cron_job, {"metadata", "creationTimestamp"})).value_or(now));
}

ObjectPtr CronJobController::resolve(const std::string& ns, const json& ref) const {
  if (string_at(ref, {"kind"}) != "CronJob") {
    return nullptr;
  }
  ObjectPtr owner = cron_jobs_.get(ns, string_at(ref, {"name"}));
  return owner != nullptr && uid_of(*owner) == string_at(ref, {"uid"}) ? owner : nullptr;
}

void CronJobController::job_changed(const json* old, const json& job) {
  const json* ref = controller_ref(job);
  if (old != nullptr) {
    // An update: none when nothing changed (a resync); both owners when the controller changed.
    if (resource_version_of(*old) == resource_version_of(job)) {
      return;
    }
    const json* old_ref = controller_ref(*old);
    if (old_ref != nullptr && (ref == nullptr || *old_ref != *ref)) {
      if (ObjectPtr owner = resolve(namespace_of(*old), *old_ref)) {
        queue().add(Informer::key_of(*owner));
      }
    }
  }
  if (ref != nullptr) {
    if (ObjectPtr owner = resolve(namespace_of(job), *ref)) {
      queue().add(Informer::key_of(*owner));
    }
  }
}

void CronJobController::cron_job_updated(const json& old, const json& cron_job) {
  const std::string key = Informer::key_of(cron_job);
  const json* old_zone = at(old, {"spec", "timeZone"});
  const json* zone = at(cron_job, {"spec", "timeZone"});
  const bool zone_changed =
      (old_zone == nullptr) != (zone == nullptr) || (old_zone != nullptr && *old_zone != *zone);
  if (string_at(old, {"spec", "schedule"}) == string_at(cron_job, {"spec", "schedule"}) &&
      !zone_changed) {
    queue().add(key);
    return;
  }
  // A new schedule: wait for its next time rather than catching up on the old one's.
  auto schedule = common::parse_cron_schedule(format_schedule(cron_job));
  if (!schedule) {
    events_.record(
        cron_job, "Warning", "UnParseableCronJobSchedule",
        "unparseable schedule for cronjob: " + string_at(cron_job, {"spec", "schedule"}));
    return;
  }
  const TimePoint t = now();
  requeue_after(
      key, time_.real_delay(next_schedule_delay(cron_job, created(cron_job, t), t, *schedule)));
}

std::optional<std::string> CronJobController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  ObjectPtr cron_job = cron_jobs_.get(ns, key.substr(slash + 1));
  if (cron_job == nullptr) {
    return std::nullopt;
  }
  // Every Job whose controller reference names this CronJob, even one whose labels no longer
  // match the template (as upstream, by name alone).
  std::vector<ObjectPtr> jobs;
  for (const ObjectPtr& job : jobs_.list(ns)) {
    const json* ref = controller_ref(*job);
    if (ref != nullptr && string_at(*ref, {"name"}) == name_of(*cron_job)) {
      jobs.push_back(job);
    }
  }
  Outcome outcome = sync_object(*cron_job, jobs, now());
  if (outcome.requeue) {
    requeue_after(key, time_.real_delay(*outcome.requeue));
    return std::nullopt;
  }
  return outcome.error;
}

CronJobController::Outcome CronJobController::sync_for_test(const json& cron_job,
                                                            const std::vector<ObjectPtr>& jobs,
                                                            TimePoint now) {
  return sync_object(cron_job, jobs, now);
}

CronJobController::Outcome CronJobController::sync_object(json cron_job,
                                                          const std::vector<ObjectPtr>& jobs,
                                                          TimePoint now) {
  json original = status_of(cron_job);
  clean_up_finished(cron_job, jobs);
  Outcome outcome = sync_cron_job(cron_job, jobs, now, original);
  if (status_of(cron_job) != original) {
    auto updated = client_.update(
        kCronJobs.object(namespace_of(cron_job), name_of(cron_job), "status"), cron_job);
    if (!updated) {
      return {std::nullopt, "updating the status of " + namespace_of(cron_job) + "/" +
                                name_of(cron_job) + ": " + updated.error().message};
    }
  }
  if (outcome.requeue) {
    return {outcome.requeue, std::nullopt};
  }
  return {std::nullopt, outcome.error};
}

void CronJobController::clean_up_finished(json& cron_job, const std::vector<ObjectPtr>& jobs) {
  const auto successful_limit = optional_int(cron_job, {"spec", "successfulJobsHistoryLimit"});
  const auto failed_limit = optional_int(cron_job, {"spec", "failedJobsHistoryLimit"});
  std::vector<ObjectPtr> succeeded, failed;
  for (const ObjectPtr& job : jobs) {
    const std::string how = finished_condition(*job);
    if (how == "Complete") {
      succeeded.push_back(job);
    } else if (how == "Failed") {
      failed.push_back(job);
    }
  }
  for (auto [finished, limit] :
       {std::pair{&succeeded, successful_limit}, {&failed, failed_limit}}) {
    if (!limit || static_cast<int64_t>(finished->size()) <= *limit) {
      continue;
    }
    sort_by_start_time(*finished);
    const auto surplus = static_cast<int64_t>(finished->size()) - *limit;
    for (int64_t i = 0; i < surplus; ++i) {
      delete_job(cron_job, *(*finished)[static_cast<size_t>(i)]);
    }
  }
}

bool CronJobController::delete_job(json& cron_job, const json& job) {
  auto removed = client_.remove(kJobs.object(namespace_of(job), name_of(job)),
                                {{"propagationPolicy", "Background"}});
  if (!removed) {
    events_.record(cron_job, "Warning", "FailedDelete", "Deleted job: " + removed.error().message);
    return false;
  }
  remove_from_active(status_of(cron_job), uid_of(job));
  events_.record(cron_job, "Normal", "SuccessfulDelete", "Deleted job " + name_of(job));
  return true;
}

std::optional<std::string> CronJobController::reconcile_active(json& cron_job,
                                                               const std::vector<ObjectPtr>& jobs,
                                                               json& written) {
  std::set<std::string> children;
  for (const ObjectPtr& job : jobs) {
    const std::string uid = uid_of(*job);
    children.insert(uid);
    json& status = status_of(cron_job);
    const bool found = in_active(status, uid);
    const std::string finished = finished_condition(*job);
    if (!found && finished.empty()) {
      // Maybe our own status update is not in the informer yet: ask the API.
      auto live = client_.get(kCronJobs.object(namespace_of(cron_job), name_of(cron_job)));
      if (!live) {
        return "getting " + namespace_of(cron_job) + "/" + name_of(cron_job) + ": " +
               live.error().message;
      }
      if (in_active(status_of(*live), uid)) {
        cron_job = *live;
        written = status_of(cron_job);
        continue;
      }
      events_.record(cron_job, "Warning", "UnexpectedJob",
                     "Saw a job that the controller did not create or forgot: " + name_of(*job));
    } else if (!finished.empty()) {
      if (found) {
        remove_from_active(status, uid);
        events_.record(cron_job, "Normal", "SawCompletedJob",
                       "Saw completed job: " + name_of(*job) + ", condition: " + finished);
      }
      // Whether or not it was active: a Job that succeeded after the last one counts.
      if (condition_true(*job, "Complete")) {
        const auto completed = parse_time(string_at(*job, {"status", "completionTime"}));
        const auto last = parse_time(string_at(status, {"lastSuccessfulTime"}));
        if (completed && (!last || *completed > *last)) {
          status["lastSuccessfulTime"] = rfc3339(*completed);
        }
      }
    }
  }
  // Active Jobs that are gone (asked of the API, in case the informer is behind).
  const json* active = at(status_of(cron_job), {"active"});
  const json refs = active != nullptr && active->is_array() ? *active : json::array();
  for (const json& ref : refs) {
    if (children.count(string_at(ref, {"uid"})) != 0) {
      continue;
    }
    auto job = client_.get(kJobs.object(string_at(ref, {"namespace"}), string_at(ref, {"name"})));
    if (!job && job.error().not_found()) {
      events_.record(cron_job, "Normal", "MissingJob",
                     "Active job went missing: " + string_at(ref, {"name"}));
      remove_from_active(status_of(cron_job), string_at(ref, {"uid"}));
    } else if (!job) {
      return "getting job " + string_at(ref, {"name"}) + ": " + job.error().message;
    }
  }
  return std::nullopt;
}

CronJobController::Outcome CronJobController::sync_cron_job(json& cron_job,
                                                            const std::vector<ObjectPtr>& jobs,
                                                            TimePoint now, json& written) {
  if (auto error = reconcile_active(cron_job, jobs, written)) {
    return {std::nullopt, error};
  }
  if (being_deleted(cron_job)) {
    return {};
  }
  common::TimeZone zone;
  if (const json* name = at(cron_job, {"spec", "timeZone"}); name != nullptr && name->is_string()) {
    auto loaded = common::TimeZone::load(name->get<std::string>());
    if (!loaded) {
      events_.record(cron_job, "Warning", "UnknownTimeZone",
                     "invalid timeZone: " + common::go_quote(name->get<std::string>()) + ": " +
                         loaded.error());
      return {};
    }
    zone = *loaded;
  }
  if (bool_at(cron_job, {"spec", "suspend"}, false)) {
    return {};
  }
  const std::string text = string_at(cron_job, {"spec", "schedule"});
  if (text.find("TZ") != std::string::npos) {
    events_.record(cron_job, "Warning", "UnsupportedSchedule",
                   "CRON_TZ or TZ used in schedule " + common::go_quote(text) +
                       " is not officially supported, see "
                       "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for "
                       "more details");
  }
  auto schedule = common::parse_cron_schedule(format_schedule(cron_job));
  if (!schedule) {
    events_.record(cron_job, "Warning", "UnparseableSchedule",
                   "unparseable schedule: " + common::go_quote(text) + " : " + schedule.error());
    return {};
  }
  const TimePoint since = created(cron_job, now);
  const ScheduleTimes times = most_recent_schedule_time(cron_job, since, now, *schedule, true);
  if (!times.most_recent) {
    if (times.error) {
      events_.record(cron_job, "Warning", "InvalidSchedule",
                     "invalid schedule: " + text + " : " + *times.error);
      return {};
    }
    return {next_schedule_delay(cron_job, since, now, *schedule), std::nullopt};
  }
  if (times.missed == MissedSchedules::Many) {
    events_.record(cron_job, "Warning", "TooManyMissedTimes",
                   "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                   "or check clock skew");
  }
  const TimePoint scheduled = *times.most_recent;
  const auto deadline = optional_int(cron_job, {"spec", "startingDeadlineSeconds"});
  if (deadline && scheduled + std::chrono::seconds(*deadline) < now) {
    events_.record(cron_job, "Warning", "MissSchedule",
                   "Missed scheduled time to start a job: " + rfc1123z(scheduled));
    return {next_schedule_delay(cron_job, since, now, *schedule), std::nullopt};
  }
  const json& status = status_of(cron_job);
  if (in_active_by_name(status, namespace_of(cron_job),
                        cron_job_name(name_of(cron_job), scheduled)) ||
      parse_time(string_at(status, {"lastScheduleTime"})) == scheduled) {
    return {next_schedule_delay(cron_job, since, now, *schedule), std::nullopt};
  }
  Outcome started = start_run(cron_job, scheduled, zone);
  if (started.error || !started.requeue) {
    return started;
  }
  return {next_schedule_delay(cron_job, since, now, *schedule), std::nullopt};
}

CronJobController::Outcome CronJobController::start_run(json& cron_job, TimePoint scheduled,
                                                        const common::TimeZone& zone) {
  const std::string policy = string_at(cron_job, {"spec", "concurrencyPolicy"});
  const json* active = at(status_of(cron_job), {"active"});
  const json refs = active != nullptr && active->is_array() ? *active : json::array();
  if (policy == "Forbid" && !refs.empty()) {
    events_.record(cron_job, "Normal", "JobAlreadyActive",
                   "Not starting job because prior execution is running and concurrency policy "
                   "is Forbid");
    return {system_clock::duration::zero(), std::nullopt};
  }
  if (policy == "Replace") {
    for (const json& ref : refs) {
      auto job = client_.get(kJobs.object(string_at(ref, {"namespace"}), string_at(ref, {"name"})));
      if (!job) {
        events_.record(cron_job, "Warning", "FailedGet", "Get job: " + job.error().message);
        return {std::nullopt,
                "getting job " + string_at(ref, {"name"}) + ": " + job.error().message};
      }
      if (!delete_job(cron_job, *job)) {
        return {std::nullopt, "could not replace job " + namespace_of(*job) + "/" + name_of(*job)};
      }
    }
  }
  const json request = job_from_template(cron_job, scheduled, zone);
  const std::string ns = namespace_of(cron_job);
  const std::string name = name_of(request);
  auto created_job = client_.create(kJobs.collection(ns), request);
  json made;
  if (!created_job && namespace_terminating(created_job.error())) {
    return {std::nullopt, "creating job " + name + ": " + created_job.error().message};
  }
  if (!created_job && created_job.error().already_exists()) {
    // Made before: by us when the status update that followed was lost, else by someone else,
    // who is trusted to keep the status.
    auto existing = client_.get(kJobs.object(ns, name));
    if (!existing) {
      return {std::nullopt, "getting job " + name + ": " + existing.error().message};
    }
    const json* ref = controller_ref(*existing);
    if (ref == nullptr || string_at(*ref, {"uid"}) != uid_of(cron_job) ||
        in_active(status_of(cron_job), uid_of(*existing))) {
      return {};
    }
    made = *existing;
  } else if (!created_job) {
    events_.record(cron_job, "Warning", "FailedCreate",
                   "Error creating job: " + created_job.error().message);
    return {std::nullopt, "creating job " + name + ": " + created_job.error().message};
  } else {
    made = *created_job;
    events_.record(cron_job, "Normal", "SuccessfulCreate", "Created job " + name_of(made));
  }
  json& status = status_of(cron_job);
  if (!status.contains("active") || !status["active"].is_array()) {
    status["active"] = json::array();
  }
  status["active"].push_back(job_reference(made));
  status["lastScheduleTime"] = rfc3339(scheduled);
  return {system_clock::duration::zero(), std::nullopt};
}

}  // namespace cluster
