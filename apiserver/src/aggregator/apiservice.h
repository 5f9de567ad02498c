// APIService objects (apiregistration.k8s.io/v1) as the aggregation layer reads and writes them:
// the local ones kube-apiserver registers for its own groups and versions (the autoregistration
// controller, from upstream's priority table) and for CustomResourceDefinitions (the CRD
// registration controller), the service-backed ones that send a group/version to an extension
// API server, their Available condition, and the order discovery lists them in. Pure: no I/O,
// no state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "webhook/resolve.h"

namespace apiserver::aggregator {

// spec.groupPriorityMinimum and spec.versionPriority.
struct Priority {
  int group = 0;
  int version = 0;
  friend bool operator==(const Priority&, const Priority&) = default;
};

// The label every automatically managed APIService carries, and its values: "onstart" for the
// built-in groups (created at start), "true" for the groups of CRDs (followed as they change).
inline constexpr const char* kAutomanagedLabel = "kube-aggregator.kubernetes.io/automanaged";
inline constexpr const char* kOnStart = "onstart";
inline constexpr const char* kAutomanaged = "true";
// The priorities of every CRD group/version.
inline constexpr Priority kCrdPriority{1000, 100};

// Upstream's priority table for kube-apiserver's own group/versions; nullopt for one it does not
// list (which upstream registers no APIService for).
std::optional<Priority> builtin_priority(const std::string& group, const std::string& version);

// The object name: "<version>.<group>", "v1." for the core group.
std::string apiservice_name(const std::string& group, const std::string& version);

// A local APIService (spec.service null) for `group`/`version`, labelled `automanaged`.
nlohmann::json local_apiservice(const std::string& group, const std::string& version,
                                Priority priority, const std::string& automanaged);

// The group/versions the served versions of `crds` (stored CustomResourceDefinitions) call
// for, by APIService name.
std::map<std::string, std::pair<std::string, std::string>> crd_group_versions(
    const std::vector<nlohmann::json>& crds);

// The Available condition's parts.
struct Condition {
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  friend bool operator==(const Condition&, const Condition&) = default;
};
// A local APIService's: True, Local, "Local APIServices are always available".
Condition local_condition();
// A service-backed one's whose discovery check answered: True, Passed, "all checks passed".
Condition passed_condition();

// What the aggregation layer needs of a stored APIService.
struct ApiService {
  std::string name;
  std::string group;
  std::string version;
  Priority priority;
  std::optional<webhook::ServiceReference> service;  // null: local
  std::string ca_pem;                                // spec.caBundle decoded
  bool insecure_skip_verify = false;
  std::optional<Condition> available;  // status.conditions[type=Available]
  std::string resource_version;
  std::string automanaged;  // the kAutomanagedLabel value, "" when not automanaged
};
// Reads a stored APIService; members of the wrong type read as absent.
ApiService parse_apiservice(const nlohmann::json& object);

// Sets the Available condition on `object` (an APIService as stored), keeping
// lastTransitionTime when the status does not change, else `now` (RFC 3339). False when the
// condition was already exactly this (no write needed).
bool set_available(nlohmann::json& object, const Condition& condition, const std::string& now);

// kube-aware version order (upstream's version.CompareKubeAwareVersionStrings): GA before beta
// before alpha, then the higher major, then the higher minor; versions that are not kube-like
// ("v1", "v2beta1", "v1alpha3") after all kube-like ones, in lexical order. Negative when `a`
// goes first.
int compare_versions(const std::string& a, const std::string& b);

// One group in discovery order, with its versions most preferred first.
struct GroupOrder {
  std::string group;
  std::vector<std::string> versions;
};
// Groups as the aggregator orders them: APIServices by groupPriorityMinimum (higher first),
// ties by name, and each group where its first APIService falls; within a group, the higher
// versionPriority first, ties by compare_versions().
std::vector<GroupOrder> order_groups(const std::vector<ApiService>& services);

}  // namespace apiserver::aggregator
