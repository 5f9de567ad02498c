// What the garbage collector learns from the API's discovery documents, as upstream's
// ServerPreferredResources: the resources whose objects can have owners (every resource of a
// group's preferred version that supports list, watch and delete, without subresources, less
// events), and how to reach an owner named by apiVersion and kind (every served version).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/api_client.h"

namespace cluster::gc {

using nlohmann::json;

struct Discovery {
  std::vector<ResourceRef> watched;
  std::map<std::string, ResourceRef> by_kind;  // "apps/v1 ReplicaSet" -> replicasets
  // Group versions whose resource list could not be read this time (the resources seen before
  // in them stay watched).
  std::vector<std::string> failed;

  // Adds one APIResourceList (GET /api/v1, /apis/GROUP/VERSION); `preferred` when its version is
  // the group's preferred one.
  void add(const json& resource_list, bool preferred);
  std::optional<ResourceRef> resource_for(const std::string& api_version,
                                          const std::string& kind) const;
};

// Reads /api, /apis and each group version's resource list. An error (naming the document)
// when /api, /api/v1 or /apis fails; a group version that fails goes to `failed`.
common::Result<Discovery> discover(const Client& client);

// "apps/v1/replicasets": a resource's identity across discoveries.
std::string resource_key(const ResourceRef& resource);

}  // namespace cluster::gc
