#include "workloads/stateful_set_retention.h"

#include <algorithm>

#include "client/objects.h"
#include "workloads/stateful_set_utils.h"

namespace cluster {
namespace {

constexpr const char* kSetApiVersion = "apps/v1";
constexpr const char* kSetKind = "StatefulSet";
constexpr const char* kPodApiVersion = "v1";
constexpr const char* kPodKind = "Pod";

const json& references(const json& claim) {
  static const json kNone = json::array();
  const json* refs = at(claim, {"metadata", "ownerReferences"});
  return refs != nullptr && refs->is_array() ? *refs : kNone;
}

// The reference names `object` by apiVersion, kind and name (its uid aside).
bool names(const json& ref, const json& object, const char* api_version, const char* kind) {
  return string_at(ref, {"apiVersion"}) == api_version && string_at(ref, {"kind"}) == kind &&
         string_at(ref, {"name"}) == name_of(object);
}

bool has_reference(const json& claim, const json& owner) {
  const std::string uid = uid_of(owner);
  const json& refs = references(claim);
  return !uid.empty() && std::any_of(refs.begin(), refs.end(), [&](const json& ref) {
    return string_at(ref, {"uid"}) == uid;
  });
}

// A reference to the set or the pod that is not a controller one.
bool has_non_controller_reference(const json& claim, const json& set, const json& pod) {
  const json& refs = references(claim);
  return std::any_of(refs.begin(), refs.end(), [&](const json& ref) {
    const std::string uid = string_at(ref, {"uid"});
    return (uid == uid_of(set) || (!uid.empty() && uid == uid_of(pod))) &&
           !bool_at(ref, {"controller"}, false);
  });
}

void add_controller_reference(json& refs, const json& owner, const char* api_version,
                              const char* kind) {
  const std::string uid = uid_of(owner);
  if (std::any_of(refs.begin(), refs.end(),
                  [&](const json& ref) { return string_at(ref, {"uid"}) == uid; })) {
    return;
  }
  refs.push_back({{"apiVersion", api_version},
                  {"kind", kind},
                  {"name", name_of(owner)},
                  {"uid", uid},
                  {"controller", true},
                  {"blockOwnerDeletion", true}});
}

}  // namespace

ClaimRetention claim_retention(const json& set) {
  return {
      string_at(set, {"spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"}) == "Delete",
      string_at(set, {"spec", "persistentVolumeClaimRetentionPolicy", "whenScaled"}) == "Delete"};
}

bool stateful_pod_in_range(const json& set, const json& pod) {
  auto ordinal = stateful_ordinal(name_of(pod), name_of(set));
  const int64_t start = start_ordinal(set);
  return ordinal && *ordinal >= start && *ordinal < start + wanted_replicas(set);
}

bool claim_has_stale_owner(const json& claim, const json& owner, const char* api_version,
                           const char* kind) {
  for (const json& ref : references(claim)) {
    if (names(ref, owner, api_version, kind)) {
      return string_at(ref, {"uid"}) != uid_of(owner);
    }
  }
  return false;
}

bool claim_has_unexpected_controller(const json& claim, const json& set, const json& pod) {
  const ClaimRetention policy = claim_retention(set);
  if (!policy.delete_when_deleted && !policy.delete_when_scaled) {
    return false;  // under Retain another controller is no trouble
  }
  for (const json& ref : references(claim)) {
    if (names(ref, set, kSetApiVersion, kSetKind)) {
      if (string_at(ref, {"uid"}) != uid_of(set)) {
        return true;
      }
    } else if (names(ref, pod, kPodApiVersion, kPodKind)) {
      if (string_at(ref, {"uid"}) != uid_of(pod)) {
        return true;
      }
    } else if (bool_at(ref, {"controller"}, false)) {
      return true;
    }
  }
  return false;
}

bool claim_owners_up_to_date(const json& claim, const json& set, const json& pod) {
  if (claim_has_stale_owner(claim, set, kSetApiVersion, kSetKind) ||
      claim_has_stale_owner(claim, pod, kPodApiVersion, kPodKind)) {
    return true;  // a previous incarnation's: not ours to touch
  }
  const bool by_set = has_reference(claim, set);
  const bool by_pod = has_reference(claim, pod);
  if (claim_has_unexpected_controller(claim, set, pod)) {
    return !by_set && !by_pod;  // ours come off; none are added next to another controller
  }
  if (has_non_controller_reference(claim, set, pod)) {
    return false;
  }
  const ClaimRetention policy = claim_retention(set);
  const bool scaled_down = !stateful_pod_in_range(set, pod);
  const bool want_set = policy.delete_when_deleted && !(policy.delete_when_scaled && scaled_down);
  const bool want_pod = policy.delete_when_scaled && scaled_down;
  return by_set == want_set && by_pod == want_pod;
}

json with_retention_owners(json claim, const json& set, const json& pod) {
  const bool unexpected = claim_has_unexpected_controller(claim, set, pod);
  json refs = json::array();
  for (const json& ref : references(claim)) {
    if (!names(ref, set, kSetApiVersion, kSetKind) && !names(ref, pod, kPodApiVersion, kPodKind)) {
      refs.push_back(ref);
    }
  }
  if (!unexpected) {
    const ClaimRetention policy = claim_retention(set);
    const bool scaled_down = !stateful_pod_in_range(set, pod);
    if (policy.delete_when_scaled && scaled_down) {
      add_controller_reference(refs, pod, kPodApiVersion, kPodKind);
    } else if (policy.delete_when_deleted) {
      add_controller_reference(refs, set, kSetApiVersion, kSetKind);
    }
  }
  if (!claim["metadata"].is_object()) {
    claim["metadata"] = json::object();
  }
  if (refs.empty()) {
    claim["metadata"].erase("ownerReferences");
  } else {
    claim["metadata"]["ownerReferences"] = std::move(refs);
  }
  return claim;
}

}  // namespace cluster
