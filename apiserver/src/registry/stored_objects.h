// Reading stored objects of a resource by group and resource name (any served version's row
// gives the key), for code that looks up cluster objects without a request: admission plugins,
// webhook resolution (Services, Endpoints).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "storage/storage.h"

namespace apiserver::registry {

// The object, or nullopt when it is not stored (or the resource is not served).
std::optional<nlohmann::json> stored_object(const Snapshot& snapshot, storage::Storage& storage,
                                            const std::string& group, const std::string& resource,
                                            const std::string& ns, const std::string& name);
// Every object of the resource in `ns` ("": all), as stored.
std::vector<storage::Object> stored_objects(const Snapshot& snapshot, storage::Storage& storage,
                                            const std::string& group, const std::string& resource,
                                            const std::string& ns);

}  // namespace apiserver::registry
