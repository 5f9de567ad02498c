// Reading and building the parts of API objects that every controller looks at: metadata,
// label selectors, owner references, timestamps. Lenient: a missing or mistyped field reads as
// empty, never throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

// The value at `path` (object keys), or null when any step is missing.
const json* at(const json& object, std::initializer_list<const char*> path);
std::string string_at(const json& object, std::initializer_list<const char*> path);
// An integer at `path`, or `fallback` when missing or not an integer.
int64_t int_at(const json& object, std::initializer_list<const char*> path, int64_t fallback);
bool bool_at(const json& object, std::initializer_list<const char*> path, bool fallback);

std::string name_of(const json& object);
std::string namespace_of(const json& object);
std::string uid_of(const json& object);
bool being_deleted(const json& object);
// Whether metadata.finalizers holds `finalizer`.
bool has_finalizer(const json& object, const std::string& finalizer);
// Removes `finalizer` from metadata.finalizers; false when it was not there.
bool remove_finalizer(json& object, const std::string& finalizer);

// Whether `labels` (an object of strings) satisfies a metav1.LabelSelector (matchLabels and
// matchExpressions: In, NotIn, Exists, DoesNotExist). A null selector matches nothing, an empty
// one everything, as the workload controllers read them.
bool selector_matches(const json& selector, const json& labels);

// The ownerReference with controller: true, or null.
const json* controller_ref(const json& object);
// An ownerReference to `owner` (apiVersion, kind, name, uid), with controller and
// blockOwnerDeletion true, as the workload controllers set on what they create.
json controller_owner_ref(const json& owner);

// Timestamps as the API writes them: "2026-11-26T17:00:00Z", in seconds.
std::string rfc3339(std::chrono::system_clock::time_point t);
// Parses one back (nullopt when it is not one).
std::optional<std::chrono::system_clock::time_point> parse_time(const std::string& text);

// The condition of `type` in object.status.conditions, or null.
const json* condition(const json& object, const std::string& type);
// Whether that condition is there with status "True".
bool condition_true(const json& object, const std::string& type);
// A pod's Ready condition is True.
bool pod_ready(const json& pod);
// The condition of `type` in `conditions` (an array), or null.
const json* condition_in(const json& conditions, const std::string& type);
// Sets (adds or replaces) a condition in `conditions` (an array), keeping lastTransitionTime when
// the status did not change. `now` is the RFC 3339 time.
void set_condition(json& conditions, const std::string& type, const std::string& status,
                   const std::string& reason, const std::string& message, const std::string& now);

}  // namespace cluster
