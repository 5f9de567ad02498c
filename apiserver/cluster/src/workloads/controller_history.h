// ControllerRevisions, as kube-controller-manager's controller history keeps them for
// StatefulSets and DaemonSets: each distinct pod template an owner had is recorded once, as a
// patch that replaces spec.template, in an apps/v1 ControllerRevision named <owner>-<hash> with a
// growing revision number. Pods carry the revision they were made from in their
// controller-revision-hash label, which is how a rolling update tells old pods from new ones.
//
// The hash is Go's FNV-1 (32 bit) of the patch's bytes, then of the collision count in decimal,
// written as its decimal digits mapped onto the consonants and digits that cannot spell words
// (rand.SafeEncodeString). A name already taken by a revision with other data bumps the owner's
// status.collisionCount and hashes again.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "client/api_client.h"
#include "client/informer.h"

namespace cluster {

inline constexpr const char* kRevisionHashLabel = "controller-revision-hash";
extern const ResourceRef kControllerRevisions;

// Go's hash/fnv New32 (FNV-1, not 1a) over `data`, continuing from `hash`.
uint32_t fnv1_32(std::string_view data, uint32_t hash = 2166136261u);
// rand.SafeEncodeString: each byte mapped onto "bcdfghjklmnpqrstvwxz2456789".
std::string safe_encode(std::string_view text);

// The revision data of `owner` (a StatefulSet or DaemonSet): {"spec":{"template":{...,
// "$patch":"replace"}}}.
json template_patch(const json& owner);
// The data's bytes as Go's encoding/json writes a map: keys sorted, <, > and & escaped.
std::string go_json(const json& value);
// The hash of a revision's data with the owner's collision count (none: not hashed in).
std::string revision_hash(const json& data, std::optional<int64_t> collision_count);
// <owner>-<hash>, the owner's name cut to 223 characters.
std::string revision_name(const std::string& owner_name, const std::string& hash);

// A new ControllerRevision of `owner` (kind `kind`) holding `data`: the template's labels plus
// controller-revision-hash, a controller ownerReference, the given revision number.
json new_revision(const json& owner, const json& data, int64_t revision,
                  std::optional<int64_t> collision_count);
// The pod template a revision recorded (its data's spec.template without "$patch").
json revision_template(const json& revision);

// `revisions` less those being deleted, oldest revision number first.
std::vector<ObjectPtr> by_revision_number(std::vector<ObjectPtr> revisions);
// The revisions in `revisions` controlled by `owner`, by_revision_number.
std::vector<ObjectPtr> owned_revisions(const Informer& revisions, const json& owner);
// One more than the highest revision number (1 when none).
int64_t next_revision_number(const std::vector<ObjectPtr>& revisions);

// Creates `revision` (from new_revision), renaming it on each hash collision. Returns the
// created revision, or the existing one with the same data; `collision_count` grows by the
// collisions met.
Result<json> create_revision(const Client& client, const json& owner, json revision,
                             int64_t& collision_count);

// The names of revisions to delete so that at most `limit` of those not in `live` remain, the
// oldest going first. `revisions` oldest first.
std::vector<std::string> revisions_to_prune(const std::vector<ObjectPtr>& revisions,
                                            const std::set<std::string>& live, int64_t limit);

}  // namespace cluster
