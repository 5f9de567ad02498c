#include "aggregator/discovery_merge.h"

#include <set>

#include "registry/json_access.h"

namespace apiserver::aggregator {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using registry::string_at;
using registry::value_at;

ordered_json group_version(const std::string& group, const std::string& version) {
  return {{"groupVersion", group + "/" + version}, {"version", version}};
}

std::vector<std::string> versions_of(const std::string& group, const ExtensionGroup& e) {
  for (const auto& order : order_groups(e.services)) {
    if (order.group == group) {
      return order.versions;
    }
  }
  return {};
}

ordered_json strings(const json& j) {
  ordered_json out = ordered_json::array();
  if (j.is_array()) {
    for (const auto& v : j) {
      if (v.is_string()) {
        out.push_back(v.get<std::string>());
      }
    }
  }
  return out;
}

ordered_json aggregated_group(const std::string& group, const ExtensionGroup& e) {
  ordered_json versions = ordered_json::array();
  for (const auto& v : versions_of(group, e)) {
    auto list = e.resource_lists.find(v);
    if (list == e.resource_lists.end()) {
      continue;
    }
    ordered_json entry = {{"version", v}};
    ordered_json resources = aggregated_resources(list->second);
    if (!resources.empty()) {
      entry["resources"] = std::move(resources);
    }
    auto stale = e.stale.find(v);
    entry["freshness"] = stale != e.stale.end() && stale->second ? "Stale" : "Current";
    versions.push_back(std::move(entry));
  }
  if (versions.empty()) {
    return nullptr;
  }
  return {{"metadata", {{"name", group}, {"creationTimestamp", nullptr}}},
          {"versions", std::move(versions)}};
}

}  // namespace

ordered_json api_group(const std::string& group, const ExtensionGroup& extension) {
  ordered_json versions = ordered_json::array();
  auto names = versions_of(group, extension);
  for (const auto& v : names) {
    versions.push_back(group_version(group, v));
  }
  ordered_json out = {{"name", group}, {"versions", std::move(versions)}};
  if (!names.empty()) {
    out["preferredVersion"] = group_version(group, names.front());
  }
  return out;
}

void merge_groups(ordered_json& list, bool aggregated, const std::vector<ApiService>& local,
                  const std::map<std::string, ExtensionGroup>& extensions) {
  const char* key = aggregated ? "items" : "groups";
  if (!list.is_object() || !list.contains(key) || !list[key].is_array()) {
    return;
  }
  ordered_json& groups = list[key];
  auto name_of = [aggregated](const ordered_json& g) {
    const ordered_json& named = aggregated && g.contains("metadata") ? g["metadata"] : g;
    return named.is_object() && named.contains("name") && named["name"].is_string()
               ? named["name"].get<std::string>()
               : std::string();
  };
  std::set<std::string> present;
  for (const auto& g : groups) {
    present.insert(name_of(g));
  }
  // Every APIService, local and extension, in upstream's order: a group's rank is its place.
  std::vector<ApiService> all = local;
  for (const auto& [group, e] : extensions) {
    if (present.count(group) == 0) {
      all.insert(all.end(), e.services.begin(), e.services.end());
    }
  }
  std::map<std::string, size_t> rank;
  for (const auto& order : order_groups(all)) {
    rank.emplace(order.group, rank.size());
  }
  for (const auto& [group, e] : extensions) {
    if (present.count(group) != 0) {
      continue;
    }
    ordered_json entry = aggregated ? aggregated_group(group, e) : api_group(group, e);
    if (entry.is_null()) {
      continue;
    }
    const size_t mine = rank[group];
    auto at = groups.end();
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      auto other = rank.find(name_of(*it));
      if (other != rank.end() && other->second > mine) {
        at = it;
        break;
      }
    }
    groups.insert(at, std::move(entry));
    present.insert(group);
  }
}

ordered_json aggregated_resources(const json& resource_list) {
  ordered_json out = ordered_json::array();
  const json& resources = value_at(resource_list, {"resources"});
  if (!resources.is_array()) {
    return out;
  }
  std::map<std::string, size_t> index;
  for (const json& r : resources) {
    const std::string name = string_at(r, {"name"});
    if (name.empty() || name.find('/') != std::string::npos) {
      continue;
    }
    ordered_json entry = {{"resource", name},
                          {"responseKind",
                           {{"group", string_at(r, {"group"})},
                            {"version", string_at(r, {"version"})},
                            {"kind", string_at(r, {"kind"})}}},
                          {"scope", value_at(r, {"namespaced"}).is_boolean() &&
                                            value_at(r, {"namespaced"}).get<bool>()
                                        ? "Namespaced"
                                        : "Cluster"},
                          {"singularResource", string_at(r, {"singularName"})},
                          {"verbs", strings(value_at(r, {"verbs"}))}};
    if (value_at(r, {"shortNames"}).is_array() && !value_at(r, {"shortNames"}).empty()) {
      entry["shortNames"] = strings(value_at(r, {"shortNames"}));
    }
    if (value_at(r, {"categories"}).is_array() && !value_at(r, {"categories"}).empty()) {
      entry["categories"] = strings(value_at(r, {"categories"}));
    }
    index[name] = out.size();
    out.push_back(std::move(entry));
  }
  for (const json& r : resources) {
    const std::string name = string_at(r, {"name"});
    const auto slash = name.find('/');
    if (slash == std::string::npos) {
      continue;
    }
    auto parent = index.find(name.substr(0, slash));
    if (parent == index.end()) {
      continue;
    }
    ordered_json& entry = out[parent->second];
    if (!entry.contains("subresources")) {
      entry["subresources"] = ordered_json::array();
    }
    entry["subresources"].push_back({{"subresource", name.substr(slash + 1)},
                                     {"responseKind",
                                      {{"group", string_at(r, {"group"})},
                                       {"version", string_at(r, {"version"})},
                                       {"kind", string_at(r, {"kind"})}}},
                                     {"verbs", strings(value_at(r, {"verbs"}))}});
  }
  return out;
}

}  // namespace apiserver::aggregator
