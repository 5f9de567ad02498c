#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/facts.h"

using nlohmann::json;

namespace {

const json& resources_doc() {
  static const json doc = json::parse(apiserver::facts::resources_json());
  return doc;
}

const json& definitions() {
  static const json doc = json::parse(apiserver::facts::schemas_json());
  return doc.at("definitions");
}

// The row for group/version/resource; fails the test when it is missing.
const json& row(const std::string& group, const std::string& version, const std::string& resource) {
  for (const auto& r : resources_doc().at("resources")) {
    if (r.at("group") == group && r.at("version") == version && r.at("resource") == resource) {
      return r;
    }
  }
  FAIL("no row for " << group << "/" << version << " " << resource);
  throw std::logic_error("unreachable");
}

const json* subresource(const json& r, const std::string& name) {
  for (const auto& s : r.at("subresources")) {
    if (s.at("name") == name) {
      return &s;
    }
  }
  return nullptr;
}

std::vector<std::string> strings(const json& array) {
  return array.get<std::vector<std::string>>();
}

std::vector<std::string> column_names(const json& columns) {
  std::vector<std::string> names;
  for (const auto& c : columns) {
    names.push_back(c.at("name"));
  }
  return names;
}

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};

// Collects every place a "description" key appears, except a property *named* description (an
// object inside a properties map, e.g. JSONSchemaProps.description), which is a field, not prose.
void find_descriptions(const json& value, const std::string& where, bool in_properties,
                       std::vector<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (key == "description" && !(in_properties && child.is_object())) {
        out.push_back(where);
      }
      find_descriptions(child, where + "." + key, key == "properties", out);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) {
      find_descriptions(child, where + "[]", false, out);
    }
  }
}

void collect_refs(const json& value, std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      // JSONSchemaProps has a field named $ref: its value is a property schema, not a reference.
      if (key == "$ref" && child.is_string()) {
        out.insert(child.get<std::string>());
      } else {
        collect_refs(child, out);
      }
    }
  } else if (value.is_array()) {
    for (const auto& child : value) {
      collect_refs(child, out);
    }
  }
}

}  // namespace

TEST_CASE("the embedded facts are the committed JSON documents", "[apiserver][facts]") {
  REQUIRE_FALSE(apiserver::facts::resources_json().empty());
  REQUIRE_FALSE(apiserver::facts::schemas_json().empty());
  CHECK(apiserver::facts::resources_json().front() == '{');
  CHECK(apiserver::facts::schemas_json().front() == '{');
  REQUIRE_NOTHROW(resources_doc());
  REQUIRE_NOTHROW(definitions());
  CHECK(resources_doc().at("kubernetes_version") == "v1.32");
  CHECK(resources_doc().at("resources").size() == 80);
  CHECK(definitions().size() == 638);
}

TEST_CASE("pods are namespaced core/v1 Pods with their subresources", "[apiserver][facts]") {
  const json& pods = row("", "v1", "pods");
  CHECK(pods.at("kind") == "Pod");
  CHECK(pods.at("singular_name") == "pod");
  CHECK(pods.at("namespaced") == true);
  CHECK(pods.at("stability") == "ga");
  CHECK(pods.at("default_enabled") == true);
  CHECK(strings(pods.at("verbs")) == kAllVerbs);
  CHECK(strings(pods.at("short_names")) == std::vector<std::string>{"po"});
  CHECK(strings(pods.at("categories")) == std::vector<std::string>{"all"});
  CHECK(pods.at("etcd_prefix") == "/registry/pods");

  for (const char* name : {"status", "log", "exec", "attach", "portforward", "proxy", "binding",
                           "eviction", "ephemeralcontainers"}) {
    CAPTURE(name);
    const json* sub = subresource(pods, name);
    REQUIRE(sub != nullptr);
    CHECK(sub->at("default_enabled") == true);
  }
  CHECK(strings(subresource(pods, "status")->at("verbs")) ==
        std::vector<std::string>{"get", "patch", "update"});
  CHECK(strings(subresource(pods, "log")->at("verbs")) == std::vector<std::string>{"get"});
  CHECK(strings(subresource(pods, "exec")->at("verbs")) ==
        std::vector<std::string>{"create", "get"});
  CHECK(subresource(pods, "exec")->at("kind").at("kind") == "PodExecOptions");
  CHECK(strings(subresource(pods, "binding")->at("verbs")) == std::vector<std::string>{"create"});
  CHECK(subresource(pods, "binding")->at("kind") ==
        json{{"group", ""}, {"version", "v1"}, {"kind", "Binding"}});
  CHECK(subresource(pods, "eviction")->at("kind") ==
        json{{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}});

  // The resize subresource exists in the document but its feature gate is off in v1.32.
  const json* resize = subresource(pods, "resize");
  REQUIRE(resize != nullptr);
  CHECK(resize->at("default_enabled") == false);
  CHECK(resize->at("feature_gate") == "InPlacePodVerticalScaling");
}

TEST_CASE("deployments are apps/v1 with scale and status", "[apiserver][facts]") {
  const json& deployments = row("apps", "v1", "deployments");
  CHECK(deployments.at("kind") == "Deployment");
  CHECK(deployments.at("namespaced") == true);
  CHECK(strings(deployments.at("short_names")) == std::vector<std::string>{"deploy"});
  CHECK(strings(deployments.at("categories")) == std::vector<std::string>{"all"});
  REQUIRE(subresource(deployments, "status") != nullptr);
  CHECK(subresource(deployments, "status")->at("kind").at("kind") == "Deployment");
  const json* scale = subresource(deployments, "scale");
  REQUIRE(scale != nullptr);
  CHECK(scale->at("kind") == json{{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}});
  CHECK(strings(scale->at("verbs")) == std::vector<std::string>{"get", "patch", "update"});
  CHECK(column_names(scale->at("table_columns")) ==
        std::vector<std::string>{"Name", "Desired", "Available", "Age"});
}

TEST_CASE("namespaces are cluster-scoped with finalize and status", "[apiserver][facts]") {
  const json& namespaces = row("", "v1", "namespaces");
  CHECK(namespaces.at("namespaced") == false);
  CHECK(strings(namespaces.at("short_names")) == std::vector<std::string>{"ns"});
  // No deletecollection on namespaces.
  CHECK(strings(namespaces.at("verbs")) ==
        std::vector<std::string>{"create", "delete", "get", "list", "patch", "update", "watch"});
  const json* finalize = subresource(namespaces, "finalize");
  REQUIRE(finalize != nullptr);
  CHECK(strings(finalize->at("verbs")) == std::vector<std::string>{"update"});
  CHECK(subresource(namespaces, "status") != nullptr);
}

TEST_CASE("short names of common kinds", "[apiserver][facts]") {
  auto [group, version, resource, short_name] =
      GENERATE(table<std::string, std::string, std::string, std::string>({
          {"", "v1", "services", "svc"},
          {"", "v1", "configmaps", "cm"},
          {"", "v1", "nodes", "no"},
          {"", "v1", "persistentvolumeclaims", "pvc"},
          {"", "v1", "serviceaccounts", "sa"},
          {"apps", "v1", "statefulsets", "sts"},
          {"apps", "v1", "daemonsets", "ds"},
          {"batch", "v1", "cronjobs", "cj"},
          {"autoscaling", "v2", "horizontalpodautoscalers", "hpa"},
          {"networking.k8s.io", "v1", "ingresses", "ing"},
          {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "crd"},
      }));
  CAPTURE(group, version, resource);
  CHECK(contains(strings(row(group, version, resource).at("short_names")), short_name));
}

TEST_CASE("etcd key prefixes follow kube-apiserver's layout", "[apiserver][facts]") {
  auto [group, resource, prefix] = GENERATE(table<std::string, std::string, std::string>({
      {"", "pods", "/registry/pods"},
      {"", "nodes", "/registry/minions"},
      {"", "services", "/registry/services/specs"},
      {"", "endpoints", "/registry/services/endpoints"},
      {"", "replicationcontrollers", "/registry/controllers"},
      {"networking.k8s.io", "ingresses", "/registry/ingress"},
      {"apiextensions.k8s.io", "customresourcedefinitions",
       "/registry/apiextensions.k8s.io/customresourcedefinitions"},
      {"apiregistration.k8s.io", "apiservices", "/registry/apiregistration.k8s.io/apiservices"},
      {"apps", "deployments", "/registry/deployments"},
      {"events.k8s.io", "events", "/registry/events"},
  }));
  CAPTURE(group, resource);
  CHECK(row(group, "v1", resource).at("etcd_prefix") == prefix);
}

TEST_CASE("resources that are never stored have no etcd prefix", "[apiserver][facts]") {
  CHECK(row("", "v1", "bindings").at("etcd_prefix").is_null());
  CHECK(row("", "v1", "componentstatuses").at("etcd_prefix").is_null());
  CHECK(row("authorization.k8s.io", "v1", "subjectaccessreviews").at("etcd_prefix").is_null());
  CHECK(strings(row("authentication.k8s.io", "v1", "tokenreviews").at("verbs")) ==
        std::vector<std::string>{"create"});
}

TEST_CASE("GA versions are served by default, alpha and beta are not", "[apiserver][facts]") {
  std::size_t enabled = 0;
  std::set<std::string> enabled_group_resources;
  for (const auto& r : resources_doc().at("resources")) {
    CAPTURE(r.at("group"), r.at("version"), r.at("resource"));
    const bool ga = r.at("stability") == "ga";
    CHECK(r.at("default_enabled") == ga);
    if (ga) {
      ++enabled;
      enabled_group_resources.insert(r.at("resource").get<std::string>() + "." +
                                     r.at("group").get<std::string>());
    }
  }
  // 59 rows: autoscaling serves horizontalpodautoscalers in both v1 and v2.
  CHECK(enabled == 59);
  CHECK(enabled_group_resources.size() == 58);

  CHECK(row("flowcontrol.apiserver.k8s.io", "v1", "flowschemas").at("default_enabled") == true);
  CHECK(row("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations")
            .at("default_enabled") == true);
  CHECK(row("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies")
            .at("default_enabled") == true);
  CHECK(row("admissionregistration.k8s.io", "v1beta1", "validatingadmissionpolicies")
            .at("default_enabled") == false);
  CHECK(row("admissionregistration.k8s.io", "v1alpha1", "mutatingadmissionpolicies")
            .at("stability") == "alpha");
  CHECK(row("resource.k8s.io", "v1beta1", "resourceclaims").at("default_enabled") == false);
  CHECK(row("storage.k8s.io", "v1beta1", "volumeattributesclasses").at("default_enabled") == false);
  CHECK(row("networking.k8s.io", "v1beta1", "servicecidrs").at("stability") == "beta");
  CHECK(row("coordination.k8s.io", "v1alpha2", "leasecandidates").at("default_enabled") == false);
}

TEST_CASE("groups list their versions preferred first", "[apiserver][facts]") {
  const json& groups = resources_doc().at("groups");
  REQUIRE(groups.size() == 23);
  CHECK(groups.at(0).at("name") == "");
  for (const auto& g : groups) {
    if (g.at("name") == "autoscaling") {
      CHECK(g.at("preferred_version") == "v2");
      CHECK(g.at("versions").at(0).at("version") == "v2");
      CHECK(g.at("versions").at(1).at("version") == "v1");
    }
    if (g.at("name") == "resource.k8s.io") {
      CHECK(g.at("versions").at(0).at("version") == "v1beta1");
      CHECK(g.at("versions").at(0).at("default_enabled") == false);
    }
  }
}

TEST_CASE("field selectors per kind", "[apiserver][facts]") {
  const json& pods = row("", "v1", "pods").at("field_selectors");
  CHECK(contains(strings(pods.at("labels")), "spec.nodeName"));
  CHECK(contains(strings(pods.at("labels")), "status.podIPs"));
  CHECK(pods.at("aliases").at("spec.host") == "spec.nodeName");
  CHECK(pods.at("error_style") == "core");

  const json& nodes = row("", "v1", "nodes").at("field_selectors");
  CHECK(strings(nodes.at("labels")) ==
        std::vector<std::string>{"metadata.name", "spec.unschedulable"});

  const json& jobs = row("batch", "v1", "jobs").at("field_selectors");
  CHECK(contains(strings(jobs.at("labels")), "status.successful"));
  CHECK(jobs.at("error_style") == "batch");

  // apps/v1 registers no conversion: only the defaults, even status.replicas on ReplicaSets.
  const json& replicasets = row("apps", "v1", "replicasets").at("field_selectors");
  CHECK(strings(replicasets.at("labels")) ==
        std::vector<std::string>{"metadata.name", "metadata.namespace"});
  CHECK(replicasets.at("error_style") == "default");
}

TEST_CASE("Table columns per kind", "[apiserver][facts]") {
  const json& pod_columns = row("", "v1", "pods").at("table_columns");
  CHECK(column_names(pod_columns) == std::vector<std::string>{"Name", "Ready", "Status", "Restarts",
                                                              "Age", "IP", "Node", "Nominated Node",
                                                              "Readiness Gates"});
  CHECK(pod_columns.at(0) ==
        json{{"name", "Name"}, {"type", "string"}, {"format", "name"}, {"priority", 0}});
  CHECK(pod_columns.at(5).at("priority") == 1);

  // Both Event kinds print the core Event columns; Name comes last and only with -o wide.
  const json& events = row("events.k8s.io", "v1", "events").at("table_columns");
  CHECK(events == row("", "v1", "events").at("table_columns"));
  CHECK(events.back() ==
        json{{"name", "Name"}, {"type", "string"}, {"format", "name"}, {"priority", 1}});

  const json& replicasets = row("apps", "v1", "replicasets").at("table_columns");
  CHECK(replicasets.at(1) ==
        json{{"name", "Desired"}, {"type", "integer"}, {"format", ""}, {"priority", 0}});

  // Kinds without a printer get the default table.
  const json& roles = row("rbac.authorization.k8s.io", "v1", "roles").at("table_columns");
  CHECK(roles == json::parse(R"([{"name":"Name","type":"string","format":"name","priority":0},
                                 {"name":"Created At","type":"date","format":"","priority":0}])"));
}

TEST_CASE("the Pod schema carries the merge facts of spec.containers", "[apiserver][facts]") {
  const json& pod = definitions().at("io.k8s.api.core.v1.Pod");
  CHECK(pod.at("x-kubernetes-group-version-kind") ==
        json::parse(R"([{"group":"","kind":"Pod","version":"v1"}])"));
  CHECK(pod.at("properties").at("spec").at("$ref") == "io.k8s.api.core.v1.PodSpec");

  const json& spec = definitions().at("io.k8s.api.core.v1.PodSpec");
  CHECK(contains(strings(spec.at("required")), "containers"));
  const json& containers = spec.at("properties").at("containers");
  CHECK(containers.at("type") == "array");
  CHECK(containers.at("items").at("$ref") == "io.k8s.api.core.v1.Container");
  CHECK(containers.at("x-kubernetes-patch-merge-key") == "name");
  CHECK(containers.at("x-kubernetes-patch-strategy") == "merge");
  CHECK(containers.at("x-kubernetes-list-type") == "map");
  CHECK(strings(containers.at("x-kubernetes-list-map-keys")) == std::vector<std::string>{"name"});

  const json& int_or_string = definitions().at("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  CHECK(int_or_string.at("format") == "int-or-string");
  const json& labels = definitions()
                           .at("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
                           .at("properties")
                           .at("labels");
  CHECK(labels.at("additionalProperties").at("type") == "string");
}

TEST_CASE("schemas.json carries no description strings", "[apiserver][facts]") {
  std::vector<std::string> found;
  find_descriptions(definitions(), "definitions", false, found);
  CHECK(found.empty());
  // JSONSchemaProps has a field named description: kept as a field, without prose.
  const json& props = definitions()
                          .at("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
                              "JSONSchemaProps")
                          .at("properties")
                          .at("description");
  CHECK(props == json{{"type", "string"}});
}

TEST_CASE("every $ref resolves and every served kind has its definition", "[apiserver][facts]") {
  std::set<std::string> refs;
  collect_refs(definitions(), refs);
  for (const auto& ref : refs) {
    CAPTURE(ref);
    CHECK(definitions().contains(ref));
  }
  for (const auto& r : resources_doc().at("resources")) {
    CAPTURE(r.at("group"), r.at("version"), r.at("kind"));
    const json want = {
        {"group", r.at("group")}, {"version", r.at("version")}, {"kind", r.at("kind")}};
    bool found = false;
    for (const auto& [name, definition] : definitions().items()) {
      if (definition.contains("x-kubernetes-group-version-kind")) {
        for (const auto& gvk : definition.at("x-kubernetes-group-version-kind")) {
          found = found || gvk == want;
        }
      }
    }
    CHECK(found);
  }
}
