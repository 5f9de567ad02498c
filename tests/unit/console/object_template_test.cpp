#include "console/model/object_template.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "console/model/yaml_text.h"

using console::model::ApiResource;
using console::model::duplicate_object;
using console::model::object_template;
using nlohmann::json;

namespace {

ApiResource resource(const std::string& group, const std::string& plural, const std::string& kind,
                     bool namespaced) {
  ApiResource r;
  r.group = group;
  r.version = group == "batch" || group.empty() || group == "apps" || group == "policy" ||
                      group.ends_with(".k8s.io")
                  ? "v1"
                  : "v1alpha1";
  r.resource = plural;
  r.kind = kind;
  r.singular = plural.substr(0, plural.size() - 1);
  r.namespaced = namespaced;
  return r;
}

}  // namespace

TEST_CASE("templates are named after the kind, in the namespace asked for", "[console][template]") {
  const auto [group, plural, kind, namespaced,
              body_key] = GENERATE(table<std::string, std::string, std::string, bool, std::string>({
      {"", "configmaps", "ConfigMap", true, "data"},
      {"", "secrets", "Secret", true, "stringData"},
      {"", "pods", "Pod", true, "spec"},
      {"", "services", "Service", true, "spec"},
      {"", "serviceaccounts", "ServiceAccount", true, ""},
      {"", "namespaces", "Namespace", false, ""},
      {"", "persistentvolumeclaims", "PersistentVolumeClaim", true, "spec"},
      {"apps", "deployments", "Deployment", true, "spec"},
      {"apps", "statefulsets", "StatefulSet", true, "spec"},
      {"apps", "daemonsets", "DaemonSet", true, "spec"},
      {"batch", "jobs", "Job", true, "spec"},
      {"batch", "cronjobs", "CronJob", true, "spec"},
      {"networking.k8s.io", "ingresses", "Ingress", true, "spec"},
      {"rbac.authorization.k8s.io", "roles", "Role", true, "rules"},
      {"rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", false, "roleRef"},
      {"stable.example.com", "crontabs", "CronTab", true, ""},
  }));
  CAPTURE(group, plural);
  const ApiResource r = resource(group, plural, kind, namespaced);
  const json t = object_template(r, "team");
  CHECK(t["apiVersion"] == (group.empty() ? "v1" : group + "/" + r.version));
  CHECK(t["kind"] == kind);
  CHECK(t["metadata"]["name"] == "new-" + r.singular);
  if (namespaced) {
    CHECK(t["metadata"]["namespace"] == "team");
  } else {
    CHECK_FALSE(t["metadata"].contains("namespace"));
  }
  if (body_key.empty()) {
    CHECK(t.size() == 3);  // apiVersion, kind, metadata
  } else {
    CHECK(t.contains(body_key));
  }
  // What the editor shows parses back to the same object.
  const auto parsed =
      console::model::parse_yaml(console::model::to_yaml(t, console::model::ManagedFields::Show));
  INFO((parsed ? std::string() : parsed.error()));
  REQUIRE(parsed);
  CHECK(*parsed == t);
}

TEST_CASE("workload templates select the labels of their pods", "[console][template]") {
  const json d = object_template(resource("apps", "deployments", "Deployment", true), "");
  CHECK(d["metadata"]["namespace"] == "default");  // "All namespaces" creates in default
  CHECK(d["spec"]["selector"]["matchLabels"] == d["spec"]["template"]["metadata"]["labels"]);
  CHECK(d["spec"]["template"]["spec"]["containers"][0]["name"] == "main");
  const json s = object_template(resource("", "services", "Service", true), "web");
  CHECK(s["spec"]["selector"] == json{{"app", "new-service"}});
}

TEST_CASE("a duplicate is renamed and loses what the server set", "[console][template]") {
  const json original = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", "web"},
        {"namespace", "team"},
        {"uid", "u-1"},
        {"resourceVersion", "42"},
        {"generation", 3},
        {"creationTimestamp", "2024-06-01T11:55:00Z"},
        {"managedFields", json::array({{{"manager", "kubectl"}}})},
        {"ownerReferences", json::array({{{"kind", "Deployment"}, {"name", "x"}}})},
        {"finalizers", {"example.com/hold"}},
        {"labels", {{"app", "web"}}},
        {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", "{}"}}}}},
      {"spec",
       {{"type", "NodePort"},
        {"clusterIP", "10.96.0.20"},
        {"clusterIPs", {"10.96.0.20"}},
        {"selector", {{"app", "web"}}},
        {"ports", json::array({{{"port", 80}, {"nodePort", 30080}}})}}},
      {"status", {{"loadBalancer", json::object()}}}};
  const json copy = duplicate_object(original);
  CHECK(copy == json{{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata",
                      {{"name", "web-copy"}, {"namespace", "team"}, {"labels", {{"app", "web"}}}}},
                     {"spec",
                      {{"type", "NodePort"},
                       {"selector", {{"app", "web"}}},
                       {"ports", json::array({{{"port", 80}}})}}}});
}

TEST_CASE("a duplicated Job gets a selector of its own", "[console][template]") {
  const json job = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"name", "once"},
        {"labels", {{"batch.kubernetes.io/controller-uid", "u"}, {"team", "a"}}}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"batch.kubernetes.io/controller-uid", "u"}}}}},
        {"template",
         {{"metadata",
           {{"labels",
             {{"controller-uid", "u"},
              {"batch.kubernetes.io/controller-uid", "u"},
              {"job-name", "once"},
              {"batch.kubernetes.io/job-name", "once"},
              {"team", "a"}}}}},
          {"spec", {{"restartPolicy", "Never"}}}}}}}};
  const json copy = duplicate_object(job);
  CHECK_FALSE(copy["spec"].contains("selector"));
  CHECK(copy["spec"]["template"]["metadata"]["labels"] == json{{"team", "a"}});
  CHECK(copy["metadata"]["labels"] == json{{"team", "a"}});
  CHECK(copy["metadata"]["name"] == "once-copy");
}
