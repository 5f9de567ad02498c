#include "admission/plugin.h"
#include "registry/stored_objects.h"

namespace apiserver::admission {
std::optional<nlohmann::json> Services::get(const std::string& group, const std::string& resource,
                                            const std::string& ns, const std::string& name) const {
  auto snapshot = this->snapshot();  // keeps the row alive while it is used
  return registry::stored_object(*snapshot, storage, group, resource, ns, name);
}

std::vector<storage::Object> Services::list_stored(const std::string& group,
                                                   const std::string& resource,
                                                   const std::string& ns) const {
  auto snapshot = this->snapshot();
  return registry::stored_objects(*snapshot, storage, group, resource, ns);
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
