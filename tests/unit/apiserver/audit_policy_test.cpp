// The audit policy: reading and checking it as kube-apiserver's --audit-policy-file, and which
// rule picks a request's level (audit/policy).
#include <catch2/catch.hpp>
#include <string>

#include "audit/policy.h"

namespace audit = apiserver::audit;
using audit::Level;
using audit::Stage;

namespace {

audit::Policy policy_of(const std::string& rules, const std::string& extra = "") {
  auto parsed = audit::parse_policy(
      "apiVersion: audit.k8s.io/v1\nkind: Policy\n" + extra + "rules:\n" + rules, "p.yaml");
  INFO((parsed ? std::string() : parsed.error()));
  REQUIRE(parsed);
  return *parsed;
}

audit::Attributes resource(const std::string& verb, const std::string& group,
                           const std::string& resource, const std::string& ns = "",
                           const std::string& name = "", const std::string& sub = "") {
  audit::Attributes a;
  a.user = {"alice", {"devs", "system:authenticated"}};
  a.verb = verb;
  a.resource_request = true;
  a.group = group;
  a.version = "v1";
  a.resource = resource;
  a.namespace_ = ns;
  a.name = name;
  a.subresource = sub;
  return a;
}

audit::Attributes non_resource(const std::string& verb, const std::string& path) {
  audit::Attributes a;
  a.user = {"alice", {"system:authenticated"}};
  a.verb = verb;
  a.path = path;
  return a;
}

std::string error_of(const std::string& text) {
  auto parsed = audit::parse_policy(text, "p.yaml");
  REQUIRE_FALSE(parsed);
  return parsed.error();
}

}  // namespace

TEST_CASE("the first matching rule gives the level; no match is None", "[audit][policy]") {
  const auto policy = policy_of(R"(
- level: None
  users: ["system:kube-proxy"]
- level: RequestResponse
  userGroups: ["admins"]
- level: Request
  verbs: ["create", "update"]
  resources: [{group: "", resources: ["configmaps"]}]
- level: Metadata
  resources: [{group: "apps"}]
- level: Metadata
  nonResourceURLs: ["/version"]
)");
  auto proxy = resource("create", "", "configmaps", "default");
  proxy.user.name = "system:kube-proxy";
  CHECK(audit::evaluate(policy, proxy).level == Level::None);
  auto admin = resource("get", "", "secrets", "default", "s");
  admin.user.groups = {"admins"};
  CHECK(audit::evaluate(policy, admin).level == Level::RequestResponse);
  CHECK(audit::evaluate(policy, resource("create", "", "configmaps", "default")).level ==
        Level::Request);
  CHECK(audit::evaluate(policy, resource("get", "", "configmaps", "default")).level == Level::None);
  CHECK(audit::evaluate(policy, resource("list", "apps", "deployments", "x")).level ==
        Level::Metadata);
  CHECK(audit::evaluate(policy, non_resource("get", "/version")).level == Level::Metadata);
  CHECK(audit::evaluate(policy, non_resource("get", "/version/x")).level == Level::None);
}

TEST_CASE("resources match subresources, wildcards and resource names as upstream",
          "[audit][policy]") {
  struct Row {
    std::string rule;
    std::string resource;
    std::string subresource;
    std::string name;
    bool matches;
  };
  auto row = GENERATE(values<Row>({
      {"[pods]", "pods", "", "", true},
      {"[pods]", "pods", "log", "p", false},
      {"[pods/log]", "pods", "log", "p", true},
      {"[pods/log]", "pods", "", "p", false},
      {"[\"pods/*\"]", "pods", "log", "p", true},
      {"[\"pods/*\"]", "pods", "", "p", true},
      {"[\"pods/*\"]", "services", "status", "p", false},
      {"[\"*/status\"]", "services", "status", "s", true},
      {"[\"*/status\"]", "services", "", "s", false},
      {"[\"*\"]", "anything", "scale", "x", true},
  }));
  CAPTURE(row.rule, row.resource, row.subresource);
  const auto policy =
      policy_of("- level: Metadata\n  resources: [{group: \"\", resources: " + row.rule + "}]\n");
  const auto a = resource("get", "", row.resource, "default", row.name, row.subresource);
  CHECK((audit::evaluate(policy, a).level == Level::Metadata) == row.matches);
}

TEST_CASE("resourceNames, namespaces and groups narrow a rule", "[audit][policy]") {
  const auto policy = policy_of(R"(
- level: Request
  resources: [{group: "", resources: ["configmaps"], resourceNames: ["controller-leader"]}]
- level: Metadata
  namespaces: ["kube-system"]
- level: RequestResponse
  resources: [{group: "rbac.authorization.k8s.io"}]
)");
  CHECK(
      audit::evaluate(policy, resource("get", "", "configmaps", "a", "controller-leader")).level ==
      Level::Request);
  CHECK(audit::evaluate(policy, resource("get", "", "configmaps", "a", "other")).level ==
        Level::None);
  CHECK(audit::evaluate(policy, resource("get", "", "secrets", "kube-system", "x")).level ==
        Level::Metadata);
  // A namespace rule never matches a non-resource request.
  CHECK(audit::evaluate(policy, non_resource("get", "/healthz")).level == Level::None);
  CHECK(audit::evaluate(policy, resource("list", "rbac.authorization.k8s.io", "roles")).level ==
        Level::RequestResponse);
  CHECK(audit::evaluate(policy, resource("list", "apps", "roles")).level == Level::None);
}

TEST_CASE("non-resource URLs match exactly, by a trailing * prefix, or all with *",
          "[audit][policy]") {
  const auto policy = policy_of(R"(
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: Metadata
  nonResourceURLs: ["*"]
- level: Request
)");
  CHECK(audit::evaluate(policy, non_resource("get", "/healthz")).level == Level::None);
  CHECK(audit::evaluate(policy, non_resource("get", "/healthz/etcd")).level == Level::None);
  CHECK(audit::evaluate(policy, non_resource("get", "/version")).level == Level::None);
  CHECK(audit::evaluate(policy, non_resource("post", "/apis")).level == Level::Metadata);
  // "*" is for non-resource requests only: a resource request falls through.
  CHECK(audit::evaluate(policy, resource("get", "", "pods", "a", "p")).level == Level::Request);
}

TEST_CASE("omitStages join the policy's and the rule's; omitManagedFields falls back",
          "[audit][policy]") {
  const auto policy = policy_of(R"(
- level: Metadata
  users: ["alice"]
  omitStages: ["ResponseStarted"]
  omitManagedFields: false
- level: Request
)",
                                "omitStages: [\"RequestReceived\"]\nomitManagedFields: true\n");
  auto config = audit::evaluate(policy, resource("get", "", "pods", "a"));
  CHECK(config.omits(Stage::RequestReceived));
  CHECK(config.omits(Stage::ResponseStarted));
  CHECK_FALSE(config.omits(Stage::ResponseComplete));
  CHECK_FALSE(config.omit_managed_fields);
  auto bob = resource("get", "", "pods", "a");
  bob.user.name = "bob";
  config = audit::evaluate(policy, bob);
  CHECK(config.level == Level::Request);
  CHECK(config.omit_managed_fields);
  CHECK(config.omits(Stage::RequestReceived));
  CHECK_FALSE(config.omits(Stage::ResponseStarted));
}

TEST_CASE("JSON policies read as YAML ones", "[audit][policy]") {
  auto parsed = audit::parse_policy(
      R"({"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata","verbs":["get"]}]})",
      "p.json");
  REQUIRE(parsed);
  CHECK(audit::evaluate(*parsed, non_resource("get", "/x")).level == Level::Metadata);
}

TEST_CASE("invalid policies are refused with kube-apiserver's messages", "[audit][policy]") {
  const std::string head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";
  CHECK(error_of(head + "rules:\n- users: [a]\n") ==
        "rules[0].level: Required value: from file p.yaml");
  CHECK(error_of(head + "rules:\n- level: Everything\n") ==
        "rules[0].level: Unsupported value: \"Everything\": supported values: \"None\", "
        "\"Metadata\", \"Request\", \"RequestResponse\": from file p.yaml");
  CHECK(error_of(head + "rules:\n- level: None\n  nonResourceURLs: [healthz]\n") ==
        "rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must "
        "begin with a '/' character: from file p.yaml");
  CHECK(error_of(head + "rules:\n- level: None\n  nonResourceURLs: [\"/a*b\"]\n") ==
        "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": non-resource URL wildcards '*' "
        "must be the final character of the rule: from file p.yaml");
  CHECK(
      error_of(head + "rules:\n- level: None\n  nonResourceURLs: [\"/a\"]\n  namespaces: [x]\n") ==
      "rules[0].nonResourceURLs: Invalid value: []string{\"/a\"}: rules cannot apply to both "
      "regular resources and non-resource URLs: from file p.yaml");
  CHECK(error_of(head + "rules:\n- level: None\n  resources: [{resourceNames: [x]}]\n") ==
        "rules[0].resources.resourceNames: Invalid value: []string{\"x\"}: using resourceNames "
        "requires at least one resource: from file p.yaml");
  CHECK(error_of(head + "omitStages: [Done]\nrules:\n- level: None\n") ==
        "omitStages[0]: Invalid value: \"Done\": allowed stages are "
        "RequestReceived,ResponseStarted,ResponseComplete,Panic: from file p.yaml");
  CHECK(error_of(head + "rules: []\n") == "loaded illegal policy with 0 rules: from file p.yaml");
  CHECK(error_of(head + "rules:\n- level: Bad\n- users: [a]\n") ==
        "[rules[0].level: Unsupported value: \"Bad\": supported values: \"None\", \"Metadata\", "
        "\"Request\", \"RequestResponse\", rules[1].level: Required value]: from file p.yaml");
  CHECK(error_of("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n")
            .starts_with("failed decoding: no kind \"Policy\" is registered for version "
                         "\"audit.k8s.io/v1beta1\""));
  CHECK(error_of(head + "rules:\n- level: None\n  users: alice\n") ==
        "failed decoding: json: cannot unmarshal string into Go struct field "
        "PolicyRule.rules.users of type []string: from file p.yaml");
  CHECK(error_of("rules: [").starts_with("failed decoding: error converting YAML to JSON"));
}
