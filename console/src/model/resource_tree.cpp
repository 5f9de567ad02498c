#include "console/model/resource_tree.h"

#include <algorithm>

#include "model/json_fields.h"

namespace console::model {

namespace {

constexpr std::string_view kCoreName = "core";

std::string key_of(std::string_view group, std::string_view resource) {
  std::string key(group.empty() ? kCoreName : group);
  key += '/';
  key += resource;
  return key;
}


std::vector<std::string> strings(const nlohmann::json& array) {
  std::vector<std::string> out;
  if (array.is_array()) {
    for (const nlohmann::json& item : array) {
      if (item.is_string()) {
        out.push_back(item.get<std::string>());
      }
    }
  }
  return out;
}

// An array, or null/absent read as empty; nullptr when something else.
const nlohmann::json* array_or_empty(const nlohmann::json& value) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (value.is_null()) {
    return &kEmpty;
  }
  return value.is_array() ? &value : nullptr;
}

// Adds the groups of one APIGroupDiscoveryList to `out`. `where` names the document in errors.
std::optional<std::string> read_document(const nlohmann::json& document, const std::string& where,
                                         std::map<std::string, ApiGroup>& out) {
  const nlohmann::json* items = array_or_empty(field(document, "items"));
  if (!document.is_object() || items == nullptr) {
    return where + ": items is not an array";
  }
  for (size_t g = 0; g < items->size(); ++g) {
    const nlohmann::json& item = (*items)[g];
    const std::string at = where + ".items[" + std::to_string(g) + "]";
    const nlohmann::json* versions = array_or_empty(field(item, "versions"));
    if (versions == nullptr) {
      return at + ".versions is not an array";
    }
    const std::string name = string_field(field(item, "metadata"), "name");
    ApiGroup& group = out[name];
    group.name = name;
    group.display_name = name.empty() ? std::string(kCoreName) : name;
    for (size_t v = 0; v < versions->size(); ++v) {
      const nlohmann::json& served = (*versions)[v];
      const std::string version_at = at + ".versions[" + std::to_string(v) + "]";
      const std::string version = string_field(served, "version");
      if (version.empty()) {
        return version_at + ".version is missing";
      }
      const nlohmann::json* resources = array_or_empty(field(served, "resources"));
      if (resources == nullptr) {
        return version_at + ".resources is not an array";
      }
      if (group.preferred_version.empty()) {
        group.preferred_version = version;
        group.stale = string_field(served, "freshness") == "Stale";
      }
      for (size_t r = 0; r < resources->size(); ++r) {
        const nlohmann::json& entry = (*resources)[r];
        const std::string plural = string_field(entry, "resource");
        if (plural.empty()) {
          return version_at + ".resources[" + std::to_string(r) + "].resource is missing";
        }
        const bool listed = std::any_of(group.resources.begin(), group.resources.end(),
                                        [&](const ApiResource& e) { return e.resource == plural; });
        if (listed || plural.find('/') != std::string::npos) {
          continue;  // served at a more preferred version, or a subresource
        }
        ApiResource resource;
        resource.group = name;
        resource.version = version;
        resource.resource = plural;
        resource.kind = string_field(field(entry, "responseKind"), "kind");
        resource.singular = string_field(entry, "singularResource");
        resource.namespaced = string_field(entry, "scope") == "Namespaced";
        resource.verbs = strings(field(entry, "verbs"));
        resource.short_names = strings(field(entry, "shortNames"));
        group.resources.push_back(std::move(resource));
      }
    }
  }
  return std::nullopt;
}

// Shared by the const and mutable lookups: `Groups` is (const) std::vector<ApiGroup>.
template <class Groups>
auto find_in(Groups& groups, std::string_view group, std::string_view resource)
    -> decltype(&groups.front().resources.front()) {
  for (auto& g : groups) {
    if (g.name != group) {
      continue;
    }
    for (auto& r : g.resources) {
      if (r.resource == resource) {
        return &r;
      }
    }
  }
  return nullptr;
}

}  // namespace

std::string ApiResource::key() const {
  return key_of(group, resource);
}

bool ApiResource::has_verb(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

std::optional<std::string> ResourceTree::rebuild(const nlohmann::json& core,
                                                 const nlohmann::json& groups) {
  std::map<std::string, ApiGroup> by_name;  // "" (core) sorts first
  if (auto error = read_document(core, "/api", by_name)) {
    return error;
  }
  if (auto error = read_document(groups, "/apis", by_name)) {
    return error;
  }
  groups_.clear();
  for (auto& [name, group] : by_name) {
    std::sort(group.resources.begin(), group.resources.end(),
              [](const ApiResource& a, const ApiResource& b) { return a.resource < b.resource; });
    for (ApiResource& resource : group.resources) {
      const auto count = counts_.find(resource.key());
      if (count != counts_.end()) {
        resource.count = count->second;
      }
    }
    groups_.push_back(std::move(group));
  }
  if (selected_ && find(selected_->first, selected_->second) == nullptr) {
    selected_.reset();
  }
  repin();
  return std::nullopt;
}

ApiResource* ResourceTree::find_mutable(std::string_view group, std::string_view resource) {
  return find_in(groups_, group, resource);
}

const ApiResource* ResourceTree::find(std::string_view group, std::string_view resource) const {
  return find_in(groups_, group, resource);
}

void ResourceTree::repin() {
  pinned_.clear();
  for (const ApiGroup& group : groups_) {
    for (const ApiResource& resource : group.resources) {
      if (favourite_keys_.contains(resource.key())) {
        pinned_.push_back(&resource);
      }
    }
  }
}

void ResourceTree::set_favourites(std::set<std::string, std::less<>> keys) {
  favourite_keys_ = std::move(keys);
  repin();
}

void ResourceTree::set_favourite(const ApiResource& resource, bool favourite) {
  if (favourite) {
    favourite_keys_.insert(resource.key());
  } else {
    favourite_keys_.erase(resource.key());
  }
  repin();
}

bool ResourceTree::is_favourite(const ApiResource& resource) const {
  return favourite_keys_.contains(resource.key());
}

void ResourceTree::set_count(std::string_view group, std::string_view resource, size_t count) {
  counts_[key_of(group, resource)] = count;
  if (ApiResource* r = find_mutable(group, resource)) {
    r->count = count;
  }
}

bool ResourceTree::select(std::string_view group, std::string_view resource) {
  if (find(group, resource) == nullptr) {
    return false;
  }
  selected_.emplace(std::string(group), std::string(resource));
  return true;
}

void ResourceTree::clear_selection() {
  selected_.reset();
}

const ApiResource* ResourceTree::selected() const {
  return selected_ ? find(selected_->first, selected_->second) : nullptr;
}

}  // namespace console::model
