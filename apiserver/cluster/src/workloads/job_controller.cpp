#include "workloads/job_controller.h"

#include <algorithm>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "workloads/job_rules.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kJobs{"batch", "v1", "jobs", true};
constexpr const char* kTracking = "batch.kubernetes.io/job-tracking";

// The work queue's key for a pod whose tracking finalizer may have to go: "orphan-pod:ns/name"
// (a namespace cannot hold ':', so no job key looks like it).
constexpr std::string_view kOrphanPod = "orphan-pod:";

// When the pod finished, for the back-off: its containers' last exit, or its deletion (the
// deletion timestamp less the grace period), else its creation.
std::string finished_at(const json& pod) {
  std::string latest = string_at(pod, {"metadata", "creationTimestamp"});
  if (const json* statuses = at(pod, {"status", "containerStatuses"});
      statuses && statuses->is_array()) {
    for (const json& s : *statuses) {
      latest = std::max(latest, string_at(s, {"state", "terminated", "finishedAt"}));
    }
  }
  if (auto deleted = parse_time(string_at(pod, {"metadata", "deletionTimestamp"}))) {
    const int64_t grace = int_at(pod, {"metadata", "deletionGracePeriodSeconds"}, 0);
    latest = std::max(latest, rfc3339(*deleted - std::chrono::seconds(grace)));
  }
  return latest;
}

json uid_list(const json& status, const char* which) {
  const json* list = at(status, {"uncountedTerminatedPods", which});
  return list != nullptr && list->is_array() ? *list : json::array();
}

bool contains(const json& list, const std::string& uid) {
  return std::find(list.begin(), list.end(), json(uid)) != list.end();
}

// active, succeeded and failed are left out at zero (Go's omitempty); ready and terminating
// are pointers, written even at zero.
void omit_zero_counts(json& status) {
  for (const char* field : {"active", "succeeded", "failed"}) {
    if (status.contains(field) && status[field] == 0)
      status.erase(field);
  }
}

}  // namespace

JobController::JobController(const Client& client, Informer& pods, const common::Clock& clock)
    : Controller("job-controller", clock),
      client_(client),
      events_(client, "job-controller", "", clock),
      jobs_(client, kJobs, {}, clock),
      pods_(pods) {
  auto job_changed = [this](const json& j) { queue().add(Informer::key_of(j)); };
  jobs_.add_handlers({.added = job_changed,
                      .updated = [job_changed](const json&, const json& j) { job_changed(j); },
                      .deleted =
                          [this](const json& j) {
                            {
                              std::lock_guard lock(mu_);
                              creating_.erase(Informer::key_of(j));
                            }
                            queue().add(Informer::key_of(j));  // its pods are let go
                          }});
  pods_.add_handlers({.added = [this](const json& p) { pod_changed(p); },
                      .updated = [this](const json&, const json& p) { pod_changed(p); },
                      .deleted = [this](const json& p) { pod_changed(p); }});
}

JobController::~JobController() {
  stop();
  jobs_.stop();
}

void JobController::start() {
  jobs_.start();
}

void JobController::pod_changed(const json& pod) {
  if (const json* ref = controller_ref(pod); ref != nullptr && string_at(*ref, {"kind"}) == "Job") {
    queue().add(namespace_of(pod) + "/" + string_at(*ref, {"name"}));
  } else if (has_tracking_finalizer(pod)) {
    queue().add(std::string(kOrphanPod) + Informer::key_of(pod));
  }
}

std::optional<std::string> JobController::drop_tracking_finalizer(const json& pod) {
  auto patched = client_.patch(
      kPods.object(namespace_of(pod), name_of(pod)), "application/strategic-merge-patch+json",
      {{"metadata", {{"$deleteFromPrimitiveList/finalizers", json::array({kTracking})}}}});
  if (!patched && !patched.error().not_found()) {
    return "removing the tracking finalizer of pod " + Informer::key_of(pod) + ": " +
           patched.error().message;
  }
  return std::nullopt;
}

std::optional<std::string> JobController::release_if_orphaned(const json& pod) {
  const json* ref = controller_ref(pod);
  ObjectPtr job =
      ref != nullptr ? jobs_.get(namespace_of(pod), string_at(*ref, {"name"})) : nullptr;
  if (!tracking_finalizer_orphaned(pod, job.get())) {
    return std::nullopt;
  }
  return drop_tracking_finalizer(pod);
}

std::optional<std::string> JobController::write_status(const json& job, const json& status) {
  json body = job;
  body["status"] = status;
  auto written = client_.update(kJobs.object(namespace_of(job), name_of(job), "status"), body);
  if (!written) {
    return written.error().not_found()
               ? std::nullopt
               : std::optional<std::string>("updating the status of job " + Informer::key_of(job) +
                                            ": " + written.error().message);
  }
  return std::nullopt;
}

std::optional<std::string> JobController::sync(const std::string& key) {
  if (key.starts_with(kOrphanPod)) {
    const std::string pod_key = key.substr(kOrphanPod.size());
    ObjectPtr pod = object_for_key(pods_, pod_key);
    return pod != nullptr ? release_if_orphaned(*pod) : std::nullopt;
  }
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr job_ptr = jobs_.get(ns, name);
  if (job_ptr == nullptr) {
    {
      std::lock_guard lock(mu_);
      released_.erase(key);
    }
    // A deleted job's pods (orphaned, or waiting for the garbage collector) are let go.
    for (const ObjectPtr& pod : pods_.list(ns)) {
      const json* ref = controller_ref(*pod);
      if (ref != nullptr && string_at(*ref, {"kind"}) == "Job" &&
          string_at(*ref, {"name"}) == name) {
        if (auto e = release_if_orphaned(*pod))
          return e;
      }
    }
    return std::nullopt;
  }
  const json& job = *job_ptr;
  const auto wall = clock().system_now();
  const std::string now = rfc3339(wall);
  const std::vector<ObjectPtr> pods = controlled_pods(pods_, job);
  // Pods whose tracking finalizer this controller removed already count as let go, even while
  // the pod cache still shows the finalizer (as upstream's finalizer expectations): a stale copy
  // must not be counted twice. A uid is forgotten once the cache shows the pod without it.
  std::set<std::string> released;
  {
    std::lock_guard lock(mu_);
    if (auto it = released_.find(key); it != released_.end()) {
      std::erase_if(it->second, [&](const std::string& uid) {
        return std::none_of(pods.begin(), pods.end(), [&](const ObjectPtr& pod) {
          return uid_of(*pod) == uid && has_tracking_finalizer(*pod);
        });
      });
      released = it->second;
      if (it->second.empty())
        released_.erase(it);
    }
  }
  auto tracks = [&released](const json& pod) {
    return has_tracking_finalizer(pod) && released.count(uid_of(pod)) == 0;
  };
  auto remove_finalizer = [this, &key, &released](const json& pod) {
    if (drop_tracking_finalizer(pod))
      return false;
    released.insert(uid_of(pod));
    std::lock_guard lock(mu_);
    released_[key].insert(uid_of(pod));
    return true;
  };
  const bool finished = condition_true(job, "Complete") || condition_true(job, "Failed");
  if (finished) {
    // Leftovers of a finished job: nothing tracks them any more.
    for (const ObjectPtr& pod : pods) {
      if (tracks(*pod))
        remove_finalizer(*pod);
    }
    return std::nullopt;
  }
  {
    std::lock_guard lock(mu_);
    if (auto it = creating_.find(key); it != creating_.end()) {
      std::erase_if(it->second, [&](const std::string& n) { return pods_.get(ns, n) != nullptr; });
      if (it->second.empty())
        creating_.erase(it);
    }
  }
  const bool indexed = string_at(job, {"spec", "completionMode"}) == "Indexed";
  const json* completions_field = at(job, {"spec", "completions"});
  const bool has_completions =
      completions_field != nullptr && completions_field->is_number_integer();
  const int64_t completions = has_completions ? completions_field->get<int64_t>() : 0;
  const int64_t parallelism = int_at(job, {"spec", "parallelism"}, 1);
  const int64_t backoff_limit = int_at(job, {"spec", "backoffLimit"}, 6);
  const bool suspended = bool_at(job, {"spec", "suspend"}, false);

  json status = at(job, {"status"}) != nullptr ? *at(job, {"status"}) : json::object();
  json uncounted_succeeded = uid_list(status, "succeeded");
  json uncounted_failed = uid_list(status, "failed");
  int64_t succeeded = int_at(status, {"succeeded"}, 0);
  int64_t failed = int_at(status, {"failed"}, 0);
  std::set<int> done_indexes = parse_index_set(string_at(status, {"completedIndexes"}));
  // Uncounted pods whose finalizer is gone already (a previous sync stopped half-way) are counted.
  std::set<std::string> tracked;
  for (const ObjectPtr& pod : pods) {
    if (tracks(*pod))
      tracked.insert(uid_of(*pod));
  }
  auto settle = [&](json& list, int64_t& counter) {
    json kept = json::array();
    for (const json& id : list) {
      if (id.is_string() && tracked.count(id.get<std::string>()) != 0) {
        kept.push_back(id);
      } else {
        ++counter;
      }
    }
    list = std::move(kept);
  };
  settle(uncounted_succeeded, succeeded);
  settle(uncounted_failed, failed);
  if (!indexed)
    status["succeeded"] = succeeded;
  status["failed"] = failed;

  // The pods: active ones, terminating ones, and the finished ones not counted yet.
  std::vector<ObjectPtr> active;
  std::vector<const json*> all;
  int64_t terminating = 0;
  std::string fail_job_message;  // a podFailurePolicy FailJob rule's
  std::string last_failure;
  for (const ObjectPtr& pod : pods) {
    all.push_back(pod.get());
    const std::string phase = string_at(*pod, {"status", "phase"});
    const bool failed_pod = pod_failed_for_job(job, *pod);
    if (failed_pod)
      last_failure = std::max(last_failure, finished_at(*pod));
    if (!pod_terminal(*pod)) {
      if (!being_deleted(*pod)) {
        active.push_back(pod);
        continue;
      }
      ++terminating;
    }
    if (!tracks(*pod))
      continue;  // counted already, or let go without counting
    const std::string pod_uid = uid_of(*pod);
    if (phase == "Succeeded") {
      if (!contains(uncounted_succeeded, pod_uid))
        uncounted_succeeded.push_back(pod_uid);
      if (indexed && completion_index(*pod) >= 0)
        done_indexes.insert(completion_index(*pod));
      continue;
    }
    if (!failed_pod)
      continue;
    const FailureVerdict verdict = match_pod_failure_policy(job, *pod);
    if (verdict.action == "Ignore")
      continue;
    if (verdict.action == "FailJob" && fail_job_message.empty())
      fail_job_message = verdict.message;
    if (!contains(uncounted_failed, pod_uid))
      uncounted_failed.push_back(pod_uid);
  }
  const int64_t total_succeeded =
      indexed ? static_cast<int64_t>(done_indexes.size())
              : succeeded + static_cast<int64_t>(uncounted_succeeded.size());
  const int64_t total_failed = failed + static_cast<int64_t>(uncounted_failed.size());

  // Start time and suspension (a job whose end is settled stays as it is). The event goes out
  // once the condition is written: a sync that read a stale job and fails to write sends none.
  std::optional<JobEnd> end = settled_end(job);
  std::optional<std::pair<std::string, std::string>> suspension_event;  // reason, message
  if (!end && suspended) {
    if (!condition_true(job, "Suspended")) {
      json conditions = status.value("conditions", json::array());
      set_condition(conditions, "Suspended", "True", "JobSuspended", "Job suspended", now);
      status["conditions"] = conditions;
      suspension_event = {"Suspended", "Job suspended"};
    }
  } else if (!end) {
    if (condition_true(job, "Suspended")) {
      json conditions = status["conditions"];
      set_condition(conditions, "Suspended", "False", "JobResumed", "Job resumed", now);
      status["conditions"] = conditions;
      status["startTime"] = now;  // the deadline counts from the resume
      suspension_event = {"Resumed", "Job resumed"};
    } else if (!status.contains("startTime")) {
      status["startTime"] = now;
    }
  }
  // Is it over? An end settled before stands; then the pod failure policy, the back-off limit,
  // the deadline, and success.
  if (!end && !fail_job_message.empty()) {
    end = JobEnd{true, "PodFailurePolicy", fail_job_message};
  }
  if (!end && (total_failed > backoff_limit || restarts_past_backoff_limit(job, all))) {
    end = JobEnd{true, "BackoffLimitExceeded", "Job has reached the specified backoff limit"};
  }
  const json* deadline_field = at(job, {"spec", "activeDeadlineSeconds"});
  if (!end && !suspended && deadline_field != nullptr && deadline_field->is_number_integer()) {
    auto started = parse_time(string_at(status, {"startTime"}));
    const auto deadline =
        started.value_or(wall) + std::chrono::seconds(deadline_field->get<int64_t>());
    if (wall >= deadline) {
      end = JobEnd{true, "DeadlineExceeded", "Job was active longer than specified deadline"};
    } else {
      requeue_after(key, std::chrono::duration_cast<common::Clock::duration>(deadline - wall) +
                             std::chrono::milliseconds(10));
    }
  }
  if (!end) {
    const bool reached =
        has_completions ? total_succeeded >= completions : total_succeeded > 0 && active.empty();
    if (reached)
      end = JobEnd{false, "CompletionsReached", "Reached expected number of succeeded pods"};
  }
  // An ending job's active pods are deleted with their finalizers (a failed job counts them as
  // failed); pods a suspended or scaled-down job no longer wants are let go uncounted.
  std::vector<ObjectPtr> to_delete;
  if (end || suspended) {
    to_delete = active;
  } else if (!being_deleted(job)) {
    bool expecting;
    {
      std::lock_guard lock(mu_);
      expecting = creating_.count(key) != 0;
    }
    int64_t want = parallelism;
    if (has_completions)
      want = std::min(want, completions - total_succeeded);
    if (!has_completions && total_succeeded > 0)
      want = static_cast<int64_t>(active.size());
    want = std::max<int64_t>(want, 0);
    const int64_t have = static_cast<int64_t>(active.size());
    if (have > want) {
      to_delete.assign(active.begin() + want, active.end());
    } else if (have < want && !expecting) {
      // A failure delays the next pod (the back-off).
      const auto backoff = failure_backoff(total_failed);
      const auto last = parse_time(last_failure);
      if (total_failed > 0 && last && wall < *last + backoff) {
        requeue_after(key,
                      std::chrono::duration_cast<common::Clock::duration>(*last + backoff - wall));
      } else {
        std::vector<int> indexes;
        if (indexed) {
          std::set<int> busy = done_indexes;
          for (const ObjectPtr& p : active)
            busy.insert(completion_index(*p));
          for (int i = 0; i < completions && static_cast<int64_t>(indexes.size()) < want - have;
               ++i) {
            if (busy.count(i) == 0)
              indexes.push_back(i);
          }
        } else {
          indexes.assign(static_cast<size_t>(want - have), -1);
        }
        std::set<std::string> created;
        for (int index : indexes) {
          auto made = client_.create(kPods.collection(ns), job_pod(job, index));
          if (!made) {
            events_.record(job, "Warning", "FailedCreate",
                           "Error creating: " + made.error().message);
            break;
          }
          created.insert(name_of(*made));
          events_.record(job, "Normal", "SuccessfulCreate", "Created pod: " + name_of(*made));
        }
        if (!created.empty()) {
          std::lock_guard lock(mu_);
          creating_[key] = std::move(created);
        }
      }
    }
  }
  int64_t deleted = 0;
  for (const ObjectPtr& pod : to_delete) {
    if (!end && tracks(*pod) && !remove_finalizer(*pod))
      continue;
    auto removed = client_.remove(kPods.object(ns, name_of(*pod)));
    if (removed || removed.error().not_found()) {
      ++deleted;
      events_.record(job, "Normal", "SuccessfulDelete", "Deleted pod: " + name_of(*pod));
    }
  }
  const bool all_stopped = deleted == static_cast<int64_t>(to_delete.size());
  // A failed job counts every pod it still tracks that did not succeed as failed.
  if (end && end->failed && all_stopped) {
    for (const ObjectPtr& pod : pods) {
      const std::string pod_uid = uid_of(*pod);
      if (tracks(*pod) && string_at(*pod, {"status", "phase"}) != "Succeeded" &&
          !contains(uncounted_failed, pod_uid) &&
          match_pod_failure_policy(job, *pod).action != "Ignore")
        uncounted_failed.push_back(pod_uid);
    }
  }
  int64_t ready = 0;
  for (const ObjectPtr& p : active)
    ready += pod_ready(*p) ? 1 : 0;
  status["active"] = static_cast<int64_t>(active.size()) - deleted;
  status["ready"] = std::max<int64_t>(ready - deleted, 0);
  status["terminating"] = terminating + deleted;
  status["uncountedTerminatedPods"] = json::object();
  if (!uncounted_succeeded.empty())
    status["uncountedTerminatedPods"]["succeeded"] = uncounted_succeeded;
  if (!uncounted_failed.empty())
    status["uncountedTerminatedPods"]["failed"] = uncounted_failed;
  if (indexed)
    status["completedIndexes"] = format_index_set(done_indexes);
  if (end && all_stopped)
    add_interim_condition(status, *end, now);
  omit_zero_counts(status);
  // First write: the finished pods are known as uncounted before their finalizers go.
  if (status != job.value("status", json::object())) {
    if (auto e = write_status(job, status))
      return e;
  }
  if (suspension_event)
    events_.record(job, "Normal", suspension_event->first, suspension_event->second);
  // Their finalizers go, then they are counted. An ended job lets go of all its pods.
  json still_succeeded = json::array();
  json still_failed = json::array();
  for (const ObjectPtr& pod : pods) {
    const std::string pod_uid = uid_of(*pod);
    const bool counted =
        contains(uncounted_succeeded, pod_uid) || contains(uncounted_failed, pod_uid);
    const bool release = counted || (end && all_stopped);
    if (!release || !tracks(*pod))
      continue;
    if (!remove_finalizer(*pod) && counted) {
      (contains(uncounted_succeeded, pod_uid) ? still_succeeded : still_failed).push_back(pod_uid);
    }
  }
  json counted_status = status;
  counted_status["succeeded"] =
      indexed
          ? total_succeeded
          : succeeded + static_cast<int64_t>(uncounted_succeeded.size() - still_succeeded.size());
  counted_status["failed"] =
      failed + static_cast<int64_t>(uncounted_failed.size() - still_failed.size());
  counted_status["uncountedTerminatedPods"] = json::object();
  if (!still_succeeded.empty())
    counted_status["uncountedTerminatedPods"]["succeeded"] = still_succeeded;
  if (!still_failed.empty())
    counted_status["uncountedTerminatedPods"]["failed"] = still_failed;
  // The terminal condition once every pod is counted and none is terminating.
  const bool over = end && all_stopped && record_end(counted_status, *end, now);
  omit_zero_counts(counted_status);
  if (counted_status != status) {
    // The first write changed the resourceVersion: write over the server's copy.
    json base = job;
    if (auto current = client_.get(kJobs.object(ns, name_of(job))))
      base = *current;
    if (auto e = write_status(base, counted_status))
      return e;
  }
  if (over) {
    if (end->failed) {
      events_.record(job, "Warning", end->reason, end->message);
    } else {
      events_.record(job, "Normal", "Completed", "Job completed");
    }
  }
  if (!still_succeeded.empty() || !still_failed.empty())
    return "some finished pods of job " + key + " keep their tracking finalizer";
  return std::nullopt;
}

}  // namespace cluster
