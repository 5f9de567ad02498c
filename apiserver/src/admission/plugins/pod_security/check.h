// One Pod Security check (k8s.io/pod-security-admission/policy): a pure function of a pod's
// metadata and spec (JSON, as stored) that allows it or says why not, in revisions that apply
// from the policy version they were introduced at. The helpers are the vocabulary every check's
// message is written in.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "admission/plugins/pod_security/policy.h"

namespace apiserver::admission::pod_security {

// A check's answer. A forbidding answer has a short reason ("host namespaces") and an optional
// detail naming what was wrong ("hostNetwork=true").
struct CheckResult {
  bool allowed = true;
  std::string reason;
  std::string detail;
};

inline CheckResult allowed() {
  return {};
}
inline CheckResult forbidden(std::string reason, std::string detail) {
  return {false, std::move(reason), std::move(detail)};
}

using CheckFn = CheckResult (*)(const nlohmann::json& metadata, const nlohmann::json& spec);

// One revision of a check: it applies from v1.<since> until the next revision. A restricted
// revision may name baseline checks it replaces at the restricted level (`overrides`).
struct VersionedCheck {
  int64_t since = 0;
  CheckFn check = nullptr;
  std::vector<std::string_view> overrides;
};

struct Check {
  std::string_view id;  // upstream's check ID; results are ordered by it
  Level level = Level::Baseline;
  std::vector<VersionedCheck> versions;  // by `since`, increasing
};

// Every check of v1.32, baseline ones (baseline_checks.cpp) and restricted ones
// (restricted_checks.cpp).
const std::vector<Check>& baseline_checks();
const std::vector<Check>& restricted_checks();

// ---- helpers shared by the checks ----

// Every container of the spec, as upstream visits them: initContainers, containers, then
// ephemeralContainers (entries that are not objects are skipped).
std::vector<const nlohmann::json*> containers_of(const nlohmann::json& spec);
std::string container_name(const nlohmann::json& container);
// The spec's volumes (entries that are not objects are skipped).
std::vector<const nlohmann::json*> volumes_of(const nlohmann::json& spec);
// RuntimeDefault or Localhost: the seccomp profile types baseline and restricted allow.
bool valid_seccomp_type(const std::string& type);
// The object at `key` of `object`, or an empty object when absent or of another type.
const nlohmann::json& object_at(const nlohmann::json& object, std::string_view key);
// Whether `key` of `object` is the boolean true (false) explicitly.
bool is_true(const nlohmann::json& object, std::string_view key);
bool is_false(const nlohmann::json& object, std::string_view key);
bool has(const nlohmann::json& object, std::string_view key);  // present and not null
std::string string_of(const nlohmann::json& object, std::string_view key);

// `"a", "b"` (Go's joinQuote: quotes added, nothing escaped); "" for none.
std::string join_quote(const std::vector<std::string>& items);
std::string join_quote(const std::set<std::string>& items);
// Go's strings.Join.
std::string join(const std::vector<std::string>& items, std::string_view sep);
std::string pluralize(std::string_view singular, std::string_view plural, size_t count);
// `container "a"` / `containers "a", "b"`.
std::string containers_phrase(const std::vector<std::string>& names);
// "pod", `containers "a", "b"`, or both joined by " and ": who set a forbidden value.
std::string setters(bool pod, const std::vector<std::string>& containers);
// The object's securityContext (a pod spec's or a container's), or an empty object.
const nlohmann::json& security_context(const nlohmann::json& object);

}  // namespace apiserver::admission::pod_security
