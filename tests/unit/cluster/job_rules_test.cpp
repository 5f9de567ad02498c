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
           json::array({{{"action", "Ignore"},
                         {"onPodConditions", json::array({{{"type", "DisruptionTarget"}}})}},
                        {{"action", "FailJob"},
                         {"onExitCodes",
                          {{"containerName", "main"}, {"operator", "In"}, {"values", {42}}}}}})}}}}}};
  json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}},
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
