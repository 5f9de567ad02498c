// The Job controller's rules that need no API: completion index sets as status.completedIndexes
// writes them ("0-2,4"), which pods count as failed, the pod failure policy, the back-off limit
// and the replacement back-off, how a job's end is recorded, and the pods it creates.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

// "1,3-5" <-> {1, 3, 4, 5}; a malformed part is skipped.
std::set<int> parse_index_set(const std::string& text);
std::string format_index_set(const std::set<int>& indexes);

// The pod's completion index (annotation batch.kubernetes.io/job-completion-index), or -1.
int completion_index(const json& pod);

// What spec.podFailurePolicy says about a failed pod: the first rule that matches it.
struct FailureVerdict {
  std::string action;   // "FailJob", "Ignore", "Count", "FailIndex"; "" when no rule matched
  std::string message;  // for FailJob: the Failed condition's message, as upstream words it
};
FailureVerdict match_pod_failure_policy(const json& job, const json& pod);

// The delay before a failed job's next pod: 10 s doubling per failure, at most 6 minutes.
std::chrono::seconds failure_backoff(int64_t failures);

// Whether the pod carries the batch.kubernetes.io/job-tracking finalizer.
bool has_tracking_finalizer(const json& pod);
// Whether a pod's tracking finalizer is nobody's to keep any more: the pod has no controller,
// or its controller is a batch/v1 Job that is gone (`job` null or another uid) or finished.
// A pod controlled by anything else keeps it.
bool tracking_finalizer_orphaned(const json& pod, const json* job);

// Whether `pod` counts as failed for `job`: phase Failed, or deleted before it succeeded (it may
// never reach a phase), unless the job replaces failed pods only (podReplacementPolicy Failed,
// or a podFailurePolicy), which waits for the phase.
bool pod_failed_for_job(const json& job, const json& pod);

// restartPolicy OnFailure: failed containers restart in place, and their restarts (in the pods
// still Pending or Running) count against spec.backoffLimit: reaching it fails the job (with
// backoffLimit 0, a single restart does).
bool restarts_past_backoff_limit(const json& job, const std::vector<const json*>& pods);

// How a job ends: failed (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy) or succeeded
// (CompletionsReached), with the conditions' message.
struct JobEnd {
  bool failed = false;
  std::string reason;
  std::string message;
};
// The end an earlier sync settled: its interim condition (FailureTarget, SuccessCriteriaMet).
std::optional<JobEnd> settled_end(const json& job);
// An end is recorded in two steps. First the interim condition (FailureTarget,
// SuccessCriteriaMet), added to `status` unless there.
void add_interim_condition(json& status, const JobEnd& end, const std::string& now);
// Then, once no finished pod is left uncounted (status.uncountedTerminatedPods) and no pod is
// terminating (status.terminating 0), the terminal one (Failed, or Complete with
// completionTime; active and ready 0). Returns whether it was added (the interim one is added
// in any case).
bool record_end(json& status, const JobEnd& end, const std::string& now);

// The pod the job creates for completion index `index` (-1 when not Indexed): its template, the
// job-tracking finalizer, a controller reference, generateName "<job>-" ("<job>-<index>-");
// Indexed pods also get the index as annotation and label, hostname "<job>-<index>" and the
// JOB_COMPLETION_INDEX variable in every container.
json job_pod(const json& job, int index);

}  // namespace cluster
