// A StatefulSet's persistentVolumeClaimRetentionPolicy, as kube-controller-manager's
// StatefulSet controller applies it: the claims made from volumeClaimTemplates get controller
// ownerReferences, so that the garbage collector deletes them with their owner.
//
//   whenScaled  whenDeleted  claim of a pod in range   claim of a pod scaled away
//   Retain      Retain       no reference              no reference
//   Retain      Delete       the StatefulSet           the StatefulSet
//   Delete      Retain       no reference              the pod
//   Delete      Delete       the StatefulSet           the pod
//
// A claim that names a StatefulSet or pod of the same name with another uid (a previous
// incarnation's) is left alone, and blocks the creation of the pod it belongs to while
// whenScaled is Delete (the garbage collector is about to delete it). A claim controlled by
// anything else keeps that controller: the set's and pod's references are taken off, none added.
// Pure functions of the objects as the API returns them.
#pragma once

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

struct ClaimRetention {
  bool delete_when_deleted = false;
  bool delete_when_scaled = false;
};
// Retain unless the policy says Delete.
ClaimRetention claim_retention(const json& set);

// Whether the pod's ordinal is among the ones the set wants now.
bool stateful_pod_in_range(const json& set, const json& pod);

// Whether the claim names an object of that apiVersion, kind and name as `owner` with another
// uid (a pod not created yet has none, so any reference to its name is stale).
bool claim_has_stale_owner(const json& claim, const json& owner, const char* api_version,
                           const char* kind);
// Under a policy that deletes, whether something other than the set or pod controls the claim
// (or the set's or pod's reference is stale).
bool claim_has_unexpected_controller(const json& claim, const json& set, const json& pod);
// Whether the claim's references to the set and the pod are what the policy wants (a claim with
// a stale reference, or another controller and none of ours, counts as up to date: not touched).
bool claim_owners_up_to_date(const json& claim, const json& set, const json& pod);
// The claim with its references to the set and the pod made what the policy wants.
json with_retention_owners(json claim, const json& set, const json& pod);

}  // namespace cluster
