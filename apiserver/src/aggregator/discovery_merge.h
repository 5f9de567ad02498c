// The extension API servers' groups merged into the server's own discovery documents, as
// kube-aggregator serves /apis: the legacy APIGroupList and the aggregated
// APIGroupDiscoveryList (apidiscovery.k8s.io/v2). The local groups stay as the server lists
// them; each extension group goes before the first local group of lower priority (upstream's
// order, order_groups()). Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregator/apiservice.h"

namespace apiserver::aggregator {

// What discovery knows of one extension group: its APIServices (service-backed), and per
// version the extension's APIResourceList when it was fetched, with whether that is stale
// (the last fetch failed).
struct ExtensionGroup {
  std::vector<ApiService> services;
  std::map<std::string, nlohmann::json> resource_lists;  // by version
  std::map<std::string, bool> stale;                     // by version
};

// metav1.APIGroup of an extension group: versions most preferred first (order_groups()).
nlohmann::ordered_json api_group(const std::string& group, const ExtensionGroup& extension);

// Inserts the extension groups into `list` (an APIGroupList, or an APIGroupDiscoveryList when
// `aggregated`). `local` are every local APIService (they give the local groups' priorities;
// a local group without one keeps its place). Extension groups whose name a local group has
// are left out. Aggregated items name only the versions whose resource list is known, with
// freshness "Stale" for a stale one; a group with none is left out.
void merge_groups(nlohmann::ordered_json& list, bool aggregated,
                  const std::vector<ApiService>& local,
                  const std::map<std::string, ExtensionGroup>& extensions);

// An APIResourceList's resources as one aggregated version entry's `resources`
// (apidiscovery.k8s.io/v2 APIResourceDiscovery): "x/y" entries become subresources of "x".
nlohmann::ordered_json aggregated_resources(const nlohmann::json& resource_list);

}  // namespace apiserver::aggregator
