// The generic store's create: the object's namespace, the metadata the server owns, a name from
// generateName (tried again when taken), defaults, validation, field ownership, then the store.
#include "registry/generic/store.h"

#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"
#include "registry/kind_strategy.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

constexpr int kGenerateNameAttempts = 8;

}  // namespace

errors::Result<Written> GenericStore::create(const Resource& r, CreateRequest request) {
  json& object = request.object;
  json& meta = object["metadata"];
  std::string ns = request.namespace_;
  if (r.namespaced) {
    std::string body_ns = string_at(meta, {"namespace"});
    if (!body_ns.empty() && !ns.empty() && body_ns != ns) {
      return errors::bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    if (ns.empty()) {
      ns = body_ns;
    }
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  if (auto refused = custom_type_meta_refusal(r, object)) {
    return *refused;
  }
  // The object as decoded (its decode-time defaults set) goes through mutating admission
  // before the server fills in what it owns.
  default_object(r, object, DefaultingPhase::Decode);
  if (request.admission.mutate) {
    if (auto refused = request.admission.mutate(nullptr, object)) {
      return *refused;
    }
    if (!object.is_object() || !object["metadata"].is_object()) {
      return errors::internal_error("admission left no object metadata");
    }
  }
  json& meta_after = object["metadata"];
  if (r.namespaced) {
    meta_after["namespace"] = ns;
  }
  const std::string name = string_at(meta_after, {"name"});
  const std::string generate = string_at(meta_after, {"generateName"});

  meta_after["uid"] = new_uid();
  meta_after["creationTimestamp"] = rfc3339(clock_.system_now());
  meta_after.erase("resourceVersion");
  meta_after.erase("deletionTimestamp");
  meta_after.erase("deletionGracePeriodSeconds");
  if (tracks_generation(r.group, r.resource) || r.custom) {
    meta_after["generation"] = 1;
  } else {
    meta_after.erase("generation");
  }
  if (has_status_subresource(r)) {
    const KindStrategy* strategy = kind_strategy(r.group, r.kind);
    if (strategy == nullptr || !strategy->keeps_status_on_create) {
      object.erase("status");  // status is the controllers' to write, through /status
    }
  }
  const bool generated = name.empty() && !generate.empty();
  if (generated) {
    meta_after["name"] = generate + random_name_suffix();
  }
  default_object(r, object, DefaultingPhase::Create, "prepare for create");
  if (request.admit) {
    if (auto refused = request.admit(nullptr, object)) {
      return *refused;
    }
  }
  drop_empty_metadata(object);
  if (auto errors = validation_errors(r, object, nullptr); !errors.empty()) {
    return invalid(r, string_at(object, {"metadata", "name"}), errors);
  }
  if (request.admission.validate) {
    if (auto refused = request.admission.validate(nullptr, object)) {
      return *refused;
    }
  }
  if (request.own) {
    object = request.own(nullptr, object);
  }
  WriteHooks* hooks = hooks_for(r);
  if (hooks != nullptr) {
    if (auto errors = hooks->begin_create(object); !errors.empty()) {
      return invalid(r, string_at(object, {"metadata", "name"}), errors);
    }
  }
  if (request.dry_run) {
    // Everything ran but nothing is kept: what the hooks took goes back, no revision is taken.
    if (hooks != nullptr) {
      hooks->abort_create(object);
    }
    Written would_be;
    would_be.object = std::move(object);
    return would_be;
  }
  json& named = object["metadata"];
  for (int attempt = 0; attempt < kGenerateNameAttempts; ++attempt) {
    if (generated && attempt > 0) {
      named["name"] = generate + random_name_suffix();
    }
    const std::string final_name = string_at(named, {"name"});
    Written written;
    written.stored = stored_text(object);
    auto e = storage_.create(r.storage_key(ns, final_name), written.stored, written.revision);
    if (!e) {
      return written;
    }
    if (e.kind == storage::ErrorKind::AlreadyExists && generated) {
      continue;  // another name from generateName
    }
    if (hooks != nullptr) {
      hooks->abort_create(object);
    }
    return from_storage(r, final_name, e);
  }
  if (hooks != nullptr) {
    hooks->abort_create(object);
  }
  const std::string last = string_at(named, {"name"});
  return errors::failure(
      409, "AlreadyExists",
      r.group_resource() + " \"" + last +
          "\" already exists, the server was not able to generate a unique name for the object",
      errors::object_details(last, r.group, r.resource));
}

}  // namespace apiserver::registry
