// The operation model built from a snapshot: each served resource's paths and operations (verbs,
// subresources, parameters, replies, operation ids and tags as upstream names them), the
// discovery paths, and definitions generated for kinds the facts lack.
#include "endpoints/openapi_model.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "registry/custom_resources.h"

namespace apiserver::endpoints::openapi_detail {

const Strings& plain_consumes() {
  static const Strings v{"*/*"};
  return v;
}
const Strings& object_produces() {
  static const Strings v{"application/json", "application/yaml",
                         "application/vnd.kubernetes.protobuf", "application/cbor"};
  return v;
}

namespace {

constexpr const char* kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

const Strings& patch_consumes() {
  static const Strings v{"application/json-patch+json", "application/merge-patch+json",
                         "application/strategic-merge-patch+json", "application/apply-patch+yaml",
                         "application/apply-patch+cbor"};
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

Param path_param(const std::string& name) {
  return {name, "path", "string", true, ""};
}
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
  return {query("allowWatchBookmarks", "boolean"),
          query("continue"),
          query("fieldSelector"),
          query("labelSelector"),
          query("limit", "integer"),
          query("resourceVersion"),
          query("resourceVersionMatch"),
          query("sendInitialEvents", "boolean"),
          query("timeoutSeconds", "integer"),
          query("watch", "boolean")};
}
std::vector<Param> write_params(const std::string& definition) {
  return {body(definition, true), query("dryRun"), query("fieldManager"), query("fieldValidation")};
}
std::vector<Param> patch_params() {
  return {body(std::string(kMetaPrefix) + "Patch", true), query("dryRun"), query("fieldManager"),
          query("fieldValidation"), query("force", "boolean")};
}
std::vector<Param> delete_params() {
  return {body(std::string(kMetaPrefix) + "DeleteOptions", false),
          query("dryRun"),
          query("gracePeriodSeconds", "integer"),
          query("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean"),
          query("orphanDependents", "boolean"),
          query("propagationPolicy")};
}
std::vector<Param> delete_collection_params() {
  std::vector<Param> p = delete_params();
  for (const char* name :
       {"continue", "fieldSelector", "labelSelector", "resourceVersion", "resourceVersionMatch"}) {
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
    return {query("command"),          query("container"),         query("stderr", "boolean"),
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
    const std::string prefix =
        r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
    doc_ = gv_key(r.group, r.version);
    tag_ =
        r.group.empty() ? "core_" + r.version : lower_first(group_word(r.group)) + "_" + r.version;
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
      add(collection,
          op("post", "create" + gv_word_ + scope + r.kind, "post", gvk, base, write_params(def),
             &object_produces(), {{"200", def}, {"201", def}, {"202", def}}));
    }
    if (r.has_verb("deletecollection")) {
      add(collection,
          op("delete", "delete" + gv_word_ + "Collection" + scope + r.kind, "deletecollection", gvk,
             base, delete_collection_params(), &object_produces(), {{"200", status}}));
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
          op("get", "list" + gv_word_ + r.kind + "ForAllNamespaces", "list", gvk, {query("pretty")},
             list_params(), &list_produces(), {{"200", list_def}}));
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
        add("/" + doc_ + "/",
            discovery_op("get" + group_word(g.name) + upper_first(v) + "APIResources",
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
        static const std::map<std::string, std::string> kMethod = {{"get", "get"},
                                                                   {"create", "post"},
                                                                   {"update", "put"},
                                                                   {"patch", "patch"},
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
        add(path,
            op("post", "create" + gv_word_ + scope + word, "post", s.kind, named, write_params(def),
               &object_produces(), {{"200", def}, {"201", def}, {"202", def}}));
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

}  // namespace

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

}  // namespace apiserver::endpoints::openapi_detail
