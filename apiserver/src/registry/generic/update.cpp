// The generic store's update: the whole object (or its status, through /status, a CSR's
// conditions, through /approval, or a namespace's spec.finalizers, through /finalize) replaces the
// one read, with the metadata the server owns carried over, generation counted, defaults,
// validation and field ownership; a write that changes nothing is no new revision, and one that
// takes the last finalizer from an object being deleted deletes it.
#include "registry/generic/store.h"

#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"
#include "registry/kind_strategy.h"
#include "registry/validation_rules.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

// `updated` as a write through the main resource makes it from `current`: the server-owned
// metadata and (with a status subresource) the status stay, defaults apply, and a change of
// spec (of anything outside metadata, for custom resources) is a new generation.
void prepare_main_update(const Resource& r, const std::string& ns, const json& current,
                         json& updated, std::string_view defaults_layer) {
  static const json kNone = json::object();
  json& m = updated["metadata"];
  const json* old_meta = find_path(current, {"metadata"});
  const json& old = old_meta != nullptr && old_meta->is_object() ? *old_meta : kNone;
  for (const char* kept : {"uid", "creationTimestamp", "deletionTimestamp",
                           "deletionGracePeriodSeconds", "generation"}) {
    if (old.contains(kept)) {
      m[kept] = old[kept];
    } else {
      m.erase(kept);
    }
  }
  if (r.namespaced) {
    m["namespace"] = ns;
  }
  if (has_status_subresource(r)) {
    if (current.contains("status")) {
      updated["status"] = current["status"];
    } else {
      updated.erase("status");
    }
  }
  default_object(r, updated, DefaultingPhase::Update, defaults_layer);
  if (tracks_generation(r.group, r.resource) &&
      updated.value("spec", json()) != current.value("spec", json())) {
    m["generation"] = integer_at(old, {"generation"}).value_or(0) + 1;
  } else if (r.custom) {
    json a = updated;
    json b = current;
    a.erase("metadata");
    b.erase("metadata");
    if (a != b) {
      m["generation"] = integer_at(old, {"generation"}).value_or(0) + 1;
    }
  }
  const KindStrategy* strategy = kind_strategy(r.group, r.kind);
  if (strategy != nullptr && strategy->prepare_for_update != nullptr) {
    strategy->prepare_for_update(updated, current);
  }
}

// Whether finalizers (or what the kind counts as such) still hold the object.
bool held(const Resource& r, const json& object) {
  const json* list = find_path(object, {"metadata", "finalizers"});
  if (list != nullptr && list->is_array() && !list->empty()) {
    return true;
  }
  const KindStrategy* strategy = kind_strategy(r.group, r.kind);
  return strategy != nullptr && strategy->holds_deletion != nullptr &&
         strategy->holds_deletion(object);
}

// ShouldDeleteDuringUpdate: the object was marked for deletion with no grace period left (one
// under graceful deletion waits for its grace period to run out) and the update leaves nothing
// holding it.
bool deletes_during_update(const Resource& r, const json& current, const json& updated) {
  const json* marked = find_path(current, {"metadata", "deletionTimestamp"});
  const auto period = integer_at(current, {"metadata", "deletionGracePeriodSeconds"});
  return marked != nullptr && period.value_or(0) == 0 && !held(r, updated);
}

}  // namespace

errors::Result<Written> GenericStore::update(const Resource& r, UpdateRequest request) {
  const storage::Object& stored = *request.current;
  json& body = request.object;
  const std::string body_name = string_at(body, {"metadata", "name"});
  if (body_name != request.name) {
    return errors::bad_request("the name of the object (" + body_name +
                               ") does not match the name on the URL (" + request.name + ")");
  }
  json current = json::parse(stored.value);
  custom_defaults(r, current);  // as read back: defaults alone are no change
  const std::string rv = string_at(body, {"metadata", "resourceVersion"});
  if (!rv.empty() && rv != std::to_string(stored.mod_revision)) {
    return conflict(r, request.name);
  }
  json updated;
  if (request.subresource == "status") {
    updated = current;
    if (body.contains("status")) {
      updated["status"] = body["status"];
    } else {
      updated.erase("status");
    }
    const json* fields = find_path(body, {"metadata", "managedFields"});
    if (!request.own && fields != nullptr) {
      updated["metadata"]["managedFields"] = *fields;  // as apply recorded them
    }
  } else if (request.subresource == "approval") {
    // certificatesigningrequests/<name>/approval: the conditions alone change.
    updated = current;
    const json* conditions = find_path(body, {"status", "conditions"});
    if (conditions != nullptr && !conditions->is_null()) {
      updated["status"]["conditions"] = *conditions;
    } else if (updated.contains("status") && updated["status"].is_object()) {
      updated["status"].erase("conditions");
    }
  } else if (request.subresource == "finalize") {
    // namespaces/<name>/finalize: spec.finalizers alone changes, each a standard or a qualified
    // name (ValidateNamespaceFinalizeUpdate).
    updated = current;
    const json* list = find_path(body, {"spec", "finalizers"});
    json finalizers = list != nullptr && list->is_array() ? *list : json::array();
    std::vector<FieldError> problems;
    for (size_t i = 0; i < finalizers.size(); ++i) {
      rules::validate_finalizers(json::array({finalizers[i]}),
                                 "spec.finalizers[" + std::to_string(i) + "]", true, problems);
    }
    if (!problems.empty()) {
      return invalid(r, request.name, problems);
    }
    if (!updated["spec"].is_object()) {
      updated["spec"] = json::object();
    }
    updated["spec"]["finalizers"] = std::move(finalizers);
  } else {
    updated = std::move(body);
    if (request.admission.mutate) {
      // Mutating admission sees the object as the request sent it (decoded, defaulted), with what
      // it replaces; the server's own fields and the new generation come after.
      default_object(r, updated, DefaultingPhase::Update);
      if (auto refused = request.admission.mutate(&current, updated)) {
        return *refused;
      }
      if (!updated.is_object() || !updated["metadata"].is_object()) {
        return errors::internal_error("admission left no object metadata");
      }
      prepare_main_update(r, request.namespace_, current, updated, "defaults after admission");
    } else {
      prepare_main_update(r, request.namespace_, current, updated, "defaults");
    }
    if (request.admit) {
      if (auto refused = request.admit(&current, updated)) {
        return *refused;
      }
    }
  }
  if (request.subresource == "status" || request.subresource == "approval") {
    const KindStrategy* strategy = kind_strategy(r.group, r.kind);
    if (strategy != nullptr && strategy->prepare_for_subresource_update != nullptr) {
      default_object(r, updated, DefaultingPhase::Update);
      strategy->prepare_for_subresource_update(request.subresource, updated, current,
                                               rfc3339(clock_.system_now()));
      if (request.admit) {
        if (auto refused = request.admit(&current, updated)) {
          return *refused;
        }
      }
    }
  }
  if (request.admission.mutate && !request.subresource.empty()) {
    // Through a subresource, the chain sees the object the subresource's write makes.
    if (auto refused = request.admission.mutate(&current, updated)) {
      return *refused;
    }
    if (!updated.is_object() || !updated["metadata"].is_object()) {
      return errors::internal_error("admission left no object metadata");
    }
  }
  if (auto refused = custom_type_meta_refusal(r, updated)) {
    return *refused;
  }
  drop_empty_metadata(updated);
  if (auto errors = validation_errors(r, updated, &current); !errors.empty()) {
    return invalid(r, request.name, errors);
  }
  if (request.admission.validate) {
    if (auto refused = request.admission.validate(&current, updated)) {
      return *refused;
    }
  }
  if (request.own) {
    updated = request.own(&current, updated);
  }
  updated["metadata"].erase("resourceVersion");  // the store revision; compared without it
  if (only_managed_field_times_differ(updated, current)) {
    // As upstream: a write that changes nothing but the time of a managedFields entry (e.g. the
    // same apply again) is a no-op, not a new revision.
    updated["metadata"]["managedFields"] = current["metadata"]["managedFields"];
  }
  if (updated == current) {
    Written same;  // unchanged
    same.stored = stored.value;
    same.revision = stored.mod_revision;
    return same;
  }
  if (request.dry_run) {
    updated["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
    Written would_be;
    would_be.object = std::move(updated);
    return would_be;
  }
  WriteHooks* hooks = request.subresource.empty() ? hooks_for(r) : nullptr;
  if (hooks != nullptr) {
    if (auto errors = hooks->begin_update(current, updated); !errors.empty()) {
      return invalid(r, request.name, errors);
    }
  }
  const std::string key = r.storage_key(request.namespace_, request.name);
  Written written;
  if (deletes_during_update(r, current, updated)) {
    // The last finalizer of an object being deleted is gone: so is the object.
    if (auto e = storage_.remove(key, stored.mod_revision, written.revision)) {
      return from_storage(r, request.name, e);
    }
    if (WriteHooks* owner = hooks_for(r)) {
      owner->after_delete(updated);
    }
    updated["metadata"]["resourceVersion"] = std::to_string(written.revision);
    written.object = std::move(updated);
    return written;
  }
  written.stored = stored_text(updated);
  if (auto e = storage_.update(key, written.stored, stored.mod_revision, written.revision)) {
    if (e.kind == storage::ErrorKind::Conflict && request.raced != nullptr) {
      *request.raced = true;
    }
    return from_storage(r, request.name, e);
  }
  return written;
}

}  // namespace apiserver::registry
