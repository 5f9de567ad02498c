// The generic store's delete: preconditions, then either the object goes at once, or finalizers
// (or what the kind counts as such) hold it and it is marked for deletion for their owners to
// finish (graceful deletion).
#include "registry/generic/store.h"

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
  Deleted deleted;
  json& current = deleted.object;
  current = json::parse(stored.value, nullptr, false);
  if (!current.is_object()) {
    current = json::object();
  }
  if (!current.contains("metadata") || !current["metadata"].is_object()) {
    current["metadata"] = json::object();
  }
  const std::string revision_text = std::to_string(stored.mod_revision);
  if (auto failed = failed_precondition(r, request, current["metadata"], revision_text)) {
    return *failed;
  }
  const KindStrategy* strategy = kind_strategy(r.group, r.kind);
  if (strategy != nullptr && strategy->refuse_delete != nullptr) {
    if (auto refused = strategy->refuse_delete(request.name)) {
      return *refused;
    }
  }
  const std::string now = rfc3339(clock_.system_now());
  if (strategy != nullptr && strategy->begin_delete != nullptr &&
      !current["metadata"].contains("deletionTimestamp")) {
    strategy->begin_delete(current, now);
  }
  json& meta = current["metadata"];
  const json* finalizers = find_path(meta, {"finalizers"});
  const bool held = (finalizers != nullptr && finalizers->is_array() && !finalizers->empty()) ||
                    (strategy != nullptr && strategy->holds_deletion != nullptr &&
                     strategy->holds_deletion(current));
  const bool marking = held && !meta.contains("deletionTimestamp");
  if (marking) {
    meta["deletionTimestamp"] = now;
    meta["deletionGracePeriodSeconds"] = 0;
    if (strategy != nullptr && strategy->mark_deleting != nullptr) {
      strategy->mark_deleting(current);
    }
  }
  if (request.dry_run) {
    // What would happen, without doing it: marked when finalizers hold it, else gone.
    current["metadata"]["resourceVersion"] = revision_text;
    deleted.removed = !held;
    return deleted;
  }
  int64_t revision = 0;
  if (held) {
    // Graceful: marked; whoever owns the finalizers finishes the deletion.
    if (marking) {
      if (auto e = storage_.update(key, stored_text(current), stored.mod_revision, revision)) {
        return from_storage(r, request.name, e);
      }
      current["metadata"]["resourceVersion"] = std::to_string(revision);
    } else {
      current["metadata"]["resourceVersion"] = revision_text;
    }
    if (marked_) {
      marked_(r, request.name);
    }
    return deleted;
  }
  if (auto e = storage_.remove(key, stored.mod_revision, revision)) {
    return from_storage(r, request.name, e);
  }
  if (WriteHooks* hooks = hooks_for(r)) {
    hooks->after_delete(current);  // e.g. a service's addresses are free again
  }
  current["metadata"]["resourceVersion"] = revision_text;
  deleted.removed = true;
  return deleted;
}

}  // namespace apiserver::registry
