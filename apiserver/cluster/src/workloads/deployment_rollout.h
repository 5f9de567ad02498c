// The Deployment controller's decisions, as pure functions of the Deployment and its ReplicaSets
// (the objects as the API returns them): the pod-template hash that names a new ReplicaSet, the
// surge and unavailability budgets, which ReplicaSet is scaled to how many replicas in one step of
// a rollout, the old ReplicaSets to delete, and the status with its Available and Progressing
// conditions. The controller (deployment_controller.h) reads the informers, calls these and
// writes what they decide; each step is one write, then the next sync looks again.
//
// Example, a rolling update of replicas 3 with the defaults (maxSurge 25% -> 1, maxUnavailable
// 25% -> 0) from old RS a (3 available) to a new RS b (0): step 1 scales b 0 -> 1 (3 + 1 pods
// at most); once b's pod is available, step 2 scales a 3 -> 2 (3 available at least); and so on
// until b has 3 and a 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster::deployment {

using nlohmann::json;

inline constexpr const char* kHashLabel = "pod-template-hash";
inline constexpr const char* kRevision = "deployment.kubernetes.io/revision";
inline constexpr const char* kRevisionHistory = "deployment.kubernetes.io/revision-history";
inline constexpr const char* kDesiredReplicas = "deployment.kubernetes.io/desired-replicas";
inline constexpr const char* kMaxReplicas = "deployment.kubernetes.io/max-replicas";

// The pod-template-hash of `pod_template` (a PodTemplateSpec) with `collision_count`: FNV-1a
// (32 bits) over the template, then the collision count as 4 little-endian bytes, the sum's
// decimal digits spelled in the alphabet of generated names, as kube-controller-manager does.
// One difference: upstream hashes Go's printed form of the template, which C++ cannot
// reproduce; this hashes the template's compact JSON (keys sorted), which is as stable (the same
// template always gives the same hash) but gives other values than upstream's.
std::string pod_template_hash(const json& pod_template, int64_t collision_count);

struct Fenceposts {
  int64_t surge = 0;        // rounded up
  int64_t unavailable = 0;  // rounded down; 1 when both would be 0
};
// A missing budget counts as 0 (the server defaults both to 25%).
Fenceposts resolve_fenceposts(const json* max_surge, const json* max_unavailable, int64_t desired);

int64_t desired_replicas(const json& deployment);  // spec.replicas (1 when missing)
int64_t rs_replicas(const json& replica_set);      // spec.replicas (1 when missing)
bool rolling_update(const json& deployment);       // strategy RollingUpdate (the default)
// The surge budget of a rolling update (0 for Recreate).
int64_t max_surge(const json& deployment);
// The unavailability budget of a rolling update, at most spec.replicas (0 for Recreate or 0
// replicas).
int64_t max_unavailable(const json& deployment);
// progressDeadlineSeconds, unless missing or "never" (2^31 - 1).
std::optional<int64_t> progress_deadline(const json& deployment);

// Whether two pod templates are the same apart from the pod-template-hash label (nulls and empty
// maps and lists count as missing, as Go's semantic equality has them).
bool equal_ignore_hash(const json& a, const json& b);
// Oldest first (by creationTimestamp, then name).
void sort_by_creation(std::vector<json>& replica_sets);
// The ReplicaSet whose template is the Deployment's (the oldest such), or nullopt-index.
std::optional<size_t> find_new(const json& deployment, const std::vector<json>& replica_sets);
// The revision annotation of a ReplicaSet (0 when missing or not a number).
int64_t revision_of(const json& replica_set);

// Brings the annotations of the new ReplicaSet `rs` up to date: the Deployment's own (but for
// kubectl's last-applied configuration and the deployment.kubernetes.io ones), the revision when
// it is behind `revision` (the older one appended to revision-history), and, for one being
// created (not `exists`), desired-replicas and max-replicas. True when one changed.
bool set_new_rs_annotations(const json& deployment, json& rs, int64_t revision, bool exists);
// Sets desired-replicas and max-replicas; true when one changed.
bool set_replicas_annotations(json& rs, int64_t desired, int64_t max);

// One write: ReplicaSet `name` from `from` to `to` replicas.
struct Scale {
  std::string name;
  int64_t from = 0;
  int64_t to = 0;
};

// How many replicas the new ReplicaSet may have now: within the surge budget (rolling update),
// or all of them (Recreate).
int64_t new_rs_replicas(const json& deployment, const std::vector<json>& all, const json& new_rs);
// One step of a rolling update: the new ReplicaSet scaled up (or down to spec.replicas) when it
// may, else old ReplicaSets scaled down: first their unavailable replicas, then available ones as
// far as maxUnavailable allows. `old` are every old ReplicaSet.
std::vector<Scale> plan_rolling(const json& deployment, const json& new_rs,
                                const std::vector<json>& old);
// A scaling event (spec.replicas changed, or a paused Deployment): the only active ReplicaSet
// (or the newest one) takes spec.replicas; with a saturated new one the old go to 0; else the
// difference is spread over the active ones in proportion to their size.
std::vector<Scale> plan_scale(const json& deployment, const json* new_rs,
                              const std::vector<json>& old);
// Whether an active ReplicaSet was sized for another spec.replicas than the current one.
bool is_scaling_event(const json& deployment, const std::vector<json>& all);
// The names of old ReplicaSets to delete beyond revisionHistoryLimit: the oldest first, only
// those scaled to 0 with no pods left and their last change observed.
std::vector<std::string> to_clean_up(const json& deployment, const std::vector<json>& old);

// A Deployment condition with both times `now` (RFC 3339).
json deployment_condition(const std::string& type, const std::string& status,
                          const std::string& reason, const std::string& message,
                          const std::string& now);
// Adds or replaces `condition` in status.conditions: no change when status and reason are the
// same; lastTransitionTime kept when the status is.
void set_deployment_condition(json& status, const json& condition);
void remove_deployment_condition(json& status, const std::string& type);
const json* deployment_condition_of(const json& status, const std::string& type);

// status computed from the ReplicaSets: the counts, observedGeneration, collisionCount and the
// Available condition (the other conditions carried over).
json calculate_status(const json& deployment, const std::vector<json>& all, const json* new_rs,
                      std::chrono::system_clock::time_point now);
// calculate_status plus the Progressing condition of a rollout (NewReplicaSetAvailable,
// ReplicaSetUpdated, ProgressDeadlineExceeded) and ReplicaFailure copied from the ReplicaSets.
json rollout_status(const json& deployment, const std::vector<json>& all, const json* new_rs,
                    std::chrono::system_clock::time_point now);
// Every replica updated, present and available, the generation observed.
bool complete(const json& deployment, const json& status);
// When a rollout that made no progress should be looked at again to time it out (nullopt when
// it need not be).
std::optional<std::chrono::system_clock::duration> stuck_requeue(
    const json& deployment, const json& status, std::chrono::system_clock::time_point now);

}  // namespace cluster::deployment
