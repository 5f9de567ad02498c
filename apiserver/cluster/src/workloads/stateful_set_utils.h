// The StatefulSet controller's pure parts, as kube-controller-manager's stateful_set_utils and
// stateful_set_control decide them: pod and claim names, a pod's identity (name, hostname,
// subdomain, labels) and storage (volumes pointing at its claims), which pods to create, fix or
// delete next, and the status the pods add up to.
//
// A set of replicas R starting at ordinal S (spec.ordinals.start, default 0) wants pods
// <set>-S ... <set>-(S+R-1). Pods of the set with an ordinal outside that range are condemned.
// Worked example, OrderedReady, 3 replicas, web-0 Running and Ready, web-1 Pending, no web-2:
// the plan is empty (web-1 must be Running and Ready before web-2 is created). With Parallel the
// plan creates web-2 at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/informer.h"

namespace cluster {

using nlohmann::json;

inline constexpr const char* kStatefulPodNameLabel = "statefulset.kubernetes.io/pod-name";
inline constexpr const char* kPodIndexLabel = "apps.kubernetes.io/pod-index";

// <set>-<ordinal>.
std::string stateful_pod_name(const std::string& set, int64_t ordinal);
// <claim template>-<set>-<ordinal>.
std::string stateful_claim_name(const std::string& claim_template, const std::string& set,
                                int64_t ordinal);
// The ordinal a pod name ends in when the rest is `set` ("web-12" of "web": 12); nullopt when
// the name is not one of the set's.
std::optional<int64_t> stateful_ordinal(const std::string& pod_name, const std::string& set);

int64_t start_ordinal(const json& set);
int64_t wanted_replicas(const json& set);
// OrderedReady (the default) creates and deletes one pod at a time; Parallel does not wait.
bool ordered_ready(const json& set);

// The claims (PersistentVolumeClaims) the pod of `ordinal` uses, from spec.volumeClaimTemplates:
// named by stateful_claim_name, labelled with the template's labels and the set's matchLabels
// (the retention policy's references come after, stateful_set_retention).
std::vector<json> stateful_claims(const json& set, int64_t ordinal);
// The pod of `ordinal` made from `tmpl` (the template of `revision`): name, namespace, the
// pod-name, pod-index and controller-revision-hash labels, hostname and subdomain (serviceName),
// its claims' volumes first.
json new_stateful_pod(const json& set, const json& tmpl, const std::string& revision,
                      int64_t ordinal);
// Whether a live pod has the identity and the volumes its ordinal wants.
bool stateful_identity_matches(const json& set, const json& pod);
bool stateful_storage_matches(const json& set, const json& pod);
// The pod with its identity labels and claim volumes set again.
json with_stateful_identity(const json& set, const json& pod);

// Pod states, as the controller reads them.
bool pod_created(const json& pod);  // has a phase
bool pod_running_and_ready(const json& pod);
bool pod_healthy(const json& pod);  // running, ready, not being deleted

struct StatefulAction {
  enum class Kind {
    Create,        // create the pod of `ordinal` (its claims first) at `revision`
    Recreate,      // delete the failed or finished `pod`, then create it again at `revision`
    CreateClaims,  // create the missing claims of the pending `pod`
    Update,        // restore the identity, storage and claim references of `pod`
    FixClaims,     // make the claims of the condemned `pod` what the retention policy wants
    Delete,        // delete `pod` (scale down, or a rolling update)
  };
  Kind kind;
  int64_t ordinal = 0;
  std::string pod;
  std::string revision;  // Create, Recreate: the revision the new pod is made from
};

// What to do next for `set` given its pods (those it controls, with the set's name and an
// ordinal), at `now`. `current` and `update` are the names of its current and update revisions;
// `claims` the PersistentVolumeClaims of its namespace (their references are checked against
// the retention policy, and a stale one holds its pod's creation back). In OrderedReady the plan
// stops at the first step that must wait or that must be seen done.
std::vector<StatefulAction> plan_stateful_set(const json& set, const std::vector<ObjectPtr>& pods,
                                              const std::string& current, const std::string& update,
                                              std::chrono::system_clock::time_point now,
                                              const std::vector<ObjectPtr>& claims = {});

// The status `pods` add up to (replicas, readyReplicas, availableReplicas, currentReplicas,
// updatedReplicas), with observedGeneration, the revisions and collisionCount; a finished rolling
// update makes the update revision current.
json stateful_status(const json& set, const std::vector<ObjectPtr>& pods,
                     const std::string& current, const std::string& update, int64_t collision_count,
                     std::chrono::system_clock::time_point now);

}  // namespace cluster
