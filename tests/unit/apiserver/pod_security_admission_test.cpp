// The PodSecurity admission plugin over namespaces and pods it is given: enforce refuses pods,
// warn warns, audit annotates, workloads are never refused, namespace labels are validated and
// tightening one warns about the pods already there.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/plugins/pod_security/admission.h"
#include "builtin_resources.h"

namespace {

namespace admission = apiserver::admission;
using nlohmann::json;

using apiserver::testing::resource;

struct Fixture {
  std::map<std::string, json> namespaces;
  std::map<std::string, std::vector<json>> pods;
  std::unique_ptr<admission::Plugin> plugin = admission::pod_security::make_plugin(
      [this](const std::string& name) -> std::optional<json> {
        auto it = namespaces.find(name);
        return it == namespaces.end() ? std::nullopt : std::optional<json>(it->second);
      },
      [this](const std::string& ns) { return pods[ns]; });
  apiserver::registry::Resource pods_resource = resource("", "pods", "Pod", true);
  apiserver::registry::Resource namespaces_resource =
      resource("", "namespaces", "Namespace", false);
  apiserver::registry::Resource deployments = resource("apps", "deployments", "Deployment", true);

  void label(const std::string& ns, json labels) {
    namespaces[ns] = {{"metadata", {{"name", ns}, {"labels", std::move(labels)}}}};
  }
};

json pod(const std::string& name, json spec_extra = json::object()) {
  json spec = {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}};
  spec.update(spec_extra);
  return {{"metadata", {{"name", name}, {"namespace", "ns"}}}, {"spec", spec}};
}

json privileged_pod(const std::string& name) {
  return pod(
      name, {{"containers",
              {{{"name", "c"}, {"image", "nginx"}, {"securityContext", {{"privileged", true}}}}}}});
}

admission::Attributes attrs(const apiserver::registry::Resource& r, admission::Operation op,
                            json* object, const json* old = nullptr) {
  admission::Attributes a;
  a.operation = op;
  a.resource = &r;
  a.namespace_ = r.namespaced ? "ns" : "";
  a.name = (*object)["metadata"].value("name", "");
  a.object = object;
  a.old_object = old;
  return a;
}

std::map<std::string, std::string> annotations(const admission::Attributes& a) {
  return {a.audit_annotations.begin(), a.audit_annotations.end()};
}

const std::string kBaselineDetail =
    "privileged (container \"c\" must not set securityContext.privileged=true)";

}  // namespace

TEST_CASE("PodSecurity enforce refuses a violating pod", "[podsecurity]") {
  Fixture f;
  f.label("ns", {{"pod-security.kubernetes.io/enforce", "baseline"}});
  json p = privileged_pod("x");
  auto a = attrs(f.pods_resource, admission::Operation::Create, &p);
  std::string note;
  auto refused = f.plugin->validate(a, note);
  REQUIRE(refused);
  CHECK(refused->code == 403);
  CHECK(refused->reason == "Forbidden");
  CHECK(refused->message ==
        "pods \"x\" is forbidden: violates PodSecurity \"baseline:latest\": " + kBaselineDetail);
  CHECK(a.warnings.empty());
  CHECK(annotations(a) == std::map<std::string, std::string>{
                              {"pod-security.kubernetes.io/enforce-policy", "baseline:latest"}});
  CHECK(note == "enforce baseline:latest: 1 violation");

  json ok = pod("y");
  auto b = attrs(f.pods_resource, admission::Operation::Create, &ok);
  CHECK_FALSE(f.plugin->validate(b, note));
  CHECK(note == "enforce baseline:latest: allowed");
}

TEST_CASE("PodSecurity warn and audit", "[podsecurity]") {
  Fixture f;
  f.label("ns", {{"pod-security.kubernetes.io/warn", "restricted"},
                 {"pod-security.kubernetes.io/audit", "baseline"},
                 {"pod-security.kubernetes.io/audit-version", "v1.25"}});
  json p = privileged_pod("x");
  auto a = attrs(f.pods_resource, admission::Operation::Create, &p);
  std::string note;
  CHECK_FALSE(f.plugin->validate(a, note));
  REQUIRE(a.warnings.size() == 1);
  CHECK(
      a.warnings[0] ==
      "would violate PodSecurity \"restricted:latest\": " + kBaselineDetail +
          ", allowPrivilegeEscalation != false (container \"c\" must set "
          "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "
          "\"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod "
          "or container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod "
          "or container \"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" "
          "or \"Localhost\")");
  CHECK(annotations(a) ==
        std::map<std::string, std::string>{
            {"pod-security.kubernetes.io/enforce-policy", "privileged:latest"},
            {"pod-security.kubernetes.io/audit-violations",
             "would violate PodSecurity \"baseline:v1.25\": " + kBaselineDetail}});
  CHECK(note ==
        "enforce privileged:latest: allowed; audit baseline:v1.25: 1 violation; warn "
        "restricted:latest: 5 violations");
}

TEST_CASE("PodSecurity in a privileged namespace only names the policy", "[podsecurity]") {
  Fixture f;
  f.label("ns", json::object());
  json p = privileged_pod("x");
  auto a = attrs(f.pods_resource, admission::Operation::Create, &p);
  std::string note;
  CHECK_FALSE(f.plugin->validate(a, note));
  CHECK(a.warnings.empty());
  CHECK(annotations(a) == std::map<std::string, std::string>{
                              {"pod-security.kubernetes.io/enforce-policy", "privileged:latest"}});
}

TEST_CASE("PodSecurity evaluates a namespace whose labels do not parse as restricted",
          "[podsecurity]") {
  Fixture f;
  f.label("ns", {{"pod-security.kubernetes.io/enforce", "strict"}});
  json p = pod("x");
  auto a = attrs(f.pods_resource, admission::Operation::Create, &p);
  std::string note;
  auto refused = f.plugin->validate(a, note);
  REQUIRE(refused);
  CHECK(
      refused->message.rfind("pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\": "
                             "allowPrivilegeEscalation != false",
                             0) == 0);
  CHECK(annotations(a).at("pod-security.kubernetes.io/error") ==
        "Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid "
        "value: \"strict\": must be one of privileged, baseline, restricted");
}

TEST_CASE("PodSecurity re-evaluates only significant pod updates", "[podsecurity]") {
  Fixture f;
  f.label("ns", {{"pod-security.kubernetes.io/enforce", "baseline"}});
  const json old = privileged_pod("x");
  std::string note;
  SECTION("labels only: admitted") {
    json now = old;
    now["metadata"]["labels"] = {{"a", "b"}};
    auto a = attrs(f.pods_resource, admission::Operation::Update, &now, &old);
    CHECK_FALSE(f.plugin->validate(a, note));
  }
  SECTION("a new image: evaluated") {
    json now = old;
    now["spec"]["containers"][0]["image"] = "nginx:2";
    auto a = attrs(f.pods_resource, admission::Operation::Update, &now, &old);
    CHECK(f.plugin->validate(a, note));
  }
  SECTION("an ephemeral container added through the subresource: evaluated") {
    const json plain = pod("x");
    json now = plain;
    now["spec"]["ephemeralContainers"] = {
        {{"name", "debug"}, {"image", "busybox"}, {"securityContext", {{"privileged", true}}}}};
    auto a = attrs(f.pods_resource, admission::Operation::Update, &now, &plain);
    a.subresource = "ephemeralcontainers";
    auto refused = f.plugin->validate(a, note);
    REQUIRE(refused);
    CHECK(refused->message ==
          "pods \"x\" is forbidden: violates PodSecurity \"baseline:latest\": privileged "
          "(container \"debug\" must not set securityContext.privileged=true)");
  }
  SECTION("the status subresource: never") {
    json now = old;
    now["spec"]["containers"][0]["image"] = "nginx:2";
    auto a = attrs(f.pods_resource, admission::Operation::Update, &now, &old);
    a.subresource = "status";
    CHECK_FALSE(f.plugin->validate(a, note));
  }
}

TEST_CASE("PodSecurity warns about workloads and never refuses them", "[podsecurity]") {
  Fixture f;
  f.label("ns", {{"pod-security.kubernetes.io/enforce", "restricted"},
                 {"pod-security.kubernetes.io/warn", "baseline"}});
  json d = {{"metadata", {{"name", "web"}, {"namespace", "ns"}}},
            {"spec", {{"template", privileged_pod("ignored")}}}};
  auto a = attrs(f.deployments, admission::Operation::Create, &d);
  std::string note;
  CHECK_FALSE(f.plugin->validate(a, note));
  CHECK(a.warnings == std::vector<std::string>{"would violate PodSecurity \"baseline:latest\": " +
                                               kBaselineDetail});
  CHECK(annotations(a).count("pod-security.kubernetes.io/enforce-policy") == 0);

  SECTION("nothing to do when warn and audit are privileged") {
    f.label("ns", {{"pod-security.kubernetes.io/enforce", "restricted"}});
    auto b = attrs(f.deployments, admission::Operation::Create, &d);
    CHECK_FALSE(f.plugin->validate(b, note));
    CHECK(b.warnings.empty());
    CHECK(b.audit_annotations.empty());
  }
}

TEST_CASE("PodSecurity refuses namespace labels that do not parse", "[podsecurity]") {
  Fixture f;
  json ns = {
      {"metadata",
       {{"name", "ns"}, {"labels", {{"pod-security.kubernetes.io/enforce-version", "1.2"}}}}}};
  auto a = attrs(f.namespaces_resource, admission::Operation::Create, &ns);
  std::string note;
  auto refused = f.plugin->validate(a, note);
  REQUIRE(refused);
  CHECK(refused->code == 422);
  CHECK(refused->message ==
        "Namespace \"ns\" is invalid: metadata.labels[pod-security.kubernetes.io/enforce-version]: "
        "Invalid value: \"1.2\": must be \"latest\" or \"v1.x\"");
  SECTION("an update that keeps the same bad label is let through") {
    json now = ns;
    now["metadata"]["labels"]["team"] = "a";
    auto b = attrs(f.namespaces_resource, admission::Operation::Update, &now, &ns);
    CHECK_FALSE(f.plugin->validate(b, note));
  }
}

TEST_CASE("PodSecurity warns when a tighter enforce level meets existing pods", "[podsecurity]") {
  Fixture f;
  f.pods["ns"] = {privileged_pod("b"), privileged_pod("a"), pod("ok"),
                  pod("host", {{"hostNetwork", true}})};
  const json old = {{"metadata", {{"name", "ns"}}}};
  json now = {{"metadata",
               {{"name", "ns"}, {"labels", {{"pod-security.kubernetes.io/enforce", "baseline"}}}}}};
  auto a = attrs(f.namespaces_resource, admission::Operation::Update, &now, &old);
  std::string note;
  CHECK_FALSE(f.plugin->validate(a, note));
  CHECK(a.warnings ==
        std::vector<std::string>{
            "existing pods in namespace \"ns\" violate the new PodSecurity enforce level "
            "\"baseline:latest\"",
            "a (and 1 other pod): privileged", "host: host namespaces"});
  CHECK(note == "new enforce baseline:latest: 3 warnings");

  SECTION("relaxing the level at the same version checks nothing") {
    json relaxed = now;
    relaxed["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "privileged";
    auto b = attrs(f.namespaces_resource, admission::Operation::Update, &relaxed, &now);
    CHECK_FALSE(f.plugin->validate(b, note));
    CHECK(b.warnings.empty());
  }
}
