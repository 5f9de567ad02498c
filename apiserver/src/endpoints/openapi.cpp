#include "endpoints/openapi.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <deque>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/facts.h"
#include "apiserver/version.h"
#include "endpoints/accept.h"
#include "endpoints/openapi_v2_proto.h"
#include "registry/custom_resources.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

constexpr const char* kV2Path = "/openapi/v2";
constexpr const char* kV3Path = "/openapi/v3";
// The protobuf form of /openapi/v2 is asked for by either subtype (client-go sends the first);
// the answer always names the second, as upstream's does.
constexpr const char* kV2ProtobufSubtypeDeprecated =
    "com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr const char* kV2ProtobufSubtype = "com.github.proto-openapi.spec.v2.v1.0+protobuf";
constexpr const char* kV2ProtobufContentType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
constexpr const char* kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

// ---------------------------------------------------------------------------------------------
// The operation model: one list of paths built from the snapshot, written out as Swagger 2.0 or
// OpenAPI 3.0.

struct Param {
  std::string name;
  std::string in;    // "path", "query" or "body"
  std::string type;  // for path and query parameters
  bool required = false;
  std::string body;  // definition name of a body parameter

  bool operator==(const Param& o) const {
    return name == o.name && in == o.in && type == o.type && required == o.required &&
           body == o.body;
  }
  bool operator<(const Param& o) const {
    return std::tie(name, in, type, required, body) <
           std::tie(o.name, o.in, o.type, o.required, o.body);
  }
};

struct Reply {
  std::string code;
  std::string ref;  // definition name; empty: a plain string
};

using Strings = std::vector<std::string>;

const Strings& plain_consumes() {
  static const Strings v{"*/*"};
  return v;
}
const Strings& patch_consumes() {
  static const Strings v{"application/json-patch+json", "application/merge-patch+json",
                         "application/strategic-merge-patch+json", "application/apply-patch+yaml",
                         "application/apply-patch+cbor"};
  return v;
}
const Strings& object_produces() {
  static const Strings v{"application/json", "application/yaml",
                         "application/vnd.kubernetes.protobuf", "application/cbor"};
  return v;
}
const Strings& list_produces() {
  static const Strings v{"application/json",
                         "application/yaml",
                         "application/vnd.kubernetes.protobuf",
                         "application/cbor",
                         "application/json;stream=watch",
                         "application/vnd.kubernetes.protobuf;stream=watch",
                         "application/cbor-seq"};
  return v;
}
const Strings& log_produces() {
  static const Strings v{"text/plain", "application/json", "application/yaml",
                         "application/vnd.kubernetes.protobuf", "application/cbor"};
  return v;
}
const Strings& any_produces() {
  static const Strings v{"*/*"};
  return v;
}
const Strings& discovery_types() {
  static const Strings v{"application/json", "application/yaml",
                         "application/vnd.kubernetes.protobuf"};
  return v;
}
const Strings& json_only() {
  static const Strings v{"application/json"};
  return v;
}

struct Op {
  std::string method;  // lower case: get, put, post, delete, patch, head, options
  std::string id;
  std::string tag;
  std::string action;  // x-kubernetes-action; empty for discovery operations
  std::optional<registry::GroupVersionKind> gvk;
  std::vector<Param> params;
  const Strings* consumes = &plain_consumes();
  const Strings* produces = &object_produces();
  std::vector<Reply> replies;
};

struct PathItem {
  std::vector<Op> ops;
};

struct Model {
  std::map<std::string, PathItem> paths;
  // Document key ("api/v1", "apis/apps/v1", "api", "apis", "apis/apps", "version") -> its paths.
  std::map<std::string, std::vector<std::string>> documents;
  // Definitions the facts lack (kinds added at run time): generated, bare "$ref" spelling.
  std::map<std::string, json> extra_definitions;
};

Param path_param(const std::string& name) { return {name, "path", "string", true, ""}; }
Param query(const std::string& name, const std::string& type = "string") {
  return {name, "query", type, false, ""};
}
Param body(const std::string& definition, bool required) {
  return {"body", "body", "", required, definition};
}

std::string upper_first(std::string s) {
  if (!s.empty()) {
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  }
  return s;
}

std::string lower_first(std::string s) {
  if (!s.empty()) {
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  }
  return s;
}

// "rbac.authorization.k8s.io" -> "RbacAuthorization"; "" -> "Core" (operation ids and tags).
std::string group_word(const std::string& group) {
  if (group.empty()) {
    return "Core";
  }
  std::string g = group;
  const std::string suffix = ".k8s.io";
  if (g.size() > suffix.size() && g.compare(g.size() - suffix.size(), suffix.size(), suffix) == 0) {
    g.resize(g.size() - suffix.size());
  }
  std::string out;
  size_t start = 0;
  while (start <= g.size()) {
    size_t dot = g.find('.', start);
    if (dot == std::string::npos) {
      dot = g.size();
    }
    out += upper_first(g.substr(start, dot - start));
    start = dot + 1;
  }
  return out;
}

std::string gv_key(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

// Standard parameter sets, by operation.
std::vector<Param> list_params() {
  return {query("allowWatchBookmarks", "boolean"), query("continue"), query("fieldSelector"),
          query("labelSelector"), query("limit", "integer"), query("resourceVersion"),
          query("resourceVersionMatch"), query("sendInitialEvents", "boolean"),
          query("timeoutSeconds", "integer"), query("watch", "boolean")};
}
std::vector<Param> write_params(const std::string& definition) {
  return {body(definition, true), query("dryRun"), query("fieldManager"),
          query("fieldValidation")};
}
std::vector<Param> patch_params() {
  return {body(std::string(kMetaPrefix) + "Patch", true), query("dryRun"), query("fieldManager"),
          query("fieldValidation"), query("force", "boolean")};
}
std::vector<Param> delete_params() {
  return {body(std::string(kMetaPrefix) + "DeleteOptions", false), query("dryRun"),
          query("gracePeriodSeconds", "integer"),
          query("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean"),
          query("orphanDependents", "boolean"), query("propagationPolicy")};
}
std::vector<Param> delete_collection_params() {
  std::vector<Param> p = delete_params();
  for (const char* name : {"continue", "fieldSelector", "labelSelector", "resourceVersion",
                           "resourceVersionMatch"}) {
    p.push_back(query(name));
  }
  p.push_back(query("limit", "integer"));
  p.push_back(query("sendInitialEvents", "boolean"));
  p.push_back(query("timeoutSeconds", "integer"));
  return p;
}

// Query parameters of the connect and log subresources (their *Options kinds are not in the
// schema facts because no served kind refers to them).
std::vector<Param> connect_params(const std::string& subresource) {
  if (subresource == "exec") {
    return {query("command"),          query("container"),          query("stderr", "boolean"),
            query("stdin", "boolean"), query("stdout", "boolean"), query("tty", "boolean")};
  }
  if (subresource == "attach") {
    return {query("container"), query("stderr", "boolean"), query("stdin", "boolean"),
            query("stdout", "boolean"), query("tty", "boolean")};
  }
  if (subresource == "portforward") {
    return {query("ports", "integer")};
  }
  if (subresource == "proxy") {
    return {query("path")};
  }
  return {};
}
std::vector<Param> log_params() {
  return {query("container"),
          query("follow", "boolean"),
          query("insecureSkipTLSVerifyBackend", "boolean"),
          query("limitBytes", "integer"),
          query("previous", "boolean"),
          query("sinceSeconds", "integer"),
          query("stream"),
          query("tailLines", "integer"),
          query("timestamps", "boolean")};
}

// Resources whose DELETE answers with the deleted object rather than a Status (upstream fact:
// their REST storage returns the object).
bool delete_returns_object(const std::string& group, const std::string& resource) {
  static const std::set<std::pair<std::string, std::string>> kSet = {
      {"", "persistentvolumeclaims"},
      {"", "pods"},
      {"", "podtemplates"},
      {"", "resourcequotas"},
      {"", "serviceaccounts"},
      {"", "services"},
      {"", "persistentvolumes"},
      {"resource.k8s.io", "deviceclasses"},
      {"resource.k8s.io", "resourceclaims"},
      {"resource.k8s.io", "resourceclaimtemplates"},
      {"resource.k8s.io", "resourceslices"},
      {"storage.k8s.io", "csidrivers"},
      {"storage.k8s.io", "csinodes"},
      {"storage.k8s.io", "storageclasses"},
      {"storage.k8s.io", "volumeattachments"},
      {"storage.k8s.io", "volumeattributesclasses"},
  };
  return kSet.count({group, resource}) != 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class ModelBuilder {
 public:
  ModelBuilder(const std::map<std::string, std::string>& kind_definitions, Model& model)
      : kind_definitions_(kind_definitions), model_(model) {}

  void add_resource(const registry::Resource& r) {
    const std::string prefix = r.group.empty() ? "/api/" + r.version
                                               : "/apis/" + r.group + "/" + r.version;
    doc_ = gv_key(r.group, r.version);
    tag_ = r.group.empty() ? "core_" + r.version
                           : lower_first(group_word(r.group)) + "_" + r.version;
    gv_word_ = group_word(r.group) + upper_first(r.version);
    const std::string scope = r.namespaced ? "Namespaced" : "";
    const std::string ns_segment = r.namespaced ? "/namespaces/{namespace}" : "";
    const registry::GroupVersionKind gvk{r.group, r.version, r.kind};
    const std::string def =
        definition(gvk, r.custom && r.custom->schema.is_object() ? &r.custom->schema : nullptr);
    const std::string list_def = list_definition(gvk, def);
    const std::string status = std::string(kMetaPrefix) + "Status";
    const std::string collection = prefix + ns_segment + "/" + r.resource;
    const std::string item = collection + "/{name}";
    std::vector<Param> base = {query("pretty")};
    if (r.namespaced) {
      base.push_back(path_param("namespace"));
    }
    std::vector<Param> named = base;
    named.push_back(path_param("name"));

    if (r.has_verb("list")) {
      add(collection, op("get", "list" + gv_word_ + scope + r.kind, "list", gvk, base,
                         list_params(), &list_produces(), {{"200", list_def}}));
    }
    if (r.has_verb("create")) {
      add(collection, op("post", "create" + gv_word_ + scope + r.kind, "post", gvk, base,
                         write_params(def), &object_produces(),
                         {{"200", def}, {"201", def}, {"202", def}}));
    }
    if (r.has_verb("deletecollection")) {
      add(collection, op("delete", "delete" + gv_word_ + "Collection" + scope + r.kind,
                         "deletecollection", gvk, base, delete_collection_params(),
                         &object_produces(), {{"200", status}}));
    }
    if (r.has_verb("get")) {
      add(item, op("get", "read" + gv_word_ + scope + r.kind, "get", gvk, named, {},
                   &object_produces(), {{"200", def}}));
    }
    if (r.has_verb("update")) {
      add(item, op("put", "replace" + gv_word_ + scope + r.kind, "put", gvk, named,
                   write_params(def), &object_produces(), {{"200", def}, {"201", def}}));
    }
    if (r.has_verb("patch")) {
      Op o = op("patch", "patch" + gv_word_ + scope + r.kind, "patch", gvk, named, patch_params(),
                &object_produces(), {{"200", def}, {"201", def}});
      o.consumes = &patch_consumes();
      add(item, std::move(o));
    }
    if (r.has_verb("delete")) {
      const std::string reply = delete_returns_object(r.group, r.resource) ? def : status;
      add(item, op("delete", "delete" + gv_word_ + scope + r.kind, "delete", gvk, named,
                   delete_params(), &object_produces(), {{"200", reply}, {"202", reply}}));
    }
    if (r.has_verb("watch")) {
      const std::string event = std::string(kMetaPrefix) + "WatchEvent";
      const std::string watch = prefix + "/watch" + ns_segment + "/" + r.resource;
      add(watch, op("get", "watch" + gv_word_ + scope + r.kind + "List", "watchlist", gvk, base,
                    list_params(), &list_produces(), {{"200", event}}));
      add(watch + "/{name}", op("get", "watch" + gv_word_ + scope + r.kind, "watch", gvk, named,
                                list_params(), &list_produces(), {{"200", event}}));
      if (r.namespaced) {
        add(prefix + "/watch/" + r.resource,
            op("get", "watch" + gv_word_ + r.kind + "ListForAllNamespaces", "watchlist", gvk,
               {query("pretty")}, list_params(), &list_produces(), {{"200", event}}));
      }
    }
    if (r.namespaced && r.has_verb("list")) {
      add(prefix + "/" + r.resource,
          op("get", "list" + gv_word_ + r.kind + "ForAllNamespaces", "list", gvk,
             {query("pretty")}, list_params(), &list_produces(), {{"200", list_def}}));
    }
    for (const auto& s : r.subresources) {
      add_subresource(r, s, item, scope, named);
    }
  }

  // GET /api/, /apis/, /apis/<group>/, /<gv>/ and /version/.
  void add_discovery(const registry::Snapshot& snapshot) {
    tag_ = "core";
    doc_ = "api";
    add("/api/", discovery_op("getCoreAPIVersions", "APIVersions", &discovery_types()));
    tag_ = "apis";
    doc_ = "apis";
    add("/apis/", discovery_op("getAPIVersions", "APIGroupList", &discovery_types()));
    tag_ = "version";
    doc_ = "version";
    Op version = discovery_op("getCodeVersion", "", json_only_ptr());
    version.replies = {{"200", "io.k8s.apimachinery.pkg.version.Info"}};
    add("/version/", std::move(version));
    for (const auto& g : snapshot.groups()) {
      if (!g.name.empty()) {
        tag_ = lower_first(group_word(g.name));
        doc_ = "apis/" + g.name;
        add("/apis/" + g.name + "/",
            discovery_op("get" + group_word(g.name) + "APIGroup", "APIGroup", &discovery_types()));
      }
      for (const auto& v : g.versions) {
        if (snapshot.in_group_version(g.name, v).empty()) {
          continue;
        }
        tag_ = g.name.empty() ? "core_" + v : lower_first(group_word(g.name)) + "_" + v;
        doc_ = gv_key(g.name, v);
        add("/" + doc_ + "/", discovery_op("get" + group_word(g.name) + upper_first(v) +
                                               "APIResources",
                                           "APIResourceList", &object_produces()));
      }
    }
  }

 private:
  static const Strings* json_only_ptr() { return &json_only(); }

  Op discovery_op(const std::string& id, const std::string& meta_kind, const Strings* types) {
    Op o;
    o.method = "get";
    o.id = id;
    o.tag = tag_;
    o.consumes = types;
    o.produces = types;
    if (!meta_kind.empty()) {
      o.replies = {{"200", std::string(kMetaPrefix) + meta_kind}};
    }
    return o;
  }

  Op op(const std::string& method, const std::string& id, const std::string& action,
        const registry::GroupVersionKind& gvk, const std::vector<Param>& path_level,
        std::vector<Param> own, const Strings* produces, std::vector<Reply> replies) {
    Op o;
    o.method = method;
    o.id = id;
    o.tag = tag_;
    o.action = action;
    o.gvk = gvk;
    o.params = path_level;
    o.params.insert(o.params.end(), own.begin(), own.end());
    o.produces = produces;
    o.replies = std::move(replies);
    return o;
  }

  void add_subresource(const registry::Resource& r, const registry::Subresource& s,
                       const std::string& item, const std::string& scope,
                       const std::vector<Param>& named) {
    const std::string path = item + "/" + s.name;
    const std::string word = r.kind + upper_first(s.name);
    const bool connect = ends_with(s.kind.kind, "Options") || s.name == "proxy";
    if (connect) {
      std::vector<Param> params = {path_param("name")};
      if (r.namespaced) {
        params.push_back(path_param("namespace"));
      }
      std::vector<std::string> methods;
      for (const auto& verb : s.verbs) {
        static const std::map<std::string, std::string> kMethod = {
            {"get", "get"}, {"create", "post"}, {"update", "put"}, {"patch", "patch"},
            {"delete", "delete"}};
        auto it = kMethod.find(verb);
        if (it != kMethod.end()) {
          methods.push_back(it->second);
        }
      }
      if (s.name == "proxy") {
        methods.push_back("head");
        methods.push_back("options");
      }
      auto connect_ops = [&](const std::string& p, const std::string& suffix,
                             std::vector<Param> extra) {
        for (const auto& m : methods) {
          Op o = op(m, "connect" + gv_word_ + upper_first(m) + scope + word + suffix, "connect",
                    s.kind, params, connect_params(s.name), &any_produces(), {{"200", ""}});
          o.params.insert(o.params.end(), extra.begin(), extra.end());
          add(p, std::move(o));
        }
      };
      connect_ops(path, "", {});
      if (s.name == "proxy") {
        connect_ops(path + "/{path}", "WithPath", {path_param("path")});
      }
      return;
    }
    if (s.name == "log") {
      add(path, op("get", "read" + gv_word_ + scope + word, "get", s.kind, named, log_params(),
                   &log_produces(), {{"200", ""}}));
      return;
    }
    const std::string def = definition(s.kind);
    for (const auto& verb : s.verbs) {
      if (verb == "get") {
        add(path, op("get", "read" + gv_word_ + scope + word, "get", s.kind, named, {},
                     &object_produces(), {{"200", def}}));
      } else if (verb == "update") {
        add(path, op("put", "replace" + gv_word_ + scope + word, "put", s.kind, named,
                     write_params(def), &object_produces(), {{"200", def}, {"201", def}}));
      } else if (verb == "patch") {
        Op o = op("patch", "patch" + gv_word_ + scope + word, "patch", s.kind, named,
                  patch_params(), &object_produces(), {{"200", def}, {"201", def}});
        o.consumes = &patch_consumes();
        add(path, std::move(o));
      } else if (verb == "create") {
        add(path, op("post", "create" + gv_word_ + scope + word, "post", s.kind, named,
                     write_params(def), &object_produces(),
                     {{"200", def}, {"201", def}, {"202", def}}));
      }
    }
  }

  void add(const std::string& path, Op o) {
    auto [it, inserted] = model_.paths.try_emplace(path);
    if (inserted) {
      model_.documents[doc_].push_back(path);
    }
    for (const auto& existing : it->second.ops) {
      if (existing.method == o.method) {
        return;  // first row wins (cannot happen for distinct rows)
      }
    }
    std::sort(o.params.begin(), o.params.end());
    it->second.ops.push_back(std::move(o));
  }

  static std::string key(const registry::GroupVersionKind& gvk) {
    return gvk.group + "/" + gvk.version + "/" + gvk.kind;
  }

  // The definition of a kind; a generated one (the upstream CRD naming, reversed group) when the
  // facts do not know it.
  // `schema`: a custom resource's openAPIV3Schema, published with apiVersion, kind and metadata
  // as for any kind.
  std::string definition(const registry::GroupVersionKind& gvk, const json* schema = nullptr) {
    auto it = kind_definitions_.find(key(gvk));
    if (it != kind_definitions_.end() && schema == nullptr) {
      return it->second;
    }
    std::string reversed;
    std::string g = gvk.group.empty() ? "core" : gvk.group;
    size_t end = g.size();
    while (true) {
      size_t dot = g.rfind('.', end == 0 ? 0 : end - 1);
      size_t start = dot == std::string::npos ? 0 : dot + 1;
      if (!reversed.empty()) {
        reversed += ".";
      }
      reversed += g.substr(start, end - start);
      if (dot == std::string::npos) {
        break;
      }
      end = dot;
    }
    std::string name = reversed + "." + gvk.version + "." + gvk.kind;
    if (schema != nullptr && !model_.extra_definitions.count(name)) {
      json gvk_json = {{"group", gvk.group}, {"version", gvk.version}, {"kind", gvk.kind}};
      json published = *schema;
      published["type"] = "object";
      published["properties"]["apiVersion"] = {{"type", "string"}};
      published["properties"]["kind"] = {{"type", "string"}};
      published["properties"]["metadata"] = {{"$ref", std::string(kMetaPrefix) + "ObjectMeta"}};
      published["x-kubernetes-group-version-kind"] = json::array({gvk_json});
      model_.extra_definitions[name] = std::move(published);
    }
    if (!model_.extra_definitions.count(name)) {
      json gvk_json = {{"group", gvk.group}, {"version", gvk.version}, {"kind", gvk.kind}};
      model_.extra_definitions[name] = {
          {"type", "object"},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata", {{"$ref", std::string(kMetaPrefix) + "ObjectMeta"}}}}},
          {"x-kubernetes-preserve-unknown-fields", true},
          {"x-kubernetes-group-version-kind", json::array({gvk_json})}};
    }
    return name;
  }

  std::string list_definition(const registry::GroupVersionKind& gvk, const std::string& item_def) {
    registry::GroupVersionKind list{gvk.group, gvk.version, gvk.kind + "List"};
    auto it = kind_definitions_.find(key(list));
    if (it != kind_definitions_.end()) {
      return it->second;
    }
    std::string name = item_def + "List";
    if (!model_.extra_definitions.count(name)) {
      json gvk_json = {{"group", list.group}, {"version", list.version}, {"kind", list.kind}};
      model_.extra_definitions[name] = {
          {"type", "object"},
          {"required", json::array({"items"})},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"items", {{"type", "array"}, {"items", {{"$ref", item_def}}}}},
            {"metadata", {{"$ref", std::string(kMetaPrefix) + "ListMeta"}}}}},
          {"x-kubernetes-group-version-kind", json::array({gvk_json})}};
    }
    return name;
  }

  const std::map<std::string, std::string>& kind_definitions_;
  Model& model_;
  std::string doc_;
  std::string tag_;
  std::string gv_word_;
};

Model build_model(const registry::Snapshot& snapshot,
                  const std::map<std::string, std::string>& kind_definitions) {
  Model model;
  ModelBuilder builder(kind_definitions, model);
  builder.add_discovery(snapshot);
  for (const auto& r : snapshot.resources()) {
    builder.add_resource(r);
  }
  return model;
}

// ---------------------------------------------------------------------------------------------
// Writing the model out.

enum class Flavor { V2, V3 };

std::string ref_to(Flavor f, const std::string& definition) {
  return (f == Flavor::V2 ? "#/definitions/" : "#/components/schemas/") + definition;
}

// The documents are large (about 1 MB for v2) and mostly operations, so operations are written
// as text directly, keys in sorted order like the rest of the document.
void put_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
}

void put_key(std::string& out, const char* key) {
  out += '"';
  out += key;
  out += "\":";
}

void put_strings(std::string& out, const Strings& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) {
      out += ',';
    }
    put_string(out, list[i]);
  }
  out += ']';
}

void put_gvk(std::string& out, const registry::GroupVersionKind& gvk) {
  out += "{\"group\":";
  put_string(out, gvk.group);
  out += ",\"kind\":";
  put_string(out, gvk.kind);
  out += ",\"version\":";
  put_string(out, gvk.version);
  out += '}';
}

const char* reason(const std::string& code) {
  if (code == "200") {
    return "OK";
  }
  if (code == "201") {
    return "Created";
  }
  if (code == "202") {
    return "Accepted";
  }
  return "Unauthorized";
}

void put_ref(std::string& out, Flavor f, const std::string& definition) {
  out += "{\"$ref\":";
  put_string(out, ref_to(f, definition));
  out += '}';
}

void put_reply_schema(std::string& out, Flavor f, const Reply& r) {
  if (r.ref.empty()) {
    out += "{\"type\":\"string\"}";
  } else {
    put_ref(out, f, r.ref);
  }
}

void put_param(std::string& out, Flavor f, const Param& p) {
  out += "{\"in\":";
  put_string(out, p.in);
  out += ",\"name\":";
  put_string(out, p.name);
  if (p.required) {
    out += ",\"required\":true";
  }
  if (f == Flavor::V2) {
    if (p.in == "body") {
      out += ",\"schema\":";
      put_ref(out, f, p.body);
    } else {
      out += ",\"type\":";
      put_string(out, p.type);
      out += ",\"uniqueItems\":true";
    }
  } else {
    out += ",\"schema\":{\"type\":";
    put_string(out, p.type);
    out += ",\"uniqueItems\":true}";
  }
  out += '}';
}

void put_op(std::string& out, Flavor f, const Op& o, const std::vector<Param>& hoisted) {
  auto own = [&](const Param& p) {
    return std::find(hoisted.begin(), hoisted.end(), p) == hoisted.end();
  };
  const Param* request_body = nullptr;
  std::vector<const Param*> params;
  for (const auto& p : o.params) {
    if (!own(p)) {
      continue;
    }
    if (f == Flavor::V3 && p.in == "body") {
      request_body = &p;
    } else {
      params.push_back(&p);
    }
  }
  out += '{';
  if (f == Flavor::V2) {
    put_key(out, "consumes");
    put_strings(out, *o.consumes);
    out += ',';
  }
  put_key(out, "operationId");
  put_string(out, o.id);
  if (!params.empty()) {
    out += ',';
    put_key(out, "parameters");
    out += '[';
    for (size_t i = 0; i < params.size(); ++i) {
      if (i) {
        out += ',';
      }
      put_param(out, f, *params[i]);
    }
    out += ']';
  }
  if (f == Flavor::V2) {
    out += ',';
    put_key(out, "produces");
    put_strings(out, *o.produces);
  }
  if (request_body) {
    out += ",\"requestBody\":{\"content\":{";
    for (size_t i = 0; i < o.consumes->size(); ++i) {
      if (i) {
        out += ',';
      }
      put_string(out, (*o.consumes)[i]);
      out += ":{\"schema\":";
      put_ref(out, f, request_body->body);
      out += '}';
    }
    out += '}';
    if (request_body->required) {
      out += ",\"required\":true";
    }
    out += '}';
  }
  out += ",\"responses\":{";
  for (const auto& r : o.replies) {
    put_string(out, r.code);
    out += ':';
    if (f == Flavor::V2) {
      out += "{\"description\":";
      put_string(out, reason(r.code));
      out += ",\"schema\":";
      put_reply_schema(out, f, r);
    } else {
      out += "{\"content\":{";
      for (size_t i = 0; i < o.produces->size(); ++i) {
        if (i) {
          out += ',';
        }
        put_string(out, (*o.produces)[i]);
        out += ":{\"schema\":";
        put_reply_schema(out, f, r);
        out += '}';
      }
      out += "},\"description\":";
      put_string(out, reason(r.code));
    }
    out += "},";
  }
  out += "\"401\":{\"description\":\"Unauthorized\"}}";
  if (f == Flavor::V2) {
    out += ",\"schemes\":[\"https\"]";
  }
  out += ",\"tags\":[";
  put_string(out, o.tag);
  out += ']';
  if (!o.action.empty()) {
    out += ",\"x-kubernetes-action\":";
    put_string(out, o.action);
  }
  if (o.gvk) {
    out += ",\"x-kubernetes-group-version-kind\":";
    put_gvk(out, *o.gvk);
  }
  out += '}';
}

// Parameters every operation of the path shares move to the path item, as upstream lists them.
// In v3 only path parameters and "pretty" move: kubectl looks for fieldValidation among the
// parameters of the PATCH operation itself.
void put_path_item(std::string& out, Flavor f, const PathItem& item) {
  std::vector<Param> hoisted;
  if (!item.ops.empty()) {
    for (const auto& p : item.ops.front().params) {
      if (p.in == "body" || (f == Flavor::V3 && p.in != "path" && p.name != "pretty")) {
        continue;
      }
      bool everywhere = std::all_of(item.ops.begin(), item.ops.end(), [&](const Op& o) {
        return std::find(o.params.begin(), o.params.end(), p) != o.params.end();
      });
      if (everywhere) {
        hoisted.push_back(p);
      }
    }
  }
  // Methods in key order, with "parameters" where it sorts.
  std::vector<std::pair<std::string, const Op*>> entries;
  for (const auto& o : item.ops) {
    entries.emplace_back(o.method, &o);
  }
  if (!hoisted.empty()) {
    entries.emplace_back("parameters", nullptr);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  out += '{';
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) {
      out += ',';
    }
    put_string(out, entries[i].first);
    out += ':';
    if (entries[i].second) {
      put_op(out, f, *entries[i].second, hoisted);
    } else {
      out += '[';
      for (size_t k = 0; k < hoisted.size(); ++k) {
        if (k) {
          out += ',';
        }
        put_param(out, f, hoisted[k]);
      }
      out += ']';
    }
  }
  out += '}';
}

void put_paths(std::string& out, Flavor f, const Model& model,
               const std::vector<std::string>& paths) {
  std::vector<std::string> sorted = paths;
  std::sort(sorted.begin(), sorted.end());
  out += '{';
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) {
      out += ',';
    }
    put_string(out, sorted[i]);
    out += ':';
    put_path_item(out, f, model.paths.at(sorted[i]));
  }
  out += '}';
}

// Rewrites bare "$ref" names for a flavour. In v3 a "$ref" with sibling keys becomes
// {"allOf": [{"$ref": ...}], siblings...}, the way upstream serves v3 (siblings of "$ref" are
// ignored by OpenAPI 3.0 otherwise). Only schema positions are visited: "properties" maps field
// names to schemas, so a field called "$ref" (JSONSchemaProps) is left alone.
json convert_schema(Flavor f, const json& schema);

json convert_map(Flavor f, const json& m) {
  if (!m.is_object()) {
    return m;  // a CRD's schema is client data: never iterate a non-object for keys
  }
  json out = json::object();
  for (auto it = m.begin(); it != m.end(); ++it) {
    out[it.key()] = convert_schema(f, it.value());
  }
  return out;
}

json convert_schema(Flavor f, const json& schema) {
  if (!schema.is_object()) {
    return schema;
  }
  json out = json::object();
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "properties" || k == "patternProperties" || k == "definitions") {
      out[k] = convert_map(f, v);
    } else if (k == "items" || k == "additionalProperties" || k == "not") {
      out[k] = v.is_object() ? convert_schema(f, v) : v;
    } else if ((k == "allOf" || k == "anyOf" || k == "oneOf") && v.is_array()) {
      json list = json::array();
      for (const auto& s : v) {
        list.push_back(convert_schema(f, s));
      }
      out[k] = std::move(list);
    } else if (k == "$ref" && v.is_string()) {
      out[k] = ref_to(f, v.get<std::string>());
    } else {
      out[k] = v;
    }
  }
  if (f == Flavor::V3 && out.contains("$ref") && out.size() > 1 && out["$ref"].is_string()) {
    json ref = {{"$ref", out["$ref"]}};
    out.erase("$ref");
    out["allOf"] = json::array({std::move(ref)});
  }
  return out;
}

void collect_refs(const json& schema, std::set<std::string>& out) {
  if (schema.is_object()) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        out.insert(it.value().get<std::string>());
      } else if (it.key() == "properties" || it.key() == "patternProperties") {
        for (const auto& [name, sub] : it.value().items()) {
          (void)name;
          collect_refs(sub, out);
        }
      } else if (it.value().is_structured()) {
        collect_refs(it.value(), out);
      }
    }
  } else if (schema.is_array()) {
    for (const auto& s : schema) {
      collect_refs(s, out);
    }
  }
}

std::string sha512_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha512(), nullptr);
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

json info_json() {
  return {{"title", "Kubernetes"}, {"version", version_info().git_version}};
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers.

struct MediaRange {
  std::string type;
  std::string subtype;
  double q = 1.0;
  int specificity = 0;
};

// Accept clauses ordered as goautoneg orders them: by q, then the more specific first.
std::vector<MediaRange> parse_accept(std::string accept) {
  if (accept.empty()) {
    accept = "*/*";
  }
  auto trim = [](std::string s) {
    size_t a = s.find_first_not_of(" \t");
    size_t b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  std::vector<MediaRange> out;
  size_t start = 0;
  while (start <= accept.size()) {
    size_t comma = accept.find(',', start);
    if (comma == std::string::npos) {
      comma = accept.size();
    }
    std::string clause = accept.substr(start, comma - start);
    start = comma + 1;
    size_t semi = clause.find(';');
    std::string range = trim(clause.substr(0, semi));
    MediaRange m;
    size_t slash = range.find('/');
    if (range.empty()) {
      continue;
    }
    if (slash == std::string::npos) {
      m.type = range;
      m.subtype = "*";
    } else {
      m.type = trim(range.substr(0, slash));
      m.subtype = trim(range.substr(slash + 1));
    }
    while (semi != std::string::npos) {
      size_t next = clause.find(';', semi + 1);
      std::string param = trim(clause.substr(semi + 1, next - semi - 1));
      if (param.rfind("q=", 0) == 0) {
        m.q = accept_quality(std::string_view(param).substr(2));
      }
      semi = next;
    }
    m.specificity = (m.type != "*" ? 1 : 0) + (m.subtype != "*" ? 1 : 0);
    if (m.q > 0) {
      out.push_back(m);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const MediaRange& a, const MediaRange& b) {
    if (a.q != b.q) {
      return a.q > b.q;
    }
    return a.specificity > b.specificity;
  });
  return out;
}

// Whether the client accepts JSON (application/json, application/*, */*); the /openapi/v3
// documents exist only as JSON.
bool accepts_json(const std::string& accept) {
  for (const auto& m : parse_accept(accept)) {
    if ((m.type == "application" || m.type == "*") && (m.subtype == "json" || m.subtype == "*")) {
      return true;
    }
  }
  return false;
}

enum class V2Form { Json, Protobuf };

// The form of /openapi/v2 to answer with, chosen as kube-openapi's handler chooses: the first
// Accept clause (in parse_accept order) that matches JSON or either protobuf subtype, JSON first
// for a wildcard. nullopt: nothing acceptable (406).
std::optional<V2Form> negotiate_v2(const std::string& accept) {
  for (const auto& m : parse_accept(accept)) {
    if (m.type != "application" && m.type != "*") {
      continue;
    }
    if (m.subtype == "json" || m.subtype == "*") {
      return V2Form::Json;
    }
    if (m.subtype == kV2ProtobufSubtypeDeprecated || m.subtype == kV2ProtobufSubtype) {
      return V2Form::Protobuf;
    }
  }
  return std::nullopt;
}

bool etag_matches(const std::string& if_none_match, const std::string& etag) {
  if (if_none_match.empty()) {
    return false;
  }
  size_t start = 0;
  while (start <= if_none_match.size()) {
    size_t comma = if_none_match.find(',', start);
    if (comma == std::string::npos) {
      comma = if_none_match.size();
    }
    std::string tag = if_none_match.substr(start, comma - start);
    start = comma + 1;
    size_t a = tag.find_first_not_of(" \t");
    size_t b = tag.find_last_not_of(" \t");
    if (a == std::string::npos) {
      continue;
    }
    tag = tag.substr(a, b - a + 1);
    if (tag == "*") {
      return true;
    }
    if (tag.rfind("W/", 0) == 0) {
      tag = tag.substr(2);
    }
    if (tag == etag) {
      return true;
    }
  }
  return false;
}

http::Response not_acceptable() {
  http::Response r;
  r.status = 406;
  r.set_header("Vary", "Accept");
  return r;
}

http::Response not_found() {
  http::Response r;
  r.status = 404;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.set_header("X-Content-Type-Options", "nosniff");
  r.body = "404 page not found\n";
  return r;
}

// The document itself, or 304 when the client already has it (Go's http.ServeContent).
http::Response content(const http::Request& request, const std::string& body,
                       const std::string& hash, http::Response r,
                       const char* content_type = "application/json") {
  const std::string etag = "\"" + hash + "\"";
  r.set_header("ETag", etag);
  if (etag_matches(request.header("If-None-Match"), etag)) {
    r.status = 304;
    r.body.clear();
    return r;
  }
  r.status = 200;
  r.set_header("Content-Type", content_type);
  if (request.method != "HEAD") {
    r.body = body;
  }
  return r;
}

std::string http_date(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace

// -----------------------------------------------------------------------------------------------

OpenApi::OpenApi(Clock clock) : clock_(std::move(clock)) {
  const json facts = json::parse(facts::schemas_json());
  const json& definitions = facts.at("definitions");
  for (auto it = definitions.begin(); it != definitions.end(); ++it) {
    definitions_v2_[it.key()] = convert_schema(Flavor::V2, it.value()).dump();
    definitions_v3_[it.key()] = convert_schema(Flavor::V3, it.value()).dump();
    std::set<std::string> refs;
    collect_refs(it.value(), refs);
    refs_[it.key()] = std::vector<std::string>(refs.begin(), refs.end());
    auto gvks = it.value().find("x-kubernetes-group-version-kind");
    if (gvks != it.value().end() && gvks->is_array()) {
      for (const auto& g : *gvks) {
        std::string key = g.value("group", "") + "/" + g.value("version", "") + "/" +
                          g.value("kind", "");
        kind_definitions_.emplace(key, it.key());  // the first definition naming a kind wins
      }
    }
  }
}

namespace {

// Writes the definitions reachable from the operations of `paths` as one JSON object, from the
// definitions serialised at construction (and the generated ones of kinds the facts lack).
void put_definitions(std::string& out, Flavor f, const Model& model,
                     const std::vector<std::string>& paths,
                     const std::map<std::string, std::string>& definitions,
                     const std::map<std::string, std::vector<std::string>>& refs) {
  std::set<std::string> seen;
  std::deque<std::string> queue;
  auto visit = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) {
      queue.push_back(name);
    }
  };
  for (const auto& p : paths) {
    for (const auto& o : model.paths.at(p).ops) {
      for (const auto& param : o.params) {
        visit(param.body);
      }
      for (const auto& r : o.replies) {
        visit(r.ref);
      }
    }
  }
  std::map<std::string, std::string> generated;
  while (!queue.empty()) {
    std::string name = std::move(queue.front());
    queue.pop_front();
    auto extra = model.extra_definitions.find(name);
    if (extra != model.extra_definitions.end()) {
      generated[name] = convert_schema(f, extra->second).dump();
      std::set<std::string> more;
      collect_refs(extra->second, more);
      for (const auto& m : more) {
        visit(m);
      }
      continue;
    }
    auto r = refs.find(name);
    if (r != refs.end()) {
      for (const auto& m : r->second) {
        visit(m);
      }
    }
  }
  out += '{';
  bool first = true;
  for (const auto& name : seen) {  // sorted
    const std::string* text = nullptr;
    auto g = generated.find(name);
    if (g != generated.end()) {
      text = &g->second;
    } else {
      auto d = definitions.find(name);
      if (d == definitions.end()) {
        continue;  // a dangling reference is a facts defect; the facts tests catch it
      }
      text = &d->second;
    }
    if (!first) {
      out += ',';
    }
    first = false;
    put_string(out, name);
    out += ':';
    out += *text;
  }
  out += '}';
}

constexpr const char* kSecurity = "[{\"BearerToken\":[]}]";
constexpr const char* kBearerToken =
    "{\"BearerToken\":{\"in\":\"header\",\"name\":\"authorization\",\"type\":\"apiKey\"}}";

}  // namespace

OpenApi::Cache& OpenApi::cache_for_locked(uint64_t generation) {
  if (cache_.generation != generation || (!cache_.v2 && !cache_.v3)) {
    cache_ = Cache{};
    cache_.generation = generation;
  }
  return cache_;
}

std::shared_ptr<const OpenApi::Document> OpenApi::v2_for(const registry::Snapshot& snapshot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Cache& c = cache_for_locked(snapshot.generation());
    if (c.v2) {
      return c.v2;
    }
  }
  Model model = build_model(snapshot, kind_definitions_);
  std::vector<std::string> all;
  all.reserve(model.paths.size());
  for (const auto& [path, item] : model.paths) {
    (void)item;
    all.push_back(path);
  }
  auto built = std::make_shared<Document>();
  std::string& out = built->json;
  out.reserve(1 << 20);
  out += "{\"definitions\":";
  put_definitions(out, Flavor::V2, model, all, definitions_v2_, refs_);
  out += ",\"info\":";
  out += info_json().dump();
  out += ",\"paths\":";
  put_paths(out, Flavor::V2, model, all);
  out += ",\"security\":";
  out += kSecurity;
  out += ",\"securityDefinitions\":";
  out += kBearerToken;
  out += ",\"swagger\":\"2.0\"}";
  built->hash = sha512_hex(built->json);

  std::lock_guard<std::mutex> lock(mu_);
  Cache& c = cache_for_locked(snapshot.generation());
  if (!c.v2) {
    c.v2 = std::move(built);
  }
  return c.v2;
}

std::shared_ptr<const OpenApi::V3Documents> OpenApi::v3_for(const registry::Snapshot& snapshot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Cache& c = cache_for_locked(snapshot.generation());
    if (c.v3) {
      return c.v3;
    }
  }
  Model model = build_model(snapshot, kind_definitions_);
  auto built = std::make_shared<V3Documents>();
  json index_paths = json::object();
  const std::string info = info_json().dump();
  for (const auto& [key, paths] : model.documents) {
    Document d;
    std::string& out = d.json;
    out += "{\"components\":{\"schemas\":";
    put_definitions(out, Flavor::V3, model, paths, definitions_v3_, refs_);
    out += ",\"securitySchemes\":";
    out += kBearerToken;
    out += "},\"info\":";
    out += info;
    out += ",\"openapi\":\"3.0.0\",\"paths\":";
    put_paths(out, Flavor::V3, model, paths);
    out += ",\"security\":";
    out += kSecurity;
    out += '}';
    d.hash = sha512_hex(d.json);
    index_paths[key] = {
        {"serverRelativeURL", std::string(kV3Path) + "/" + key + "?hash=" + d.hash}};
    built->by_gv.emplace(key, std::move(d));
  }
  built->index.json = json{{"paths", std::move(index_paths)}}.dump();
  built->index.hash = sha512_hex(built->index.json);

  std::lock_guard<std::mutex> lock(mu_);
  Cache& c = cache_for_locked(snapshot.generation());
  if (!c.v3) {
    c.v3 = std::move(built);
  }
  return c.v3;
}

std::shared_ptr<const OpenApi::ProtoDocument> OpenApi::v2_proto_for(
    const registry::Snapshot& snapshot, const Document& doc) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Cache& c = cache_for_locked(snapshot.generation());
    if (c.v2_proto && c.v2_proto->hash == doc.hash) {
      return c.v2_proto;
    }
  }
  auto built = std::make_shared<ProtoDocument>();
  built->hash = doc.hash;
  built->bytes = encode_openapi_v2(json::parse(doc.json));

  std::lock_guard<std::mutex> lock(mu_);
  Cache& c = cache_for_locked(snapshot.generation());
  if (!c.v2_proto || c.v2_proto->hash != built->hash) {
    c.v2_proto = std::move(built);
  }
  return c.v2_proto;
}

std::string OpenApi::v2_document(const registry::Snapshot& snapshot) {
  return v2_for(snapshot)->json;
}

std::string OpenApi::v3_index(const registry::Snapshot& snapshot) {
  return v3_for(snapshot)->index.json;
}

std::optional<std::string> OpenApi::v3_document(const registry::Snapshot& snapshot,
                                                const std::string& gv) {
  auto docs = v3_for(snapshot);
  auto it = docs->by_gv.find(gv);
  if (it == docs->by_gv.end()) {
    return std::nullopt;
  }
  return it->second.json;
}

std::optional<http::Response> OpenApi::serve(const http::Request& request,
                                             const registry::Snapshot& snapshot) {
  const std::string v3_prefix = std::string(kV3Path) + "/";
  try {
    if (request.path == kV2Path) {
      return serve_v2(request, snapshot);
    }
    if (request.path == kV3Path || request.path.rfind(v3_prefix, 0) == 0) {
      return serve_v3(request, snapshot);
    }
  } catch (const std::exception&) {
    http::Response r;  // building failed (out of memory): upstream answers 503
    r.status = 503;
    return r;
  }
  return std::nullopt;
}

http::Response OpenApi::serve_v2(const http::Request& request,
                                 const registry::Snapshot& snapshot) {
  const auto form = negotiate_v2(request.header("Accept"));
  if (!form) {
    return not_acceptable();
  }
  auto doc = v2_for(snapshot);
  http::Response r;
  r.set_header("Vary", "Accept");
  if (*form == V2Form::Protobuf) {
    // Same ETag as the JSON, as upstream: Vary: Accept keeps caches from mixing the two.
    auto proto = v2_proto_for(snapshot, *doc);
    return content(request, proto->bytes, doc->hash, std::move(r), kV2ProtobufContentType);
  }
  return content(request, doc->json, doc->hash, std::move(r));
}

http::Response OpenApi::serve_v3(const http::Request& request,
                                 const registry::Snapshot& snapshot) {
  auto docs = v3_for(snapshot);
  if (request.path == kV3Path) {
    return content(request, docs->index.json, docs->index.hash, http::Response{});
  }
  const std::string gv = request.path.substr(std::string(kV3Path).size() + 1);
  auto it = docs->by_gv.find(gv);
  if (it == docs->by_gv.end()) {
    return not_found();
  }
  if (!accepts_json(request.header("Accept"))) {
    return not_acceptable();
  }
  http::Response r;
  r.set_header("Vary", "Accept");
  const std::string hash = request.query_value("hash");
  if (!hash.empty()) {
    if (hash != it->second.hash) {
      const std::string location = std::string(kV3Path) + "/" + gv + "?hash=" + it->second.hash;
      r.status = 301;
      r.set_header("Location", location);
      r.set_header("Content-Type", "text/html; charset=utf-8");
      if (request.method == "GET" || request.method == "HEAD") {
        r.body = "<a href=\"" + location + "\">Moved Permanently</a>.\n\n";
      }
      return r;
    }
    r.set_header("Cache-Control", "public, immutable");
    r.set_header("Expires", http_date(clock_() + std::chrono::hours(24 * 365)));
  }
  return content(request, it->second.json, it->second.hash, std::move(r));
}

}  // namespace apiserver::endpoints
