#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "builtin_resources.h"
#include "registry/objects.h"
#include "registry/validation.h"

using apiserver::registry::FieldError;
using apiserver::registry::render_field_errors;
using apiserver::registry::Resource;
using apiserver::registry::validate_create;
using apiserver::registry::validate_update;
using apiserver::testing::resource;
using nlohmann::json;

namespace {

const Resource kPods = resource("", "pods", "Pod");
const Resource kServices = resource("", "services", "Service");
const Resource kSecrets = resource("", "secrets", "Secret");
const Resource kConfigMaps = resource("", "configmaps", "ConfigMap");
const Resource kDeployments = resource("apps", "deployments", "Deployment");
const Resource kJobs = resource("batch", "jobs", "Job");
const Resource kCronJobs = resource("batch", "cronjobs", "CronJob");
const Resource kRoleBindings = resource("rbac.authorization.k8s.io", "rolebindings", "RoleBinding");
const Resource kRoles = resource("rbac.authorization.k8s.io", "roles", "Role");
const Resource kNamespaces = resource("", "namespaces", "Namespace", false);
const Resource kIngresses = resource("networking.k8s.io", "ingresses", "Ingress");
const Resource kClaims = resource("", "persistentvolumeclaims", "PersistentVolumeClaim");

json meta(const std::string& name) {
  return {{"name", name}, {"namespace", "default"}};
}

json pod_spec() {
  return {{"containers", {{{"name", "web"}, {"image", "nginx"}}}},
          {"restartPolicy", "Always"},
          {"dnsPolicy", "ClusterFirst"}};
}

json pod() {
  return {{"metadata", meta("p")}, {"spec", pod_spec()}};
}

json deployment() {
  return {{"metadata", meta("web")},
          {"spec",
           {{"replicas", 1},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}, {"spec", pod_spec()}}},
            {"strategy",
             {{"type", "RollingUpdate"},
              {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}}}}}};
}

json service() {
  return {{"metadata", meta("svc")},
          {"spec",
           {{"type", "ClusterIP"},
            {"clusterIP", "10.96.0.10"},
            {"clusterIPs", {"10.96.0.10"}},
            {"selector", {{"app", "web"}}},
            {"ports", {{{"port", 80}, {"protocol", "TCP"}, {"targetPort", 8080}}}}}}};
}

json job() {
  json spec = pod_spec();
  spec["restartPolicy"] = "Never";
  return {{"metadata", meta("j")},
          {"spec",
           {{"completions", 1},
            {"parallelism", 1},
            {"backoffLimit", 6},
            {"template", {{"spec", spec}}}}}};
}

json role_binding() {
  return {{"metadata", meta("rb")},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
          {"subjects", {{{"kind", "ServiceAccount"}, {"name", "default"}}}}};
}

struct Cause {
  std::string reason;
  std::string field;
  std::string message;
};

void require_causes(const std::vector<FieldError>& got, const std::vector<Cause>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].reason == want[i].reason);
    CHECK(got[i].field == want[i].field);
    CHECK(got[i].message == want[i].message);
  }
}

}  // namespace

TEST_CASE("valid objects produce no field errors", "[validation]") {
  json secret = {{"metadata", meta("tls")},
                 {"type", "kubernetes.io/tls"},
                 {"data", {{"tls.crt", "Y2VydA=="}, {"tls.key", "a2V5"}}}};
  json cm = {{"metadata", meta("cm")}, {"data", {{"a.b", "1"}}}};
  json cron = {{"metadata", meta("c")},
               {"spec",
                {{"schedule", "*/5 * * * *"},
                 {"concurrencyPolicy", "Allow"},
                 {"jobTemplate", {{"spec", job()["spec"]}}}}}};
  json role = {{"metadata", meta("r")},
               {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}}}}};
  json ns = {{"metadata", {{"name", "team-a"}}}};
  json ingress = {
      {"metadata", meta("i")},
      {"spec",
       {{"rules",
         {{{"host", "example.com"},
           {"http",
            {{"paths",
              {{{"path", "/"},
                {"pathType", "Prefix"},
                {"backend",
                 {{"service", {{"name", "svc"}, {"port", {{"number", 80}}}}}}}}}}}}}}}}}};
  json claim = {
      {"metadata", meta("data")},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  struct Case {
    const char* what;
    Resource r;
    json object;
  };
  auto c = GENERATE_COPY(values<Case>({
      {"pod", kPods, pod()},
      {"service", kServices, service()},
      {"tls secret", kSecrets, secret},
      {"config map", kConfigMaps, cm},
      {"deployment", kDeployments, deployment()},
      {"job", kJobs, job()},
      {"cron job", kCronJobs, cron},
      {"role", kRoles, role},
      {"role binding", kRoleBindings, role_binding()},
      {"namespace", kNamespaces, ns},
      {"ingress", kIngresses, ingress},
      {"claim", kClaims, claim},
  }));
  CAPTURE(c.what);
  auto errors = validate_create(c.r, c.object);
  CAPTURE(render_field_errors(errors));
  CHECK(errors.empty());
  CHECK(validate_update(c.r, c.object, c.object).empty());
}

TEST_CASE("invalid objects are answered with upstream's causes", "[validation]") {
  struct Case {
    const char* what;
    Resource r;
    json object;
    std::string rendered;
    std::vector<Cause> causes;
  };
  json no_containers = pod();
  no_containers["spec"]["containers"] = json::array();
  json mismatch = deployment();
  mismatch["spec"]["template"]["metadata"]["labels"] = {{"app", "other"}};
  json tls = {{"metadata", meta("tls")},
              {"type", "kubernetes.io/tls"},
              {"data", {{"tls.crt", "Y2VydA=="}}}};
  json big_port = service();
  big_port["spec"]["ports"][0]["port"] = 70000;
  json always_job = job();
  always_job["spec"]["template"]["spec"]["restartPolicy"] = "Always";
  json bad_label = pod();
  bad_label["metadata"]["labels"] = {{"-bad", "ok"}};
  json bad_value = pod();
  bad_value["metadata"]["labels"] = {{"app", "a b"}};
  json no_image = pod();
  no_image["spec"]["containers"][0].erase("image");
  json bad_cron = {{"metadata", meta("c")},
                   {"spec",
                    {{"schedule", "not a cron"},
                     {"concurrencyPolicy", "Allow"},
                     {"jobTemplate", {{"spec", job()["spec"]}}}}}};
  json bad_ref = role_binding();
  bad_ref["roleRef"]["kind"] = "Thing";
  json no_verbs = {{"metadata", meta("r")},
                   {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}}}}};
  json bad_ns = {{"metadata", {{"name", "Team_A"}}}};
  json overlap = {
      {"metadata", meta("cm")}, {"data", {{"k", "v"}}}, {"binaryData", {{"k", "dg=="}}}};
  json no_storage = {{"metadata", meta("data")}, {"spec", {{"accessModes", {"ReadWriteOnce"}}}}};
  json requests_over = pod();
  requests_over["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "2"}}},
                                                         {"limits", {{"cpu", "1"}}}};
  json missing_volume = pod();
  missing_volume["spec"]["containers"][0]["volumeMounts"] = {
      {{"name", "data"}, {"mountPath", "/data"}}};

  const std::string kLabelValue =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const std::string kLabelKey =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
      "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
      "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const std::string kNsLabel =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
      "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

  auto c = GENERATE_COPY(values<Case>({
      {"pod without containers",
       kPods,
       no_containers,
       "spec.containers: Required value",
       {{"FieldValueRequired", "spec.containers", "Required value"}}},
      {"container without image",
       kPods,
       no_image,
       "spec.containers[0].image: Required value",
       {{"FieldValueRequired", "spec.containers[0].image", "Required value"}}},
      {"deployment selector not matching the template",
       kDeployments,
       mismatch,
       "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: "
       "`selector` does not match template `labels`",
       {{"FieldValueInvalid", "spec.template.metadata.labels",
         "Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match "
         "template `labels`"}}},
      {"tls secret without tls.key",
       kSecrets,
       tls,
       "data[tls.key]: Required value",
       {{"FieldValueRequired", "data[tls.key]", "Required value"}}},
      {"service port 70000",
       kServices,
       big_port,
       "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
       {{"FieldValueInvalid", "spec.ports[0].port",
         "Invalid value: 70000: must be between 1 and 65535, inclusive"}}},
      {"job with restartPolicy Always",
       kJobs,
       always_job,
       "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: "
       "\"OnFailure\", \"Never\"",
       {{"FieldValueNotSupported", "spec.template.spec.restartPolicy",
         "Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\""}}},
      {"bad label key",
       kPods,
       bad_label,
       "metadata.labels: Invalid value: \"-bad\": " + kLabelKey,
       {{"FieldValueInvalid", "metadata.labels", "Invalid value: \"-bad\": " + kLabelKey}}},
      {"bad label value",
       kPods,
       bad_value,
       "metadata.labels: Invalid value: \"a b\": " + kLabelValue,
       {{"FieldValueInvalid", "metadata.labels", "Invalid value: \"a b\": " + kLabelValue}}},
      {"invalid cron schedule",
       kCronJobs,
       bad_cron,
       "spec.schedule: Invalid value: \"not a cron\": expected exactly 5 fields, found 3: [not "
       "a cron]",
       {{"FieldValueInvalid", "spec.schedule",
         "Invalid value: \"not a cron\": expected exactly 5 fields, found 3: [not a cron]"}}},
      {"role binding to an unknown kind",
       kRoleBindings,
       bad_ref,
       "roleRef.kind: Unsupported value: \"Thing\": supported values: \"Role\", \"ClusterRole\"",
       {{"FieldValueNotSupported", "roleRef.kind",
         "Unsupported value: \"Thing\": supported values: \"Role\", \"ClusterRole\""}}},
      {"role rule without verbs",
       kRoles,
       no_verbs,
       "rules[0].verbs: Required value: verbs must contain at least one value",
       {{"FieldValueRequired", "rules[0].verbs",
         "Required value: verbs must contain at least one value"}}},
      {"namespace name not a DNS label",
       kNamespaces,
       bad_ns,
       "metadata.name: Invalid value: \"Team_A\": " + kNsLabel,
       {{"FieldValueInvalid", "metadata.name", "Invalid value: \"Team_A\": " + kNsLabel}}},
      {"config map key in data and binaryData",
       kConfigMaps,
       overlap,
       "binaryData[k]: Invalid value: \"k\": duplicate of key present in data",
       {{"FieldValueInvalid", "binaryData[k]",
         "Invalid value: \"k\": duplicate of key present in data"}}},
      {"claim without storage request",
       kClaims,
       no_storage,
       "spec.resources[storage]: Required value",
       {{"FieldValueRequired", "spec.resources[storage]", "Required value"}}},
      {"requests above limits",
       kPods,
       requests_over,
       "spec.containers[0].resources.requests[cpu]: Invalid value: \"2\": must be less than or "
       "equal to cpu limit of 1",
       {{"FieldValueInvalid", "spec.containers[0].resources.requests[cpu]",
         "Invalid value: \"2\": must be less than or equal to cpu limit of 1"}}},
      {"mount of a missing volume",
       kPods,
       missing_volume,
       "spec.containers[0].volumeMounts[0].name: Not found: \"data\"",
       {{"FieldValueNotFound", "spec.containers[0].volumeMounts[0].name", "Not found: \"data\""}}},
  }));
  CAPTURE(c.what);
  auto errors = validate_create(c.r, c.object);
  CHECK(render_field_errors(errors) == c.rendered);
  require_causes(errors, c.causes);
}

TEST_CASE("updates keep immutable fields", "[validation]") {
  SECTION("a changed Service clusterIP") {
    json now = service();
    now["spec"]["clusterIP"] = "10.96.0.11";
    now["spec"]["clusterIPs"] = {"10.96.0.11"};
    auto errors = validate_update(kServices, now, service());
    CHECK(render_field_errors(errors) ==
          "spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.11\"}: may not change once set");
    require_causes(errors, {{"FieldValueInvalid", "spec.clusterIPs[0]",
                             "Invalid value: []string{\"10.96.0.11\"}: may not change once set"}});
  }
  SECTION("a changed RoleBinding roleRef") {
    json now = role_binding();
    now["roleRef"]["name"] = "edit";
    auto errors = validate_update(kRoleBindings, now, role_binding());
    const std::string message =
        "Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
        "Kind:\"ClusterRole\", Name:\"edit\"}: cannot change roleRef";
    CHECK(render_field_errors(errors) == "roleRef: " + message);
    require_causes(errors, {{"FieldValueInvalid", "roleRef", message}});
  }
  SECTION("a changed Deployment selector") {
    json now = deployment();
    now["spec"]["selector"]["matchLabels"]["tier"] = "fe";
    now["spec"]["template"]["metadata"]["labels"]["tier"] = "fe";
    auto errors = validate_update(kDeployments, now, deployment());
    const std::string message =
        "Invalid value: &LabelSelector{MatchLabels:map[string]string{app: web,tier: fe,},"
        "MatchExpressions:[]LabelSelectorRequirement{},}: field is immutable";
    CHECK(render_field_errors(errors) == "spec.selector: " + message);
    require_causes(errors, {{"FieldValueInvalid", "spec.selector", message}});
  }
  SECTION("a Pod spec change other than the image") {
    json now = pod();
    now["spec"]["containers"][0]["image"] = "nginx:2";
    CHECK(validate_update(kPods, now, pod()).empty());
    now["spec"]["restartPolicy"] = "Never";
    auto errors = validate_update(kPods, now, pod());
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].reason == "FieldValueForbidden");
    CHECK(errors[0].field == "spec");
    CHECK(errors[0].message.rfind("Forbidden: pod updates may not change fields other than "
                                  "`spec.containers[*].image`,",
                                  0) == 0);
  }
  SECTION("an immutable Secret's data") {
    json old = {{"metadata", meta("s")}, {"immutable", true}, {"data", {{"a", "YQ=="}}}};
    json now = old;
    now["data"]["a"] = "Yg==";
    auto errors = validate_update(kSecrets, now, old);
    CHECK(render_field_errors(errors) ==
          "data: Forbidden: field is immutable when `immutable` is set");
  }
}
