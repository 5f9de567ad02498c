// A kind's strategy: the rules of one built-in kind that the generic code (defaulting,
// validation, Tables, the generic store's writes) calls instead of dispatching on kind names
// itself, as kube-apiserver's registry strategies do. One file per kind family under kinds/ fills
// these in; a kind without an entry gets the generic behaviour (metadata rules only, no defaults,
// the default Table).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "errors/status.h"
#include "registry/defaults.h"
#include "registry/objects.h"

namespace apiserver::registry {

namespace cells {
struct Context;
}
class WriteHooks;          // registry/generic/write_hooks.h
struct WriteHooksOptions;  // registry/generic/write_hooks.h

// What a delete does with an object's dependents when the request names no propagation policy
// (upstream's DefaultGarbageCollectionPolicy, for the versions v1.32 serves by default).
enum class GcPolicy {
  // Background: neither GC finalizer unless the request, or one already on the object, asks.
  // Kinds without a policy of their own (custom resources among them) behave so too.
  DeleteDependents,
  // The "orphan" finalizer unless the request or the object asks otherwise (core/v1
  // ReplicationController and batch/v1 Job, for compatibility).
  OrphanDependents,
  // Never a GC finalizer, whatever the request says (events).
  Unsupported,
  // Only what the request asks changes them, and orphanDependents=false asks for foreground
  // deletion (the namespace registry's own delete).
  AsRequested,
};

struct KindStrategy {
  std::string_view group;  // "" for the core group
  std::string_view kind;
  // The defaults of the phase (defaults.h), applied to a whole object of this kind.
  void (*defaults)(nlohmann::json& object, const DefaultingContext& context) = nullptr;
  // The kind's own rules on create and update, after the metadata rules.
  void (*validate)(const nlohmann::json& object, std::vector<FieldError>& out) = nullptr;
  // The kind's own rules on create only, after validate.
  void (*validate_create)(const nlohmann::json& object, std::vector<FieldError>& out) = nullptr;
  // The kind's own rules on update only (immutable fields, allowed transitions), after validate.
  void (*validate_update)(const nlohmann::json& object, const nlohmann::json& old,
                          std::vector<FieldError>& out) = nullptr;
  // The Table cells of one object, every column (wide ones included) in the order of the
  // Resource row's table_columns.
  nlohmann::json (*print)(const nlohmann::json& object, const cells::Context& context) = nullptr;
  // True when validate replaces the metadata rules (core Events check their own metadata).
  bool own_metadata_rules = false;
  // True when a create keeps the status it is given although the kind has a status subresource
  // (a kubelet registers its Node with its capacity and conditions).
  bool keeps_status_on_create = false;

  // The generic store's questions (registry/generic/store.h); null means "nothing more".
  // Update of the main resource, once the server-owned metadata is carried over: what only
  // another path may change is put back from `old`.
  void (*prepare_for_update)(nlohmann::json& updated, const nlohmann::json& old) = nullptr;
  // Update through a subresource ("status", "approval"), once the generic store took from the
  // request what that subresource changes: what else the kind keeps from `old` or stamps (`now`
  // in RFC 3339).
  void (*prepare_for_subresource_update)(std::string_view subresource, nlohmann::json& updated,
                                         const nlohmann::json& old,
                                         const std::string& now) = nullptr;
  // The kind's own first delete of an object not yet marked (a registry that writes it itself):
  // what changes, deletionTimestamp included, before its finalizers are read; the request's
  // propagation policy does not apply to it. `now` is the time in RFC 3339.
  void (*begin_delete)(nlohmann::json& object, const std::string& now) = nullptr;
  // Whether something besides metadata.finalizers holds the object's deletion.
  bool (*holds_deletion)(const nlohmann::json& object) = nullptr;
  // The object is being marked for deletion (its deletionTimestamp set): what else changes.
  void (*mark_deleting)(nlohmann::json& object) = nullptr;
  // The kind's write hooks, when its writes need state (write_hooks.h).
  std::unique_ptr<WriteHooks> (*make_write_hooks)(const WriteHooksOptions& options) = nullptr;
  // Graceful deletion (upstream's CheckGracefulDelete), for kinds that support it: the grace
  // period in seconds a first delete of `object` gets, from the request's (`requested`, never
  // negative) or the object's own. Null: the kind has no graceful deletion.
  int64_t (*grace_period)(const nlohmann::json& object, std::optional<int64_t> requested) = nullptr;
  GcPolicy gc_policy = GcPolicy::DeleteDependents;
  // A kind stored in another group's form (events.k8s.io Events are stored as core/v1 Events,
  // as kube-apiserver's storage does): the object in this group's form made into the stored one,
  // and back, in place, apiVersion included. Null for kinds stored as they are served. The
  // generic store, defaults and validation see the stored form.
  void (*to_storage)(nlohmann::json& object) = nullptr;
  void (*from_storage)(nlohmann::json& object) = nullptr;
  // The Warning a delete or deletecollection that names no propagation policy gets.
  std::string_view default_gc_warning = {};
};

// The strategy of a built-in kind, or null when it has none. Lock-free after the first call.
const KindStrategy* kind_strategy(std::string_view group, std::string_view kind);

// Every strategy, sorted by group then kind (for tests and listings).
const std::vector<KindStrategy>& kind_strategies();

}  // namespace apiserver::registry
