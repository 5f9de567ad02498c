// Server-side apply and managedFields bookkeeping, as kube-apiserver v1.32 does them with
// sigs.k8s.io/structured-merge-diff v4 (typed values, field sets, merge) and
// k8s.io/apimachinery/pkg/util/managedfields (the manager chain around it).
//
// Everything here is a pure function over nlohmann::json objects in their JSON (wire) form,
// typed by the schema facts (registry::SchemaIndex). Nothing is thrown on the request path:
// malformed managedFields or configurations come back as error values.
//
// Worked example. A Deployment created by kubectl and then scaled by a controller carries
//   managedFields:
//   - manager: kubectl-create, operation: Update, apiVersion: apps/v1, time: ..., fieldsType:
//     FieldsV1, fieldsV1: {"f:spec": {"f:template": {"f:spec": {"f:containers":
//       {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}}
//   - manager: hpa, operation: Update, ..., fieldsV1: {"f:spec": {"f:replicas": {}}}
// "f:" names a struct field or map key, "k:" a map-list item by its keys (sorted, compact JSON),
// "v:" a set-list item by value, "i:" a list index; "." marks the node itself as owned in
// addition to fields below it. The replicas change moved f:spec.f:replicas from kubectl-create
// (had it since create) to hpa.
//
// Thread-safety: all functions are reentrant; SchemaIndex is immutable.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "registry/schema_index.h"

namespace apiserver::endpoints::patch {

// ---------------------------------------------------------------------------------------------
// Field sets (fieldpath.Set)

// A path is a sequence of fieldsV1 element keys: "f:spec", "k:{\"name\":\"app\"}", "v:\"x\"",
// "i:0". Keys are kept in the canonical serialized form, so string equality is element equality.
using FieldPath = std::vector<std::string>;

// A set of field paths, stored like upstream: at each level the elements that are members, and
// the elements that have members below them (an element may be both, which serializes as ".").
// Invariant: no child set is empty.
class FieldSet {
 public:
  FieldSet() = default;
  FieldSet(const FieldSet&) = default;
  FieldSet(FieldSet&&) = default;
  FieldSet& operator=(const FieldSet&) = default;
  FieldSet& operator=(FieldSet&&) = default;
  ~FieldSet();

  // Parses a fieldsV1 object. Fails, saying why, when it is not an object tree of
  // "f:"/"k:"/"v:"/"i:"/"." keys with object values, or a k:/v:/i: key is not valid JSON of the
  // right shape. "k:" keys are re-serialized canonically (sorted keys, compact).
  static common::Result<FieldSet> from_fields_v1(const nlohmann::json& fields);
  // The fieldsV1 object; {} for the empty set.
  nlohmann::json to_fields_v1() const;

  bool empty() const { return members_.empty() && children_.empty(); }
  // Adds `path` as a member (no-op for the empty path).
  void insert(const FieldPath& path);
  // Puts `set` below `element`, replacing what was there (nothing when `set` is empty).
  void set_child(const std::string& element, FieldSet set);
  // Whether `path` is a member.
  bool has(const FieldPath& path) const;
  // The members below `element` (upstream WithPrefix); empty when none.
  const FieldSet& child(const std::string& element) const;
  bool is_member(const std::string& element) const { return members_.count(element) != 0; }

  FieldSet union_with(const FieldSet& other) const;
  FieldSet intersection(const FieldSet& other) const;
  // Members of this not in `other`, compared level by level (upstream Difference).
  FieldSet difference(const FieldSet& other) const;
  // Like difference, and also drops everything below a member of `other` (RecursiveDifference).
  FieldSet recursive_difference(const FieldSet& other) const;

  // All member paths: at each level members first, then children, each in element order.
  std::vector<FieldPath> paths() const;

  bool operator==(const FieldSet& other) const {
    return members_ == other.members_ && children_ == other.children_;
  }

  const std::set<std::string>& members() const { return members_; }
  const std::map<std::string, FieldSet>& children() const { return children_; }

 private:
  void add_all(const FieldSet& other);
  void collect_paths(FieldPath& prefix, std::vector<FieldPath>& out) const;

  std::set<std::string> members_;
  std::map<std::string, FieldSet> children_;
};

// The element key of a struct field or map key ("f:name").
std::string field_element(const std::string& name);
// A path in upstream's display form (fieldpath.Path.String()), e.g.
// `.spec.template.spec.containers[name="app"].image`, `.metadata.finalizers[="a"]`,
// `.spec.ports[port=80,protocol="TCP"]`.
std::string display_path(const FieldPath& path);

// ---------------------------------------------------------------------------------------------
// Typed operations (typed.TypedValue): each walks a JSON value along the schema of a kind.
// Schema rules: objects with properties are structs, with additionalProperties maps; both are
// granular unless x-kubernetes-map-type is atomic. Arrays follow x-kubernetes-list-type (set,
// map with x-kubernetes-list-map-keys) and are atomic otherwise. Values without a schema, and
// object schemas with neither properties nor additionalProperties (RawExtension), are "deduced"
// like upstream's untyped type: objects granular maps, arrays atomic, the rest scalars.

class ObjectType {
 public:
  // The schema of a kind; `root` is its definition (SchemaIndex::kind()). `index` must outlive
  // this object. group/version/kind name the kind's Go type in the protobuf facts (for
  // zero_object()); leave them empty for kinds without one (custom resources).
  ObjectType(const registry::SchemaIndex& index, const nlohmann::json* root, std::string group = "",
             std::string version = "", std::string kind = "")
      : index_(&index),
        root_(root),
        group_(std::move(group)),
        version_(std::move(version)),
        kind_(std::move(kind)) {}
  // The built-in kind, or nullopt when the facts do not know it.
  static std::optional<ObjectType> builtin(const std::string& group, const std::string& version,
                                           const std::string& kind);

  const registry::SchemaIndex& index() const { return *index_; }
  const nlohmann::json* root() const { return root_; }
  const std::string& group() const { return group_; }
  const std::string& version() const { return version_; }
  const std::string& kind() const { return kind_; }

 private:
  const registry::SchemaIndex* index_;
  const nlohmann::json* root_;
  std::string group_;
  std::string version_;
  std::string kind_;
};

// The fields of `value` (TypedValue.ToFieldSet): leaves, atomic nodes, items of set/map lists,
// map entries, and struct fields that are null or empty objects.
FieldSet to_field_set(const ObjectType& type, const nlohmann::json& value);

struct Comparison {
  FieldSet added;     // in rhs only (non-leaf nodes too, as members)
  FieldSet modified;  // leaves/atomics present in both with different values
  FieldSet removed;   // in lhs only
};
// TypedValue.Compare.
Comparison compare(const ObjectType& type, const nlohmann::json& lhs, const nlohmann::json& rhs);

// TypedValue.Merge: `config` merged over `live`. Structs and granular maps merge key by key,
// atomic values and atomic lists are replaced, set and map lists merge their items (live order,
// new items appended; items present in both are merged).
nlohmann::json merge(const ObjectType& type, const nlohmann::json& live,
                     const nlohmann::json& config);

// TypedValue.RemoveItems: drops every member of `set` (and what is below it). Objects and lists
// emptied by the removal are dropped from their parent (upstream leaves them null, which the Go
// types then omit).
nlohmann::json remove_items(const ObjectType& type, const nlohmann::json& value,
                            const FieldSet& set);

// fieldpath.Set.EnsureNamedFieldsAreMembers: every struct field with members below it becomes
// a member itself (used by apply's prune).
FieldSet ensure_named_fields_are_members(const ObjectType& type, const FieldSet& set);

// The object a create starts from: the kind's Go zero value as encoding/json writes it
// (non-pointer structs present, nil slices/maps/pointers without omitempty as null), from the
// protobuf facts' Go field shapes. It matters because nodes absent before a change are owned
// with ".", nodes present (even empty or null) are not. {} when the kind has no Go type.
nlohmann::json zero_object(const ObjectType& type);

// ---------------------------------------------------------------------------------------------
// Managed fields (managedFields entries and the manager chain)

// Who is writing and how; one per request.
struct Writer {
  std::string manager;      // field manager name; "" becomes "unknown" like upstream
  std::string api_version;  // "apps/v1": the version of the request (the main resource's)
  std::string subresource;  // "" or "status", "scale", ...
  std::string now;          // request time, RFC 3339 seconds, "2024-05-01T10:00:00Z"
  // Fields the strategy resets for this endpoint (GetResetFields), never owned by anyone
  // through it: e.g. {"f:status"} for a main resource with a status subresource, {"f:spec"} (and
  // per-kind metadata fields) for /status. Build with FieldSet::insert.
  FieldSet reset_fields;
};

// Update bookkeeping (operation "Update"): for create (live == nullptr), update, every non-apply
// patch and subresource writes. Returns `new_object` with metadata.managedFields recomputed:
// - managedFields sent in new_object are used as given (allowing clients to edit them), except:
//   [] or [{}] resets them to none, absent/null/undecodable falls back to the live object's;
//   on a subresource the request's are ignored and the live object's used.
// - the writer's entry (manager, Update, api_version, subresource) gains what changed (added or
//   modified) and loses what was removed; everyone else loses what changed or was removed.
//   The writer's time is set to `now` only when it gained something.
// - apiVersion, kind, metadata, and metadata name/namespace/uid/resourceVersion/generation/
//   creationTimestamp/selfLink/clusterName/managedFields are never owned by the writer.
// - at most 10 Update entries: the oldest are folded into "ancient-changes" per apiVersion.
// - empty entries are dropped; entries sorted by operation, time, manager, apiVersion,
//   subresource. No entries at all: metadata.managedFields is removed.
// If `new_object` has no metadata object, it is returned unchanged (like objects without an
// accessor upstream).
nlohmann::json update_managed_fields(const ObjectType& type, const nlohmann::json* live,
                                     const nlohmann::json& new_object, const Writer& writer);

// A field another manager owns and the applier would change.
struct Conflict {
  std::string manager;  // the upstream manager identifier, JSON: {"manager":..,"operation":..}
  FieldPath path;
};

struct ApplyResult {
  // BadRequest: a 400 with `message`. Internal: the live object's managedFields cannot be
  // decoded (upstream answers 500 "failed to decode managed fields: ...").
  enum class Outcome { Ok, Conflict, BadRequest, Internal };
  Outcome outcome = Outcome::Ok;
  nlohmann::json object;            // Ok: the new object, managedFields included
  bool changed = false;             // Ok: whether the object (not counting managedFields) changed
  std::vector<Conflict> conflicts;  // Conflict: sorted by manager identifier, then path order
  std::string message;              // BadRequest, Internal: the error message
};

// Server-side apply (operation "Apply"). `live` is the stored object, or nullptr to create (the
// result is then the config merged over {}, compared against zero_object() for ownership).
// `config` is the applied configuration already converted from YAML. Steps as upstream:
// config merged over live; the applier's set becomes the config's fields; fields it applied
// before but not now are removed from the object unless some manager (any entry, Update too)
// still owns them; then every other entry (including Update entries of the same manager name)
// that owns a field whose value changes is a conflict, unless `force`, in which case it loses
// the field. Errors (400): apiVersion differing from writer.api_version
// ("Incorrect version specified in apply patch. Specified patch version: X, expected: Y"),
// metadata.managedFields present in the config ("metadata.managedFields must be nil").
ApplyResult apply(const ObjectType& type, const nlohmann::json* live, const nlohmann::json& config,
                  const Writer& writer, bool force);

// The 409 Status for conflicts, as kube-apiserver returns it:
//   message "Apply failed with 1 conflict: conflict with \"m\" using v1: .data.key", or
//   "Apply failed with N conflicts: conflicts with \"a\" using v1:\n- .x\n- .y\nconflicts with
//   \"b\":\n- .z"; reason Conflict; details.causes [{reason: FieldManagerConflict,
//   message: "conflict with \"m\" using v1", field: ".data.key"}].
nlohmann::json conflict_status(const std::vector<Conflict>& conflicts);

// How the Status names a manager (printManager): "\"m\"", "\"m\" using apps/v1" for Update
// entries, with " with subresource \"status\"" after the name for subresource entries.
std::string describe_manager(const std::string& identifier);

// ---------------------------------------------------------------------------------------------
// Field manager names

constexpr std::size_t kFieldManagerMaxLength = 128;

// The manager of a non-apply request without ?fieldManager: the User-Agent before its first '/',
// without non-printable characters, cut (whole characters) to 128 bytes.
std::string default_field_manager(std::string_view user_agent);

// Validates ?fieldManager (and ?force for patches) like ValidatePatchOptions /
// ValidateFieldManager. Returns the 422 Invalid Status, or nullopt when valid. `options_kind` is
// "PatchOptions", "CreateOptions" or "UpdateOptions"; `is_apply` requires a non-empty manager
// ("fieldManager: Required value: is required for apply patch"); `force_set` on a non-apply
// patch is forbidden ("force: Forbidden: may not be specified for non-apply patch").
std::optional<nlohmann::json> validate_field_manager(std::string_view options_kind,
                                                     std::string_view field_manager, bool is_apply,
                                                     bool force_set);

}  // namespace apiserver::endpoints::patch
