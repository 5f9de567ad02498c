// Evaluating a pod against a level and version (policy.EvaluatePod and AggregateCheckResults):
// which checks apply, in which order, and how their answers become upstream's messages.
//
// At v1.N each check runs the newest revision introduced at or before v1.N; versions newer
// than the newest revision any check has (v1.32), and "latest", evaluate as that newest one.
// Baseline runs the baseline checks; restricted runs the restricted checks and the baseline
// checks none of them overrides at that version. Results come baseline checks first, then
// restricted ones, each group sorted by check ID, e.g. for restricted:latest:
//   forbidden AppArmor profiles, host namespaces, hostPort, privileged, seLinuxOptions,
//   allowPrivilegeEscalation != false, unrestricted capabilities, restricted volume types,
//   runAsNonRoot != true, seccompProfile
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admission/plugins/pod_security/check.h"

namespace apiserver::admission::pod_security {

// The newest policy version any check has a revision for.
constexpr int64_t kNewestPolicyMinor = 32;

// The checks' answers for `metadata` and `spec` (a pod's, or a pod template's); none at
// privileged.
std::vector<CheckResult> evaluate_pod(const LevelVersion& lv, const nlohmann::json& metadata,
                                      const nlohmann::json& spec);

// The IDs of the checks evaluate_pod runs at `lv`, in its order (for tests and the trace).
std::vector<std::string> check_ids(const LevelVersion& lv);

struct Aggregate {
  bool allowed = true;
  std::vector<std::string> reasons;  // "unknown forbidden reason" for a forbidding check without
  std::vector<std::string> details;  // one per reason, may be empty

  // "host ports, privileged" (what a namespace's pods are summarized with).
  std::string forbidden_reason() const;
  // "host ports (8080, 9090), privileged (container \"x\" must not ...)".
  std::string forbidden_detail() const;
};

Aggregate aggregate(const std::vector<CheckResult>& results);

}  // namespace apiserver::admission::pod_security
