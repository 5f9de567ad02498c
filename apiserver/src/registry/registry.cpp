#include "apiserver/registry.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "apiserver/facts.h"
#include "registry/builtin_conversion.h"
#include "registry/version_priority.h"

namespace apiserver::registry {
namespace {

std::vector<std::string> strings(const nlohmann::json& array) {
  std::vector<std::string> out;
  if (array.is_array()) {
    for (const auto& v : array) {
      out.push_back(v.get<std::string>());
    }
  }
  return out;
}

std::vector<TableColumn> columns(const nlohmann::json& array) {
  std::vector<TableColumn> out;
  if (array.is_array()) {
    for (const auto& c : array) {
      out.push_back({c.at("name").get<std::string>(), c.at("type").get<std::string>(),
                     c.value("format", std::string()), c.value("priority", 0)});
    }
  }
  return out;
}

Resource row_from_facts(const nlohmann::json& r) {
  Resource res;
  res.group = r.at("group").get<std::string>();
  res.version = r.at("version").get<std::string>();
  res.resource = r.at("resource").get<std::string>();
  res.kind = r.at("kind").get<std::string>();
  res.singular = r.value("singular_name", std::string());
  res.namespaced = r.at("namespaced").get<bool>();
  res.verbs = strings(r.value("verbs", nlohmann::json::array()));
  res.short_names = strings(r.value("short_names", nlohmann::json::array()));
  res.categories = strings(r.value("categories", nlohmann::json::array()));
  if (r.contains("etcd_prefix") && r["etcd_prefix"].is_string()) {
    res.etcd_prefix = r["etcd_prefix"].get<std::string>();
  }
  res.table_columns = columns(r.value("table_columns", nlohmann::json()));
  res.stability = r.value("stability", std::string("ga"));
  if (const auto& fs = r.value("field_selectors", nlohmann::json()); fs.is_object()) {
    res.field_selectors.labels = strings(fs.value("labels", nlohmann::json::array()));
    res.field_selectors.error_style = fs.value("error_style", std::string("default"));
    if (auto aliases = fs.find("aliases"); aliases != fs.end() && aliases->is_object()) {
      for (auto it = aliases->begin(); it != aliases->end(); ++it) {
        res.field_selectors.aliases[it.key()] = it.value().get<std::string>();
      }
    }
  }
  const nlohmann::json subresources = r.value("subresources", nlohmann::json::array());
  for (const auto& s : subresources) {
    if (!s.value("default_enabled", true)) {
      continue;  // behind a feature gate that v1.32 leaves off
    }
    Subresource sub;
    sub.name = s.at("name").get<std::string>();
    sub.verbs = strings(s.value("verbs", nlohmann::json::array()));
    const auto& k = s.at("kind");
    sub.kind = {k.value("group", std::string()), k.value("version", std::string()),
                k.value("kind", std::string())};
    res.subresources.push_back(std::move(sub));
  }
  return res;
}

bool enabled(const std::string& group, const std::string& version, const std::string& stability,
             bool default_enabled, const RuntimeConfig& config) {
  bool on = default_enabled;
  std::string gv = group.empty() ? "api/" + version : group + "/" + version;
  for (const auto& [key, value] : config.entries) {
    if (key == "api/all" || (key == "api/beta" && stability == "beta") ||
        (key == "api/alpha" && stability == "alpha") || (key == "api/ga" && stability == "ga") ||
        key == gv || (group.empty() && key == version)) {
      on = value;
    }
  }
  return on;
}

}  // namespace

std::optional<GroupVersionKind> parse_group_version(const std::string& text) {
  GroupVersionKind gvk;
  const size_t slash = text.find('/');
  if (slash == std::string::npos) {
    gvk.version = text;
    return gvk;
  }
  if (text.find('/', slash + 1) != std::string::npos) {
    return std::nullopt;
  }
  gvk.group = text.substr(0, slash);
  gvk.version = text.substr(slash + 1);
  return gvk;
}

std::string Resource::group_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string Resource::group_resource() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string Resource::group_kind() const {
  return group.empty() ? kind : kind + "." + group;
}

bool Resource::has_verb(const std::string& verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

const Subresource* Resource::subresource(const std::string& name) const {
  for (const auto& s : subresources) {
    if (s.name == name) {
      return &s;
    }
  }
  return nullptr;
}

std::string Resource::storage_key(const std::string& ns, const std::string& name) const {
  return namespaced ? etcd_prefix + "/" + ns + "/" + name : etcd_prefix + "/" + name;
}

Snapshot::Snapshot(std::vector<Resource> resources, std::vector<GroupVersions> groups,
                   uint64_t generation)
    : resources_(std::move(resources)), groups_(std::move(groups)), generation_(generation) {
  for (size_t i = 0; i < resources_.size(); ++i) {
    const auto& r = resources_[i];
    index_[r.group + "/" + r.version + "/" + r.resource] = i;
  }
}

const Resource* Snapshot::find(const std::string& group, const std::string& version,
                               const std::string& resource) const {
  auto it = index_.find(group + "/" + version + "/" + resource);
  return it == index_.end() ? nullptr : &resources_[it->second];
}

std::vector<const Resource*> Snapshot::in_group_version(const std::string& group,
                                                        const std::string& version) const {
  std::vector<const Resource*> out;
  for (const auto& r : resources_) {
    if (r.group == group && r.version == version) {
      out.push_back(&r);
    }
  }
  return out;
}

common::Result<RuntimeConfig> RuntimeConfig::parse(const std::string& text) {
  RuntimeConfig config;
  std::stringstream in(text);
  std::string entry;
  while (std::getline(in, entry, ',')) {
    if (entry.empty()) {
      continue;
    }
    auto eq = entry.find('=');
    std::string key = entry.substr(0, eq);
    std::string value = eq == std::string::npos ? "true" : entry.substr(eq + 1);
    if (key.empty() || (value != "true" && value != "false")) {
      return "invalid --runtime-config entry \"" + entry +
             "\": want <group>/<version>=true|false or api/all|api/beta|api/alpha=true|false";
    }
    config.entries.emplace_back(key, value == "true");
  }
  return config;
}

std::shared_ptr<Registry> Registry::builtin(const RuntimeConfig& config) {
  auto facts = nlohmann::json::parse(facts::resources_json());
  std::shared_ptr<Registry> registry(new Registry());
  std::set<std::string> served;  // "group/version"
  for (const auto& g : facts.at("groups")) {
    GroupVersions gv;
    gv.name = g.at("name").get<std::string>();
    for (const auto& v : g.at("versions")) {
      std::string version = v.at("version").get<std::string>();
      if (enabled(gv.name, version, v.value("stability", std::string("ga")),
                  v.value("default_enabled", false), config)) {
        gv.versions.push_back(version);
        served.insert(gv.name + "/" + version);
      }
    }
    if (gv.versions.empty()) {
      continue;
    }
    std::string preferred = g.value("preferred_version", std::string());
    bool preferred_served =
        std::find(gv.versions.begin(), gv.versions.end(), preferred) != gv.versions.end();
    gv.preferred_version = preferred_served ? preferred : gv.versions.front();
    registry->group_order_.push_back(std::move(gv));
  }
  for (const auto& r : facts.at("resources")) {
    std::string key = r.at("group").get<std::string>() + "/" + r.at("version").get<std::string>();
    if (served.count(key) != 0) {
      registry->rows_.push_back(row_from_facts(r));
    }
  }
  // A kind served at several versions of its group is stored at one of them (served or not).
  for (auto& row : registry->rows_) {
    const std::string storage = builtin_storage_version(row.group, row.resource);
    if (storage.empty() || storage == row.version) {
      continue;
    }
    for (const auto& r : facts.at("resources")) {
      if (r.at("group") == row.group && r.at("version") == storage &&
          r.at("resource") == row.resource) {
        row.stored_as = std::make_shared<const Resource>(row_from_facts(r));
        break;
      }
    }
  }
  std::lock_guard lock(registry->mu_);
  registry->publish_locked();
  return registry;
}

std::shared_ptr<const Snapshot> Registry::snapshot() const {
  std::lock_guard lock(mu_);
  return snapshot_;
}

void Registry::upsert(Resource resource) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(rows_.begin(), rows_.end(), [&](const Resource& r) {
    return r.group == resource.group && r.version == resource.version &&
           r.resource == resource.resource;
  });
  auto group = std::find_if(group_order_.begin(), group_order_.end(),
                            [&](const GroupVersions& g) { return g.name == resource.group; });
  if (group == group_order_.end()) {
    group_order_.push_back({resource.group, {resource.version}, resource.version});
    added_groups_.insert(resource.group);
  } else if (std::find(group->versions.begin(), group->versions.end(), resource.version) ==
             group->versions.end()) {
    group->versions.push_back(resource.version);
    if (added_groups_.count(resource.group) != 0) {
      // A group of custom resources lists its versions by priority, the first preferred, as
      // kube-apiserver's discovery of CRD groups does.
      sort_by_version_priority(group->versions);
      group->preferred_version = group->versions.front();
    }
  }
  if (it == rows_.end()) {
    rows_.push_back(std::move(resource));
  } else {
    *it = std::move(resource);
  }
  publish_locked();
}

void Registry::remove(const std::string& group, const std::string& version,
                      const std::string& resource) {
  std::lock_guard lock(mu_);
  rows_.erase(std::remove_if(rows_.begin(), rows_.end(),
                             [&](const Resource& r) {
                               return r.group == group && r.version == version &&
                                      r.resource == resource;
                             }),
              rows_.end());
  // A group/version with no resource left is no longer served.
  for (auto& g : group_order_) {
    g.versions.erase(std::remove_if(g.versions.begin(), g.versions.end(),
                                    [&](const std::string& v) {
                                      return std::none_of(
                                          rows_.begin(), rows_.end(), [&](const Resource& r) {
                                            return r.group == g.name && r.version == v;
                                          });
                                    }),
                     g.versions.end());
    if (!g.versions.empty() &&
        std::find(g.versions.begin(), g.versions.end(), g.preferred_version) == g.versions.end()) {
      g.preferred_version = g.versions.front();
    }
  }
  for (const auto& g : group_order_) {
    if (g.versions.empty()) {
      added_groups_.erase(g.name);
    }
  }
  group_order_.erase(std::remove_if(group_order_.begin(), group_order_.end(),
                                    [](const GroupVersions& g) { return g.versions.empty(); }),
                     group_order_.end());
  publish_locked();
}

void Registry::publish_locked() {
  snapshot_ = std::make_shared<Snapshot>(rows_, group_order_, ++generation_);
}

}  // namespace apiserver::registry
