#include "endpoints/discovery.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "common/base64.h"
#include "endpoints/accept.h"
#include "endpoints/yaml_json.h"
#include "errors/status.h"

namespace apiserver::endpoints {
namespace {

using ordered_json = nlohmann::ordered_json;
using registry::Resource;
using registry::Snapshot;

constexpr const char* kDiscoveryGroup = "apidiscovery.k8s.io";
constexpr const char* kDiscoveryKind = "APIGroupDiscoveryList";

enum class Encoding { Json, Yaml };

// What the Accept header selected: an encoding, and for /api and /apis whether the aggregated
// document was asked for (its apidiscovery version, "v2" or "v2beta1"; empty = legacy shape).
struct Negotiated {
  Encoding encoding = Encoding::Json;
  std::string aggregated_version;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) {
      return out;
    }
    start = end + 1;
  }
}

// The encoding a media range selects among those served (JSON first, as the server lists them).
std::optional<Encoding> encoding_for(const MediaRange& range) {
  auto matches = [&](const char* subtype) {
    return (range.type == "application" && (range.subtype == subtype || range.subtype == "*")) ||
           (range.type == "*" && range.subtype == "*");
  };
  if (matches("json")) {
    return Encoding::Json;
  }
  if (matches("yaml")) {
    return Encoding::Yaml;
  }
  return std::nullopt;
}

// The target kind a media range asks for via g/v/as; nullopt when it names none.
std::optional<std::tuple<std::string, std::string, std::string>> conversion(
    const MediaRange& range) {
  if (range.params.count("g") == 0 && range.params.count("v") == 0 &&
      range.params.count("as") == 0) {
    return std::nullopt;
  }
  auto get = [&](const char* key) {
    auto it = range.params.find(key);
    return it == range.params.end() ? std::string() : it->second;
  };
  return std::tuple{get("g"), get("v"), get("as")};
}

// Content negotiation for a discovery endpoint. With `aggregatable` (/api, /apis) the first
// range that names the aggregated list in a served encoding wins; otherwise, as upstream, the
// first range without a g/v/as conversion picks the legacy shape. An empty header means JSON.
std::optional<Negotiated> negotiate(const std::string& accept, bool aggregatable) {
  if (accept.find_first_not_of(" \t") == std::string::npos) {
    return Negotiated{};
  }
  auto ranges = parse_accept(accept);
  if (aggregatable) {
    for (const auto& range : ranges) {
      auto encoding = encoding_for(range);
      auto target = conversion(range);
      if (!encoding || !target) {
        continue;
      }
      const auto& [group, version, kind] = *target;
      if (group == kDiscoveryGroup && kind == kDiscoveryKind &&
          (version == "v2" || version == "v2beta1")) {
        return Negotiated{*encoding, version};
      }
    }
  }
  for (const auto& range : ranges) {
    auto encoding = encoding_for(range);
    if (encoding && !conversion(range)) {
      return Negotiated{*encoding, ""};
    }
  }
  return std::nullopt;
}

// Upstream's ETag: uppercase hex of SHA-512 over the JSON of the list as it is cached (without
// kind and apiVersion), quoted.
std::string etag_of(const ordered_json& items) {
  ordered_json cached = {{"metadata", ordered_json::object()}, {"items", items}};
  std::string text = cached.dump();
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  hex.reserve(2 + 2 * sizeof digest);
  hex.push_back('"');
  char buf[3];
  for (unsigned char byte : digest) {
    std::snprintf(buf, sizeof buf, "%02X", byte);
    hex.append(buf, 2);
  }
  hex.push_back('"');
  return hex;
}

// The group/version/kind a resource is stored as. Rows that share a storage prefix are one
// stored resource served in several places (core and events.k8s.io events; autoscaling v1 and v2
// HPAs); it is stored as the row of the group listed first in discovery order (core first), in
// that group's preferred version, as kube-apiserver's storage factory does for the v1.32 set.
const Resource* storage_row(const Resource& resource, const Snapshot& snapshot) {
  const Resource* best = &resource;
  size_t best_rank = SIZE_MAX;
  const auto& groups = snapshot.groups();
  for (const auto& row : snapshot.resources()) {
    if (row.etcd_prefix != resource.etcd_prefix || row.kind != resource.kind) {
      continue;
    }
    auto group = std::find_if(groups.begin(), groups.end(), [&](const registry::GroupVersions& g) {
      return g.name == row.group;
    });
    if (group == groups.end()) {
      continue;
    }
    size_t rank = static_cast<size_t>(group - groups.begin()) * 2 +
                  (row.version == group->preferred_version ? 0 : 1);
    if (rank < best_rank) {
      best_rank = rank;
      best = &row;
    }
  }
  return best;
}

// Subresources carry their own group/version only when their kind lives elsewhere
// (deployments/scale -> autoscaling/v1 Scale, pods/eviction -> policy/v1 Eviction).
bool foreign_kind(const Resource& parent, const registry::Subresource& sub) {
  return sub.kind.group != parent.group || sub.kind.version != parent.version;
}

std::vector<const Resource*> sorted_by_name(std::vector<const Resource*> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const Resource* a, const Resource* b) { return a->resource < b->resource; });
  return rows;
}

std::vector<const registry::Subresource*> sorted_subresources(const Resource& r) {
  std::vector<const registry::Subresource*> subs;
  for (const auto& s : r.subresources) {
    subs.push_back(&s);
  }
  std::sort(subs.begin(), subs.end(),
            [](const registry::Subresource* a, const registry::Subresource* b) {
              return a->name < b->name;
            });
  return subs;
}

// metav1.APIResourceList of one group/version; upstream lists storage paths in sorted order, so
// "pods", "pods/attach", ..., "pods/status", "podtemplates".
ordered_json resource_list(const std::string& group, const std::string& version,
                           const Snapshot& snapshot) {
  std::vector<std::pair<std::string, ordered_json>> entries;
  for (const Resource* r : snapshot.in_group_version(group, version)) {
    ordered_json entry = {{"name", r->resource},
                          {"singularName", r->singular},
                          {"namespaced", r->namespaced},
                          {"kind", r->kind},
                          {"verbs", r->verbs}};
    if (!r->short_names.empty()) {
      entry["shortNames"] = r->short_names;
    }
    if (!r->categories.empty()) {
      entry["categories"] = r->categories;
    }
    if (!r->etcd_prefix.empty()) {
      const Resource* stored = storage_row(*r, snapshot);
      entry["storageVersionHash"] =
          storage_version_hash(stored->group, stored->version, stored->kind);
    }
    entries.emplace_back(r->resource, std::move(entry));
    for (const auto& sub : r->subresources) {
      std::string path = r->resource + "/" + sub.name;
      ordered_json s = {{"name", path}, {"singularName", ""}, {"namespaced", r->namespaced}};
      if (foreign_kind(*r, sub)) {
        s["group"] = sub.kind.group;
        s["version"] = sub.kind.version;
      }
      s["kind"] = sub.kind.kind;
      s["verbs"] = sub.verbs;
      entries.emplace_back(std::move(path), std::move(s));
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ordered_json list = {{"kind", "APIResourceList"}};
  if (!group.empty()) {
    list["apiVersion"] = "v1";  // the core list goes out without apiVersion, as since 1.1
  }
  list["groupVersion"] = group.empty() ? version : group + "/" + version;
  list["resources"] = ordered_json::array();
  for (auto& [path, entry] : entries) {
    list["resources"].push_back(std::move(entry));
  }
  return list;
}

ordered_json group_version_for_discovery(const std::string& group, const std::string& version) {
  return {{"groupVersion", group + "/" + version}, {"version", version}};
}

// metav1.APIGroup as the aggregator serves it (no serverAddressByClientCIDRs).
ordered_json api_group(const registry::GroupVersions& g) {
  ordered_json versions = ordered_json::array();
  for (const auto& v : g.versions) {
    versions.push_back(group_version_for_discovery(g.name, v));
  }
  return {{"name", g.name},
          {"versions", std::move(versions)},
          {"preferredVersion", group_version_for_discovery(g.name, g.preferred_version)}};
}

// The responseKind of kube-apiserver's aggregated entries: group and version are filled only
// where the legacy list fills them (subresources of a foreign kind), empty otherwise.
ordered_json response_kind(const std::string& group, const std::string& version,
                           const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

ordered_json aggregated_resources(const std::string& group, const std::string& version,
                                  const Snapshot& snapshot) {
  ordered_json resources = ordered_json::array();
  for (const Resource* r : sorted_by_name(snapshot.in_group_version(group, version))) {
    ordered_json entry = {{"resource", r->resource},
                          {"responseKind", response_kind("", "", r->kind)},
                          {"scope", r->namespaced ? "Namespaced" : "Cluster"},
                          {"singularResource", r->singular},
                          {"verbs", r->verbs}};
    if (!r->short_names.empty()) {
      entry["shortNames"] = r->short_names;
    }
    if (!r->categories.empty()) {
      entry["categories"] = r->categories;
    }
    if (!r->subresources.empty()) {
      ordered_json subs = ordered_json::array();
      for (const auto* sub : sorted_subresources(*r)) {
        bool foreign = foreign_kind(*r, *sub);
        subs.push_back(
            {{"subresource", sub->name},
             {"responseKind", response_kind(foreign ? sub->kind.group : "",
                                            foreign ? sub->kind.version : "", sub->kind.kind)},
             {"verbs", sub->verbs}});
      }
      entry["subresources"] = std::move(subs);
    }
    resources.push_back(std::move(entry));
  }
  return resources;
}

// The items of the aggregated list: the core group alone (`core`), or every other group, in
// discovery order with versions most preferred first.
ordered_json aggregated_items(bool core, const Snapshot& snapshot) {
  ordered_json items = ordered_json::array();
  for (const auto& g : snapshot.groups()) {
    if (g.name.empty() != core) {
      continue;
    }
    ordered_json metadata = ordered_json::object();
    if (!g.name.empty()) {
      metadata["name"] = g.name;
    }
    metadata["creationTimestamp"] = nullptr;  // Go marshals the zero metav1.Time as null
    ordered_json versions = ordered_json::array();
    for (const auto& v : g.versions) {
      ordered_json version = {{"version", v}};
      ordered_json resources = aggregated_resources(g.name, v, snapshot);
      if (!resources.empty()) {
        version["resources"] = std::move(resources);
      }
      version["freshness"] = "Current";
      versions.push_back(std::move(version));
    }
    ordered_json item = {{"metadata", std::move(metadata)}};
    if (!versions.empty()) {
      item["versions"] = std::move(versions);
    }
    items.push_back(std::move(item));
  }
  return items;
}

http::Response encoded(const ordered_json& doc, Encoding encoding,
                       const std::string& media_params) {
  http::Response r;
  if (encoding == Encoding::Yaml) {
    // YAML carries keys sorted, as Go's JSON-to-YAML conversion emits them.
    r.body = json_to_yaml(nlohmann::json::parse(doc.dump()));
    r.set_header("Content-Type", "application/yaml" + media_params);
  } else {
    r.body = doc.dump();
    r.set_header("Content-Type", "application/json" + media_params);
  }
  return r;
}

http::Response aggregated(bool core, const Negotiated& negotiated, const http::Request& request,
                          const Snapshot& snapshot) {
  ordered_json items = aggregated_items(core, snapshot);
  std::string etag = etag_of(items);
  http::Response r;
  if (request.header("If-None-Match") == etag) {
    r.status = 304;
  } else {
    ordered_json doc = {
        {"kind", kDiscoveryKind},
        {"apiVersion", std::string(kDiscoveryGroup) + "/" + negotiated.aggregated_version},
        {"metadata", ordered_json::object()},
        {"items", std::move(items)}};
    r = encoded(doc, negotiated.encoding,
                std::string(";g=") + kDiscoveryGroup + ";v=" + negotiated.aggregated_version +
                    ";as=" + kDiscoveryKind);
  }
  r.set_header("ETag", etag);
  r.set_header("Vary", "Accept");
  r.set_header("Cache-Control", "public");
  return r;
}

http::Response not_found() {
  return errors::no_route().response();
}

const registry::GroupVersions* find_group(const Snapshot& snapshot, const std::string& name) {
  for (const auto& g : snapshot.groups()) {
    if (g.name == name) {
      return &g;
    }
  }
  return nullptr;
}

bool serves(const registry::GroupVersions* g, const std::string& version) {
  return g != nullptr &&
         std::find(g->versions.begin(), g->versions.end(), version) != g->versions.end();
}

}  // namespace

std::string discovery_etag(const nlohmann::ordered_json& items) {
  return etag_of(items);
}

std::string storage_version_hash(const std::string& group, const std::string& version,
                                 const std::string& kind) {
  std::string gvk = group + "/" + version + "/" + kind;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest);
  return common::base64_encode(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

std::optional<http::Response> serve_discovery(const http::Request& request,
                                              const registry::Snapshot& snapshot,
                                              const std::string& server_address) {
  // Segments after /api or /apis; a trailing slash is ignored.
  std::string path = request.path;
  if (path.size() > 1 && path.back() == '/') {
    path.pop_back();
  }
  bool legacy = path == "/api" || path.rfind("/api/", 0) == 0;
  bool grouped = path == "/apis" || path.rfind("/apis/", 0) == 0;
  if (!legacy && !grouped) {
    return std::nullopt;
  }
  std::vector<std::string> segments;
  std::string rest = path.substr(legacy ? 4 : 5);
  if (!rest.empty()) {
    segments = split(rest.substr(1), '/');
  }
  size_t max_segments = legacy ? 1 : 2;
  if (segments.size() > max_segments ||
      std::any_of(segments.begin(), segments.end(), [](const auto& s) { return s.empty(); })) {
    return std::nullopt;  // a resource path (or malformed): not discovery
  }

  // What is being asked for; 404 before 405, as the router only knows served paths.
  const registry::GroupVersions* group = nullptr;
  if (legacy) {
    group = find_group(snapshot, "");
    if (segments.size() == 1 && !serves(group, segments[0])) {
      return not_found();
    }
  } else if (!segments.empty()) {
    group = segments[0].empty() ? nullptr : find_group(snapshot, segments[0]);
    if (group == nullptr || (segments.size() == 2 && !serves(group, segments[1]))) {
      return not_found();
    }
  }
  if (request.method != "GET") {
    return errors::method_not_routed().response();
  }

  bool root = segments.empty();
  auto negotiated = negotiate(request.header("Accept"), root);
  if (!negotiated) {
    return errors::failure(406, "NotAcceptable",
                           "only the following media types are accepted: application/json, "
                           "application/yaml")
        .response();
  }
  if (root && !negotiated->aggregated_version.empty()) {
    return aggregated(legacy, *negotiated, request, snapshot);
  }

  ordered_json doc;
  if (legacy && root) {
    doc = {
        {"kind", "APIVersions"},
        {"versions", group == nullptr ? std::vector<std::string>{} : group->versions},
        {"serverAddressByClientCIDRs",
         ordered_json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
  } else if (legacy) {
    doc = resource_list("", segments[0], snapshot);
  } else if (root) {
    ordered_json groups = ordered_json::array();
    for (const auto& g : snapshot.groups()) {
      if (!g.name.empty()) {
        groups.push_back(api_group(g));
      }
    }
    doc = {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
  } else if (segments.size() == 1) {
    doc = {{"kind", "APIGroup"}, {"apiVersion", "v1"}};
    ordered_json fields = api_group(*group);
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      doc[it.key()] = *it;
    }
  } else {
    doc = resource_list(group->name, segments[1], snapshot);
  }
  return encoded(doc, negotiated->encoding, "");
}

}  // namespace apiserver::endpoints
