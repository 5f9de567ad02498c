#include "conversion/stored_lookups.h"

#include "registry/stored_objects.h"

namespace apiserver::conversion {

webhook::Lookups stored_lookups(const std::shared_ptr<registry::Registry>& registry,
                                storage::Storage& storage) {
  registry::Registry* rows = registry.get();
  return {[rows, &storage](const std::string& group, const std::string& resource,
                           const std::string& ns, const std::string& name) {
            return registry::stored_object(*rows->snapshot(), storage, group, resource, ns, name);
          },
          [rows, &storage](const std::string& group, const std::string& resource,
                           const std::string& ns) {
            std::vector<nlohmann::json> out;
            for (const auto& item :
                 registry::stored_objects(*rows->snapshot(), storage, group, resource, ns)) {
              nlohmann::json object = nlohmann::json::parse(item.value, nullptr, false);
              if (object.is_object()) {
                out.push_back(std::move(object));
              }
            }
            return out;
          }};
}

}  // namespace apiserver::conversion
