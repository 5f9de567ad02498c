// The registry: every served resource as a row of data. Routing, discovery, OpenAPI and the REST
// handlers are computed from the rows, so a new resource (a CRD, later) needs no new code and
// no restart. Built-in rows come from the committed v1.32 facts (apiserver/facts).
//
// Thread-safety: Registry is safe to use from any thread. Readers take a Snapshot (immutable,
// shared) and keep it for the whole request; add/remove publish a new snapshot.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"

namespace apiserver::registry {

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
};

// schema.ParseGroupVersion: "", "v1", "apps/v1"; more than one '/' is an error (nullopt). The
// kind is left empty.
std::optional<GroupVersionKind> parse_group_version(const std::string& text);

struct Subresource {
  std::string name;                // "status", "scale", "log", ...
  std::vector<std::string> verbs;  // discovery verbs
  GroupVersionKind kind;           // the kind it takes and returns
};

struct TableColumn {
  std::string name;
  std::string type;    // "string", "integer", "boolean", "number", "date"
  std::string format;  // "name" for the Name column, else usually empty
  int priority = 0;    // 0 = shown by default; 1 = only with -o wide
  // Custom resources: the column's JSONPath (additionalPrinterColumns[].jsonPath) and text.
  std::string json_path = {};
  std::string description = {};
};

struct FieldSelectors {
  std::vector<std::string> labels;             // accepted field labels
  std::map<std::string, std::string> aliases;  // e.g. spec.host -> spec.nodeName
  std::string error_style;                     // which upstream error text to use
};

// What a CustomResourceDefinition adds to the rows it serves (registry/custom_resources.h).
struct CustomResource;

struct Resource {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural, "deployments"
  std::string kind;      // "Deployment"
  std::string singular;  // "deployment"
  bool namespaced = false;
  std::vector<std::string>
      verbs;  // get, list, watch, create, update, patch, delete, deletecollection
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<Subresource> subresources;
  std::string etcd_prefix;                 // "/registry/deployments"; empty when never stored
  std::vector<TableColumn> table_columns;  // empty: the default Name / Created At table
  FieldSelectors field_selectors;
  std::string stability;  // "ga", "beta", "alpha"
  // Set on the rows of custom resources (served from a CRD): schema, scale paths, terminating.
  std::shared_ptr<const CustomResource> custom;
  // The row of the version objects are stored at, when that is another version of this group
  // (a CRD's storage version; autoscaling/v2 for autoscaling/v1 HorizontalPodAutoscalers). Null
  // when objects are stored as this row serves them.
  std::shared_ptr<const Resource> stored_as;

  std::string group_version() const;  // "apps/v1", or "v1" for the core group
  // How kube-apiserver's errors name the resource and the kind: "configmaps" and "ConfigMap" for
  // the core group, "deployments.apps" and "Deployment.apps" otherwise.
  std::string group_resource() const;
  std::string group_kind() const;
  bool has_verb(const std::string& verb) const;
  const Subresource* subresource(const std::string& name) const;
  // The storage key of an object: <etcd_prefix>/<namespace>/<name>, or <etcd_prefix>/<name>.
  std::string storage_key(const std::string& ns, const std::string& name) const;
};

struct GroupVersions {
  std::string name;                   // group name, "" for core
  std::vector<std::string> versions;  // served versions, most preferred first
  std::string preferred_version;
};

// An immutable view of what is served.
class Snapshot {
 public:
  Snapshot(std::vector<Resource> resources, std::vector<GroupVersions> groups, uint64_t generation);

  const std::vector<Resource>& resources() const { return resources_; }
  // Groups in discovery order (core first), each with its served versions.
  const std::vector<GroupVersions>& groups() const { return groups_; }
  const Resource* find(const std::string& group, const std::string& version,
                       const std::string& resource) const;
  // Resources of one group/version, in row order.
  std::vector<const Resource*> in_group_version(const std::string& group,
                                                const std::string& version) const;
  // Changes whenever the set of served resources changes (for ETags).
  uint64_t generation() const { return generation_; }

 private:
  std::vector<Resource> resources_;
  std::vector<GroupVersions> groups_;
  uint64_t generation_;
  std::map<std::string, size_t> index_;  // "group/version/resource" -> position
};

// Which group/versions to serve beyond the defaults, in kube-apiserver's --runtime-config
// spelling: "api/all=true", "<group>/<version>=true|false", "api/alpha=true", "api/beta=true".
struct RuntimeConfig {
  std::vector<std::pair<std::string, bool>> entries;
  // Parses "a=true,b/v1=false"; fails with a message naming a malformed entry.
  static common::Result<RuntimeConfig> parse(const std::string& text);
};

class Registry {
 public:
  // The built-in resources of v1.32 that the runtime config enables (by default: every GA
  // version). Fails only if the embedded facts are broken (a build defect).
  static std::shared_ptr<Registry> builtin(const RuntimeConfig& config = {});

  std::shared_ptr<const Snapshot> snapshot() const;

  // Adds or replaces a resource row (same group/version/resource); groups and versions follow.
  void upsert(Resource resource);
  void remove(const std::string& group, const std::string& version, const std::string& resource);

 private:
  Registry() = default;
  void publish_locked();

  mutable std::mutex mu_;  // protects rows_, group_order_, snapshot_, generation_
  std::vector<Resource> rows_;
  // Group order and version preference as discovery lists them.
  std::vector<GroupVersions> group_order_;
  // Groups that upsert added (custom resources' groups): their versions go by priority.
  std::set<std::string> added_groups_;
  std::shared_ptr<const Snapshot> snapshot_;
  uint64_t generation_ = 0;
};

}  // namespace apiserver::registry
