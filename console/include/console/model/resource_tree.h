// The console's left-hand tree of resource kinds, built from aggregated discovery: the
// apidiscovery.k8s.io/v2 APIGroupDiscoveryList documents served at /api (the core group) and
// /apis (every other group) for Accept
// "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList".
//
// Layout: the core group (shown as "core") first, then groups alphabetically; inside a group,
// resources alphabetically. Subresources (pods/log, deployments/scale) are not listed. Each
// resource is listed once, at the most preferred version that serves it (a group's versions come
// in preference order), as kubectl api-resources does. Favourites, a set of "group/resource" keys
// ("core/pods", "apps/deployments") the caller persists, are pinned above the groups.
//
// Discovery changes while the console runs (CRDs come and go), so rebuild() keeps what the user
// set by key: the selection if the resource still exists, favourites and counts always (a
// favourite whose CRD returns is pinned again).
//
// Pure state, not thread-safe: the UI thread owns it.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace console::model {

struct ApiResource {
  std::string group;     // "" for core
  std::string version;   // the most preferred version serving it
  std::string resource;  // plural: "deployments"
  std::string kind;      // "Deployment"
  std::string singular;  // "deployment"
  bool namespaced = false;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::optional<size_t> count;  // live object count, when the caller has set one

  // "core/pods", "apps/deployments": the key of favourites, counts and selection.
  std::string key() const;
  bool has_verb(std::string_view verb) const;
};

struct ApiGroup {
  std::string name;               // "" for core
  std::string display_name;       // "core" for the core group, else the name
  std::string preferred_version;  // the first version served
  bool stale = false;             // an aggregated API server that did not answer discovery
  std::vector<ApiResource> resources;
};

class ResourceTree {
 public:
  // Rebuilds from the /api and /apis documents. Returns an error message naming the field and
  // changes nothing when either is malformed.
  std::optional<std::string> rebuild(const nlohmann::json& core, const nlohmann::json& groups);

  const std::vector<ApiGroup>& groups() const { return groups_; }
  // Null when absent. Valid until the next rebuild().
  const ApiResource* find(std::string_view group, std::string_view resource) const;

  // The pinned resources: favourites present in discovery, in tree order. Valid until the next
  // rebuild() or favourites change.
  const std::vector<const ApiResource*>& favourites() const { return pinned_; }
  // Every favourite key, present in discovery or not: what the caller persists.
  const std::set<std::string, std::less<>>& favourite_keys() const { return favourite_keys_; }
  void set_favourites(std::set<std::string, std::less<>> keys);
  void set_favourite(const ApiResource& resource, bool favourite);
  bool is_favourite(const ApiResource& resource) const;

  // Live counts, kept by key across rebuilds.
  void set_count(std::string_view group, std::string_view resource, size_t count);

  // Returns false (selection unchanged) when there is no such resource.
  bool select(std::string_view group, std::string_view resource);
  void clear_selection();
  // Null when nothing is selected. Valid until the next rebuild().
  const ApiResource* selected() const;

 private:
  ApiResource* find_mutable(std::string_view group, std::string_view resource);
  void repin();

  std::vector<ApiGroup> groups_;
  std::set<std::string, std::less<>> favourite_keys_;
  std::vector<const ApiResource*> pinned_;
  std::map<std::string, size_t, std::less<>> counts_;
  std::optional<std::pair<std::string, std::string>> selected_;  // (group, resource)
};

}  // namespace console::model
