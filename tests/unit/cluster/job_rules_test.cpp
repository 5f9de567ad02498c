// The Job controller's rules (workloads/job_rules): index sets, the pod failure policy, the
// back-off.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "workloads/job_rules.h"

using nlohmann::json;

TEST_CASE("completed indexes read and write as status.completedIndexes", "[cluster][job]") {
  CHECK(cluster::format_index_set({0, 1, 2, 4, 6, 7}) == "0-2,4,6-7");
  CHECK(cluster::format_index_set({}).empty());
  CHECK(cluster::parse_index_set("0-2,4,6-7") == std::set<int>{0, 1, 2, 4, 6, 7});
  CHECK(cluster::parse_index_set("3,x,5-4,9") == std::set<int>{3, 9});
}

TEST_CASE("the pod failure policy's first matching rule decides", "[cluster][job]") {
  const json job = {
      {"spec",
       {{"podFailurePolicy",
         {{"rules",
           json::array(
               {{{"action", "Ignore"},
                 {"onPodConditions", json::array({{{"type", "DisruptionTarget"}}})}},
                {{"action", "FailJob"},
                 {"onExitCodes",
                  {{"containerName", "main"}, {"operator", "In"}, {"values", {42}}}}}})}}}}}};
  json pod = {
      {"metadata", {{"name", "p"}, {"namespace", "ns"}}},
      {"status",
       {{"containerStatuses",
         json::array({{{"name", "main"}, {"state", {{"terminated", {{"exitCode", 42}}}}}}})}}}};
  auto verdict = cluster::match_pod_failure_policy(job, pod);
  CHECK(verdict.action == "FailJob");
  CHECK(verdict.message ==
        "Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1");
  pod["status"]["conditions"] = json::array({{{"type", "DisruptionTarget"}, {"status", "True"}}});
  CHECK(cluster::match_pod_failure_policy(job, pod).action == "Ignore");
  pod["status"]["conditions"] = json::array();
  pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] = 1;
  CHECK(cluster::match_pod_failure_policy(job, pod).action.empty());
}

TEST_CASE("a failed job waits 10 s, doubling, at most 6 minutes", "[cluster][job]") {
  CHECK(cluster::failure_backoff(0).count() == 0);
  CHECK(cluster::failure_backoff(1).count() == 10);
  CHECK(cluster::failure_backoff(3).count() == 40);
  CHECK(cluster::failure_backoff(10).count() == 360);
}

namespace {

json job_with(const json& spec) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", "batch"}, {"namespace", "ns"}, {"uid", "job-uid"}}},
          {"spec", spec}};
}

json pod_in(const std::string& phase, bool deleted = false) {
  json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}}, {"status", {{"phase", phase}}}};
  if (deleted) {
    pod["metadata"]["deletionTimestamp"] = "2026-11-26T17:00:00Z";
  }
  return pod;
}

}  // namespace

TEST_CASE(
    "a pod deleted before it succeeded counts as failed, unless only failed pods are replaced",
    "[cluster][job]") {
  const json job = job_with(json::object());
  CHECK(cluster::pod_failed_for_job(job, pod_in("Failed")));
  CHECK(cluster::pod_failed_for_job(job, pod_in("Running", true)));
  CHECK(cluster::pod_failed_for_job(job, pod_in("Pending", true)));
  CHECK_FALSE(cluster::pod_failed_for_job(job, pod_in("Running")));
  CHECK_FALSE(cluster::pod_failed_for_job(job, pod_in("Succeeded", true)));
  for (const json& spec : {json{{"podReplacementPolicy", "Failed"}},
                           json{{"podFailurePolicy", {{"rules", json::array()}}}}}) {
    CAPTURE(spec);
    CHECK_FALSE(cluster::pod_failed_for_job(job_with(spec), pod_in("Running", true)));
    CHECK(cluster::pod_failed_for_job(job_with(spec), pod_in("Failed", true)));
  }
}

TEST_CASE("OnFailure restarts of live pods reach the back-off limit", "[cluster][job]") {
  auto job = [](const char* policy, int limit) {
    return job_with(
        {{"backoffLimit", limit}, {"template", {{"spec", {{"restartPolicy", policy}}}}}});
  };
  auto restarted = [](const std::string& phase, int main, int init) {
    json pod = pod_in(phase);
    pod["status"]["containerStatuses"] = json::array({{{"name", "c"}, {"restartCount", main}}});
    pod["status"]["initContainerStatuses"] = json::array({{{"name", "i"}, {"restartCount", init}}});
    return pod;
  };
  const json one = restarted("Running", 1, 0);
  const json two = restarted("Pending", 1, 1);
  const json done = restarted("Failed", 5, 0);
  CHECK_FALSE(cluster::restarts_past_backoff_limit(job("OnFailure", 2), {&one}));
  CHECK(cluster::restarts_past_backoff_limit(job("OnFailure", 2), {&two}));
  CHECK(cluster::restarts_past_backoff_limit(job("OnFailure", 2), {&one, &one}));
  // Pods that finished do not count; a limit of 0 fails at the first restart.
  CHECK_FALSE(cluster::restarts_past_backoff_limit(job("OnFailure", 2), {&done}));
  CHECK(cluster::restarts_past_backoff_limit(job("OnFailure", 0), {&one}));
  const json none = restarted("Running", 0, 0);
  CHECK_FALSE(cluster::restarts_past_backoff_limit(job("OnFailure", 0), {&none}));
  // restartPolicy Never: failed pods count instead, not restarts.
  CHECK_FALSE(cluster::restarts_past_backoff_limit(job("Never", 1), {&two}));
}

TEST_CASE("a job's end is recorded as interim, then terminal once no pod is left terminating",
          "[cluster][job]") {
  const cluster::JobEnd failure{true, "DeadlineExceeded",
                                "Job was active longer than specified deadline"};
  json status = {{"active", 0},
                 {"failed", 1},
                 {"terminating", 1},
                 {"uncountedTerminatedPods", json::object()}};
  CHECK_FALSE(cluster::record_end(status, failure, "2026-11-26T17:00:00Z"));
  REQUIRE(status["conditions"].size() == 1);
  CHECK(status["conditions"][0]["type"] == "FailureTarget");
  CHECK(status["conditions"][0]["reason"] == "DeadlineExceeded");

  // The pod is gone: the job reads its settled end from the interim condition and fails.
  const json job = {{"status", status}};
  const auto settled = cluster::settled_end(job);
  REQUIRE(settled);
  CHECK(settled->failed);
  CHECK(settled->message == failure.message);
  status["terminating"] = 0;
  status["uncountedTerminatedPods"] = {{"failed", json::array({"uid-1"})}};
  CHECK_FALSE(cluster::record_end(status, *settled, "2026-11-26T17:00:05Z"));
  status["uncountedTerminatedPods"] = json::object();
  CHECK(cluster::record_end(status, *settled, "2026-11-26T17:00:05Z"));
  REQUIRE(status["conditions"].size() == 2);
  CHECK(status["conditions"][0]["lastTransitionTime"] == "2026-11-26T17:00:00Z");
  CHECK(status["conditions"][1]["type"] == "Failed");
  CHECK(status["conditions"][1]["reason"] == "DeadlineExceeded");
  CHECK(status["conditions"][1]["message"] == failure.message);
  CHECK_FALSE(status.contains("completionTime"));

  // Success: SuccessCriteriaMet, then Complete with the completion time.
  json done = {{"succeeded", 1}, {"terminating", 0}};
  const cluster::JobEnd success{false, "CompletionsReached",
                                "Reached expected number of succeeded pods"};
  CHECK(cluster::record_end(done, success, "2026-11-26T17:01:00Z"));
  CHECK(done["conditions"][0]["type"] == "SuccessCriteriaMet");
  CHECK(done["conditions"][1]["type"] == "Complete");
  CHECK(done["completionTime"] == "2026-11-26T17:01:00Z");
  CHECK_FALSE(cluster::settled_end(json{{"status", json::object()}}));
}

TEST_CASE("an Indexed job's pod carries its index as upstream's does", "[cluster][job]") {
  json job = job_with(
      {{"completionMode", "Indexed"},
       {"template",
        {{"metadata", {{"labels", {{"app", "batch"}}}, {"finalizers", json::array({"keep"})}}},
         {"spec",
          {{"hostname", "mine"},
           {"initContainers", json::array({{{"name", "setup"}}})},
           {"containers", json::array({{{"name", "main"}, {"env", json::array({{{"name", "A"}}})}},
                                       {{"name", "side"},
                                        {"env", json::array({{{"name", "JOB_COMPLETION_INDEX"},
                                                              {"value", "own"}}})}}})}}}}}});
  const json pod = cluster::job_pod(job, 2);
  CHECK(pod["metadata"]["generateName"] == "batch-2-");
  CHECK(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == "2");
  CHECK(pod["metadata"]["labels"] ==
        json{{"app", "batch"}, {"batch.kubernetes.io/job-completion-index", "2"}});
  CHECK(pod["metadata"]["finalizers"] == json::array({"keep", "batch.kubernetes.io/job-tracking"}));
  CHECK(pod["metadata"]["ownerReferences"][0]["uid"] == "job-uid");
  CHECK(pod["spec"]["hostname"] == "batch-2");  // the template's is replaced
  const json variable = {
      {"name", "JOB_COMPLETION_INDEX"},
      {"valueFrom",
       {{"fieldRef",
         {{"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}}};
  CHECK(pod["spec"]["initContainers"][0]["env"] == json::array({variable}));
  CHECK(pod["spec"]["containers"][0]["env"] == json::array({{{"name", "A"}}, variable}));
  // A variable of that name already there is kept.
  CHECK(pod["spec"]["containers"][1]["env"].size() == 1);
  CHECK(pod["spec"]["containers"][1]["env"][0]["value"] == "own");

  const json plain = cluster::job_pod(job_with({{"template", job["spec"]["template"]}}), -1);
  CHECK(plain["metadata"]["generateName"] == "batch-");
  CHECK(plain["spec"]["hostname"] == "mine");
  CHECK_FALSE(plain["metadata"].contains("annotations"));
  CHECK(plain["spec"]["containers"][0]["env"].size() == 1);

  // A long name is cut so that the index and the random suffix fit in 63 characters.
  job["metadata"]["name"] = std::string(60, 'j');
  const std::string prefix = cluster::job_pod(job, 12)["metadata"]["generateName"];
  CHECK(prefix == std::string(54, 'j') + "-12-");
}

TEST_CASE("a tracking finalizer no live job counts goes", "[cluster][job]") {
  json job = job_with(json::object());
  json pod = {{"metadata",
               {{"name", "p"},
                {"namespace", "ns"},
                {"finalizers", json::array({"batch.kubernetes.io/job-tracking"})}}}};
  // No controller at all: orphaned (kubectl delete job --cascade=orphan).
  CHECK(cluster::tracking_finalizer_orphaned(pod, nullptr));
  pod["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "batch/v1"},
                                                     {"kind", "Job"},
                                                     {"name", "batch"},
                                                     {"uid", "job-uid"},
                                                     {"controller", true}}});
  CHECK_FALSE(cluster::tracking_finalizer_orphaned(pod, &job));  // its job runs
  CHECK(cluster::tracking_finalizer_orphaned(pod, nullptr));     // its job is gone
  json other = job;
  other["metadata"]["uid"] = "new-uid";
  CHECK(cluster::tracking_finalizer_orphaned(pod, &other));  // a new job of the same name
  job["status"]["conditions"] = json::array({{{"type", "Complete"}, {"status", "True"}}});
  CHECK(cluster::tracking_finalizer_orphaned(pod, &job));  // its job is over
  // Another kind of controller keeps it; so does a pod without the finalizer (nothing to do).
  pod["metadata"]["ownerReferences"][0]["kind"] = "CronJob";
  CHECK_FALSE(cluster::tracking_finalizer_orphaned(pod, nullptr));
  pod["metadata"].erase("ownerReferences");
  pod["metadata"]["finalizers"] = json::array({"example.com/keep"});
  CHECK_FALSE(cluster::tracking_finalizer_orphaned(pod, nullptr));
}
