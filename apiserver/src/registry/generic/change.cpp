// The generic store's change: the object as stored, changed by the caller's rule and written back
// with compare-and-swap, as upstream's storage GuaranteedUpdate does for registries that write
// past the strategy (the pod binding).
#include "registry/generic/resource_errors.h"
#include "registry/generic/store.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

// Writes that raced another are made again on a fresh read; upstream retries without bound.
constexpr int kAttempts = 16;

// The storage layer's precondition check (storage.Preconditions.Check), whose invalid-object
// error the registry answers as a 409 Conflict on the resource.
std::optional<errors::Status> failed_precondition(const Resource& r, const std::string& key,
                                                  const ChangeRequest& request,
                                                  const json& metadata) {
  std::string why;
  const std::string uid = string_at(metadata, {"uid"});
  const std::string revision = string_at(metadata, {"resourceVersion"});
  if (request.precondition_uid && *request.precondition_uid != uid) {
    why = "Precondition failed: UID in precondition: " + *request.precondition_uid +
          ", UID in object meta: " + uid;
  } else if (request.precondition_resource_version &&
             *request.precondition_resource_version != revision) {
    why = "Precondition failed: ResourceVersion in precondition: " +
          *request.precondition_resource_version + ", ResourceVersion in object meta: " + revision;
  } else {
    return std::nullopt;
  }
  return errors::failure(409, "Conflict",
                         "Operation cannot be fulfilled on " + r.group_resource() + " \"" +
                             request.name + "\": StorageError: invalid object, Code: 4, Key: " +
                             key + ", ResourceVersion: 0, AdditionalErrorMsg: " + why,
                         errors::object_details(request.name, r.group, r.resource));
}

}  // namespace

errors::Result<Written> GenericStore::change(const Resource& r, const ChangeRequest& request) {
  const std::string key = r.storage_key(request.namespace_, request.name);
  for (int attempt = 1;; ++attempt) {
    storage::Object stored;
    if (auto e = storage_.get(key, stored)) {
      return from_storage(r, request.name, e);
    }
    json object = stored_object(stored);
    object["metadata"]["resourceVersion"] = std::to_string(stored.mod_revision);
    if (auto failed = failed_precondition(r, key, request, object["metadata"])) {
      return *failed;
    }
    const json before = object;
    if (auto refused = request.change(object)) {
      return *refused;
    }
    Written written;
    if (object == before) {
      written.stored = stored.value;  // nothing to write, as upstream skips an equal update
      written.revision = stored.mod_revision;
      return written;
    }
    if (request.dry_run) {
      written.object = std::move(object);
      return written;
    }
    written.stored = stored_text(object);
    auto e = storage_.update(key, written.stored, stored.mod_revision, written.revision);
    if (!e) {
      return written;
    }
    if (e.kind != storage::ErrorKind::Conflict || attempt == kAttempts) {
      return from_storage(r, request.name, e);
    }
  }
}

}  // namespace apiserver::registry
