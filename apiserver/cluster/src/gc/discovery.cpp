#include "gc/discovery.h"

#include <algorithm>
#include <cctype>

#include "client/objects.h"

namespace cluster::gc {
namespace {

bool has_verb(const json& resource, const char* verb) {
  const json* verbs = at(resource, {"verbs"});
  return verbs != nullptr && verbs->is_array() &&
         std::find(verbs->begin(), verbs->end(), verb) != verbs->end();
}

}  // namespace

void Discovery::add(const json& resource_list, bool preferred) {
  const std::string group_version = string_at(resource_list, {"groupVersion"});
  const size_t slash = group_version.find('/');
  const std::string group = slash == std::string::npos ? "" : group_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? group_version : group_version.substr(slash + 1);
  const json* resources = at(resource_list, {"resources"});
  if (resources == nullptr || !resources->is_array()) {
    return;
  }
  for (const json& r : *resources) {
    const std::string name = string_at(r, {"name"});
    if (name.empty() || name.find('/') != std::string::npos) {
      continue;
    }
    ResourceRef ref{group, version, name, bool_at(r, {"namespaced"}, false)};
    // As upstream's REST mapper, the kind resolves as written and all lower case.
    std::string kind = string_at(r, {"kind"});
    by_kind.emplace(group_version + " " + kind, ref);
    std::transform(kind.begin(), kind.end(), kind.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    by_kind.emplace(group_version + " " + kind, ref);
    // Events are left out, as upstream's default ignored resources.
    const bool ignored = name == "events" && (group.empty() || group == "events.k8s.io");
    if (preferred && !ignored && has_verb(r, "list") && has_verb(r, "watch") &&
        has_verb(r, "delete")) {
      watched.push_back(std::move(ref));
    }
  }
}

std::optional<ResourceRef> Discovery::resource_for(const std::string& api_version,
                                                   const std::string& kind) const {
  auto it = by_kind.find(api_version + " " + kind);
  if (it == by_kind.end()) {
    return std::nullopt;
  }
  return it->second;
}

common::Result<Discovery> discover(const Client& client) {
  using Out = common::Result<Discovery>;
  Discovery d;
  auto fetch = [&](const std::string& path, bool preferred) -> std::optional<std::string> {
    auto list = client.get(path);
    if (!list) {
      return "GET " + path + ": " + list.error().message;
    }
    d.add(*list, preferred);
    return std::nullopt;
  };
  auto core = client.get("/api");
  if (!core) {
    return Out::failure("GET /api: " + core.error().message);
  }
  if (const json* versions = at(*core, {"versions"}); versions != nullptr && versions->is_array()) {
    for (const json& v : *versions) {
      if (v.is_string()) {
        if (auto failed = fetch("/api/" + v.get<std::string>(), v == versions->front())) {
          return Out::failure(*failed);
        }
      }
    }
  }
  auto groups = client.get("/apis");
  if (!groups) {
    return Out::failure("GET /apis: " + groups.error().message);
  }
  const json* list = at(*groups, {"groups"});
  if (list == nullptr || !list->is_array()) {
    return d;
  }
  for (const json& group : *list) {
    const std::string preferred = string_at(group, {"preferredVersion", "groupVersion"});
    const json* versions = at(group, {"versions"});
    if (versions == nullptr || !versions->is_array()) {
      continue;
    }
    for (const json& v : *versions) {
      const std::string gv = string_at(v, {"groupVersion"});
      if (gv.empty()) {
        continue;
      }
      if (fetch("/apis/" + gv, gv == preferred)) {
        d.failed.push_back(gv);
      }
    }
  }
  return d;
}

std::string resource_key(const ResourceRef& resource) {
  return resource.api_version() + "/" + resource.resource;
}

}  // namespace cluster::gc
