#include "admission/plugin.h"

namespace apiserver::admission {
std::optional<nlohmann::json> Services::get(const std::string& group, const std::string& resource,
                                            const std::string& ns, const std::string& name) const {
  auto snapshot = this->snapshot();  // keeps the row alive while it is used
  std::string key;
  for (const auto& r : snapshot->resources()) {
    if (r.group == group && r.resource == resource && !r.etcd_prefix.empty()) {
      key = r.storage_key(ns, name);
      break;
    }
  }
  if (key.empty()) {
    return std::nullopt;
  }
  storage::Object stored;
  if (storage.get(key, stored)) {
    return std::nullopt;
  }
  nlohmann::json object = nlohmann::json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    return std::nullopt;
  }
  return object;
}

std::vector<storage::Object> Services::list_stored(const std::string& group,
                                                   const std::string& resource,
                                                   const std::string& ns) const {
  auto snapshot = this->snapshot();
  std::string prefix;
  for (const auto& r : snapshot->resources()) {
    if (r.group == group && r.resource == resource && !r.etcd_prefix.empty()) {
      prefix = r.etcd_prefix + "/";
      if (r.namespaced && !ns.empty()) {
        prefix += ns + "/";
      }
      break;
    }
  }
  storage::ListResult result;
  if (prefix.empty() || storage.list(prefix, "", 0, 0, result)) {
    return {};
  }
  return std::move(result.items);
}

std::vector<nlohmann::json> Services::list(const std::string& group, const std::string& resource,
                                           const std::string& ns) const {
  std::vector<nlohmann::json> out;
  for (const auto& item : list_stored(group, resource, ns)) {
    nlohmann::json object = nlohmann::json::parse(item.value, nullptr, false);
    if (object.is_object()) {
      out.push_back(std::move(object));
    }
  }
  return out;
}

}  // namespace apiserver::admission
