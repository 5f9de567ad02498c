// The Job controller's rules that need no API: completion index sets as status.completedIndexes
// writes them ("0-2,4"), the pod failure policy, and the replacement back-off.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>

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

}  // namespace cluster
