// The generic store's delete, as upstream's Store.Delete: preconditions, graceful deletion and the
// garbage collector's finalizers (deletion_rules.h), then either the object goes at once, or it is
// marked for deletion and whoever holds it (a kubelet within the grace period, the owners of its
// finalizers, the namespace controller) finishes.
#include "registry/generic/store.h"

#include "registry/generic/deletion_rules.h"
#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"
#include "registry/kind_strategy.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

// The 409 upstream answers when a precondition does not hold: the object's uid and
// resourceVersion (`resource_version`, the stored revision) against the request's.
std::optional<errors::Status> failed_precondition(const Resource& r, const DeleteRequest& request,
                                                  const json& metadata,
                                                  const std::string& resource_version) {
  const std::string uid = string_at(metadata, {"uid"});
  std::string why;
  if (request.precondition_uid && *request.precondition_uid != uid) {
    why = "the UID in the precondition (" + *request.precondition_uid +
          ") does not match the UID in record (" + uid +
          "). The object might have been deleted and then recreated";
  } else if (request.precondition_resource_version &&
             *request.precondition_resource_version != resource_version) {
    why = "the ResourceVersion in the precondition (" + *request.precondition_resource_version +
          ") does not match the ResourceVersion in record (" + resource_version +
          "). The object might have been modified";
  } else {
    return std::nullopt;
  }
  // Upstream names the kind here where other conflicts name the resource.
  return errors::failure(
      409, "Conflict",
      "Operation cannot be fulfilled on " + r.group_kind() + " \"" + request.name + "\": " + why,
      errors::object_details(request.name, r.group, r.kind));
}

}  // namespace

errors::Result<Deleted> GenericStore::remove(const Resource& r, const DeleteRequest& request) {
  const std::string key = r.storage_key(request.namespace_, request.name);
  storage::Object stored;
  if (auto e = storage_.get(key, stored)) {
    return from_storage(r, request.name, e);
  }
  json current = stored_object(stored);
  const std::string revision_text = std::to_string(stored.mod_revision);
  if (auto failed = failed_precondition(r, request, current["metadata"], revision_text)) {
    return *failed;
  }
  const KindStrategy* strategy = kind_strategy(r.group, r.kind);
  if (request.admission.validate) {
    if (auto refused = request.admission.validate(&current, current)) {
      return *refused;
    }
  }
  auto kind_holds = [&] {
    return strategy != nullptr && strategy->holds_deletion != nullptr &&
           strategy->holds_deletion(current);
  };
  const json as_stored = current;  // what a delete that changes nothing first removes
  const auto now = clock_.system_now();
  const bool was_marked = current["metadata"].contains("deletionTimestamp");
  const GracefulStep step =
      begin_graceful_delete(strategy, current, request.grace_period_seconds, now);
  if (step.pending || (was_marked && kind_holds())) {
    // A graceful deletion under way that this one would not end sooner, or what the kind
    // holds (a namespace's content): nothing changes, and whoever holds it finishes.
    current["metadata"]["resourceVersion"] = revision_text;
    if (marked_) {
      marked_(r, request.name);
    }
    return Deleted{std::move(current), false};
  }
  // A kind that makes its first delete itself (a CRD) takes no garbage collector finalizers then.
  const bool own_first_delete =
      !was_marked && strategy != nullptr && strategy->begin_delete != nullptr;
  if (own_first_delete) {
    strategy->begin_delete(current, rfc3339(now));
  }
  json& meta = current["metadata"];
  const auto finalizers =
      own_first_delete
          ? std::nullopt
          : gc_finalizers(strategy != nullptr ? strategy->gc_policy : GcPolicy::DeleteDependents,
                          meta, request.orphan_dependents, request.propagation_policy);
  bool remove_now = !step.graceful && !finalizers && !has_finalizers(meta) && !kind_holds();
  bool remove_after_write = false;
  if (!remove_now) {
    if (finalizers && finalizers->empty()) {
      meta.erase("finalizers");
    } else if (finalizers) {
      meta["finalizers"] = *finalizers;
    }
    const bool held = has_finalizers(meta) || kind_holds();
    if (step.graceful) {
      remove_after_write = !held && step.period == 0;
    } else if (!held) {
      remove_now = true;  // the request took the last finalizer: nothing waits
    } else {
      const bool marking = !meta.contains("deletionTimestamp");
      mark_as_deleting(meta, now);
      if (marking && strategy != nullptr && strategy->mark_deleting != nullptr) {
        strategy->mark_deleting(current);
      }
    }
  }
  if (remove_now) {
    return remove_stored(r, request, key, stored.mod_revision, as_stored);
  }
  // Marked (gracefully, or for its finalizers); written when that changed anything.
  int64_t revision = stored.mod_revision;
  if (current != as_stored && !request.dry_run) {
    if (auto e = storage_.update(key, stored_text(current), stored.mod_revision, revision)) {
      return from_storage(r, request.name, e);
    }
  }
  current["metadata"]["resourceVersion"] = std::to_string(revision);
  if (!remove_after_write) {
    if (marked_) {
      marked_(r, request.name);
    }
    return Deleted{std::move(current), false};
  }
  // No grace period left and nothing holding it: the object goes as just written. A watcher of
  // that write (the pod's kubelet) may remove it first: the delete has happened all the same,
  // and the answer is the object as last written, as upstream's store ignores that NotFound.
  auto removed = remove_stored(r, request, key, revision, current);
  if (!removed && removed.error().code == 404 && revision != stored.mod_revision) {
    return Deleted{std::move(current), true};  // whoever removed it told the hooks
  }
  return removed;
}

errors::Result<Deleted> GenericStore::remove_stored(const Resource& r, const DeleteRequest& request,
                                                    const std::string& key, int64_t revision,
                                                    json object) {
  object["metadata"]["resourceVersion"] = std::to_string(revision);
  if (!request.dry_run) {
    int64_t removed_at = 0;
    if (auto e = storage_.remove(key, revision, removed_at)) {
      return from_storage(r, request.name, e);
    }
    if (WriteHooks* hooks = hooks_for(r)) {
      hooks->after_delete(object);  // e.g. a service's addresses are free again
    }
  }
  return Deleted{std::move(object), true};
}

}  // namespace apiserver::registry
