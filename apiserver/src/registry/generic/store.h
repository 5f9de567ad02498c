// The generic registry store: the one place that owns what create, update and delete mean for
// any resource, built-in or custom, as k8s.io/apiserver's generic registry store does. It runs
// the steps every write shares (server-owned metadata, generateName, generation, defaults,
// validation, dry run, finalizers and graceful deletion, the storage write) and asks the kind's
// strategy (registry/kind_strategy.h) and write hooks (write_hooks.h) for what differs per kind.
// The REST handlers decode requests, call it and encode what it returns.
//
// Thread-safety: safe from any thread; the hooks guard their own state.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "common/clock.h"
#include "errors/result.h"
#include "registry/generic/write_hooks.h"
#include "storage/storage.h"

namespace apiserver::registry {

// Brings an object's managedFields up to date for the write (`live`: the object it replaces, null
// on create). Empty when the caller recorded field ownership itself (server-side apply).
using Ownership =
    std::function<nlohmann::json(const nlohmann::json* live, const nlohmann::json& object)>;

// A check of a write that only the layers above can make (RBAC's escalation prevention needs
// the user and the authorizers): called once defaults are applied, before validation, with the
// object as it would be stored and what it replaces (null on create); a Status refuses the write.
using Admission = std::function<std::optional<errors::Status>(const nlohmann::json* old,
                                                              const nlohmann::json& object)>;

// The admission chain's two passes around a write (admission/chain.h), as kube-apiserver runs
// them: `mutate` may change the object before the server fills what it owns and validates it
// (on create: before uid, creationTimestamp and a generated name; the decode-time defaults are
// set); `validate` sees the object as it would be stored, once validation passed. On delete,
// `validate` gets the object as stored (and `old` is the same object). Either may be empty.
struct AdmissionPasses {
  std::function<std::optional<errors::Status>(const nlohmann::json* old, nlohmann::json& object)>
      mutate;
  Admission validate;
};

struct CreateRequest {
  std::string namespace_;  // the URL's namespace ("" when it names none)
  nlohmann::json object;   // the decoded body
  bool dry_run = false;
  Ownership own;
  Admission admit;  // may be empty
  AdmissionPasses admission;
};

struct UpdateRequest {
  std::string namespace_;
  std::string name;  // the URL's name
  // "", "status", "approval" or "finalize" (scale arrives as an update of the object)
  std::string subresource;
  nlohmann::json object;  // the whole object, or the object carrying the new status
  const storage::Object* current = nullptr;  // what it replaces, as read; never null
  bool dry_run = false;
  Ownership own;
  // Set when the store changed between the read of `current` and the write (the answer is then
  // a 409 Conflict the caller may retry on a fresh read).
  bool* raced = nullptr;
  // May be empty; asked for writes of the main resource, and of the subresources of kinds that
  // prepare them (KindStrategy::prepare_for_subresource_update).
  Admission admit;
  AdmissionPasses admission;  // asked for every write, subresources included
};

struct DeleteRequest {
  std::string namespace_;
  std::string name;
  bool dry_run = false;
  // DeleteOptions.preconditions.
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  // DeleteOptions.gracePeriodSeconds: for kinds with graceful deletion (pods), how long the
  // object may take to go; nullopt leaves it to the kind (deletion_rules.h).
  std::optional<int64_t> grace_period_seconds;
  // DeleteOptions.orphanDependents and .propagationPolicy (validated: at most one of them, and a
  // policy is Orphan, Background or Foreground); nullopt leaves it to the kind's default.
  std::optional<bool> orphan_dependents;
  std::optional<std::string> propagation_policy;
  // Its `validate` is asked with the object as stored before anything is deleted or marked.
  AdmissionPasses admission;
};

// A change computed from the object as stored, written as upstream's storage GuaranteedUpdate
// writes it (the pod binding's): no defaults, validation or field ownership, only the caller's
// rule. The preconditions hold against the stored object or the answer is a 409 worded as the
// storage layer's; a write that raced another is made again on a fresh read.
struct ChangeRequest {
  std::string namespace_;
  std::string name;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  bool dry_run = false;
  // Changes the object read (resourceVersion set to its revision), or returns the Status that
  // refuses the change. Called once per attempt.
  std::function<std::optional<errors::Status>(nlohmann::json& object)> change;
};

// A create's or update's outcome. Usually the stored text and its revision (the answer is
// spliced from them); `object` instead when nothing was stored (a dry run) or the update removed
// the object (its last finalizer went while it was being deleted).
struct Written {
  std::string stored;
  int64_t revision = 0;
  std::optional<nlohmann::json> object;
};

// A delete's outcome: the object as removed (as last stored), or as marked for deletion while a
// grace period or finalizers hold it.
struct Deleted {
  nlohmann::json object;
  bool removed = false;
};

class GenericStore {
 public:
  // Told each time a delete leaves an object marked for deletion (its finalizers hold it).
  using MarkedForDeletion = std::function<void(const Resource& r, const std::string& name)>;

  // `clock` stamps managedFields and must outlive the store.
  GenericStore(storage::Storage& storage, const common::Clock& clock, MarkedForDeletion marked,
               const WriteHooksOptions& hooks = {});
  ~GenericStore();

  // At start-up: hands each kind's write hooks the objects already stored (e.g. the addresses
  // services hold). `snapshot` says where each kind is stored.
  void load(const Snapshot& snapshot);

  errors::Result<Written> create(const Resource& r, CreateRequest request);
  errors::Result<Written> update(const Resource& r, UpdateRequest request);
  errors::Result<Deleted> remove(const Resource& r, const DeleteRequest& request);
  // An object changed by the caller's rule (ChangeRequest); unchanged, it is not written.
  errors::Result<Written> change(const Resource& r, const ChangeRequest& request);

 private:
  WriteHooks* hooks_for(const Resource& r) const;
  // The delete's last step: `object`, stored at `revision` under `key`, is removed (unless the
  // request is a dry run) and the kind's hooks told.
  errors::Result<Deleted> remove_stored(const Resource& r, const DeleteRequest& request,
                                        const std::string& key, int64_t revision,
                                        nlohmann::json object);

  storage::Storage& storage_;
  const common::Clock& clock_;
  const MarkedForDeletion marked_;
  // The kinds' write hooks, by (group, kind); built once, never changed.
  std::vector<std::pair<std::pair<std::string_view, std::string_view>, std::unique_ptr<WriteHooks>>>
      hooks_;
};

}  // namespace apiserver::registry
