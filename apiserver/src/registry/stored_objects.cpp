#include "registry/stored_objects.h"

namespace apiserver::registry {
namespace {

const Resource* row_of(const Snapshot& snapshot, const std::string& group,
                       const std::string& resource) {
  for (const auto& r : snapshot.resources()) {
    if (r.group == group && r.resource == resource && !r.etcd_prefix.empty()) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<nlohmann::json> stored_object(const Snapshot& snapshot, storage::Storage& storage,
                                            const std::string& group, const std::string& resource,
                                            const std::string& ns, const std::string& name) {
  const Resource* r = row_of(snapshot, group, resource);
  storage::Object stored;
  if (r == nullptr || storage.get(r->storage_key(ns, name), stored)) {
    return std::nullopt;
  }
  nlohmann::json object = nlohmann::json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    return std::nullopt;
  }
  return object;
}

std::vector<storage::Object> stored_objects(const Snapshot& snapshot, storage::Storage& storage,
                                            const std::string& group, const std::string& resource,
                                            const std::string& ns) {
  const Resource* r = row_of(snapshot, group, resource);
  if (r == nullptr) {
    return {};
  }
  std::string prefix = r->etcd_prefix + "/";
  if (r->namespaced && !ns.empty()) {
    prefix += ns + "/";
  }
  storage::ListResult result;
  if (storage.list(prefix, "", 0, 0, result)) {
    return {};
  }
  return std::move(result.items);
}

}  // namespace apiserver::registry
