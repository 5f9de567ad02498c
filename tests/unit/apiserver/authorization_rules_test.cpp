// RBAC's rule matching and rule coverage, as kube-apiserver's RBAC authorizer and its escalation
// check read PolicyRules: tables of (rule, request) and (owner, servant) with the expected answer.
#include <catch2/catch.hpp>

#include "authorization/policy_rule.h"
#include "authorization/rule_coverage.h"

namespace {

using apiserver::authorization::Attributes;
using apiserver::authorization::PolicyRule;

Attributes resource(const std::string& verb, const std::string& group, const std::string& res,
                    const std::string& sub = "", const std::string& name = "") {
  Attributes a;
  a.verb = verb;
  a.resource_request = true;
  a.group = group;
  a.resource = res;
  a.subresource = sub;
  a.name = name;
  a.namespace_ = "ns";
  return a;
}

Attributes path(const std::string& verb, const std::string& p) {
  Attributes a;
  a.verb = verb;
  a.path = p;
  return a;
}

}  // namespace

TEST_CASE("a rule allows a resource request when verb, group, resource and name all match",
          "[authz][rules]") {
  struct Row {
    PolicyRule rule;
    Attributes request;
    bool allowed;
  };
  const PolicyRule pods{{"get", "list"}, {""}, {"pods"}, {}, {}};
  const PolicyRule named{{"get"}, {""}, {"configmaps"}, {"settings"}, {}};
  const PolicyRule scale{{"get"}, {"*"}, {"*/scale"}, {}, {}};
  const PolicyRule any{{"*"}, {"*"}, {"*"}, {}, {}};
  const PolicyRule status{{"update"}, {"apps"}, {"deployments/status"}, {}, {}};
  auto row = GENERATE_COPY(values<Row>({
      {pods, resource("get", "", "pods", "", "web"), true},
      {pods, resource("list", "", "pods"), true},
      {pods, resource("delete", "", "pods", "", "web"), false},
      {pods, resource("get", "apps", "pods"), false},
      {pods, resource("get", "", "pods", "log", "web"), false},
      {named, resource("get", "", "configmaps", "", "settings"), true},
      {named, resource("get", "", "configmaps", "", "other"), false},
      {named, resource("get", "", "configmaps"), false},
      {scale, resource("get", "apps", "deployments", "scale", "web"), true},
      {scale, resource("get", "", "replicationcontrollers", "scale", "rc"), true},
      {scale, resource("get", "apps", "deployments", "", "web"), false},
      {scale, resource("get", "apps", "deployments", "status", "web"), false},
      {any, resource("escalate", "rbac.authorization.k8s.io", "clusterroles"), true},
      {status, resource("update", "apps", "deployments", "status", "web"), true},
      {status, resource("update", "apps", "deployments", "", "web"), false},
  }));
  CAPTURE(row.request.verb, row.request.group, row.request.resource, row.request.subresource,
          row.request.name);
  CHECK(apiserver::authorization::rule_allows(row.request, row.rule) == row.allowed);
}

TEST_CASE("a rule allows a non-resource URL exactly, by a trailing star, or by star alone",
          "[authz][rules]") {
  const PolicyRule health{{"get"}, {}, {}, {}, {"/healthz", "/readyz/*", "/api*"}};
  const PolicyRule all{{"get"}, {}, {}, {}, {"*"}};
  CHECK(rule_allows(path("get", "/healthz"), health));
  CHECK_FALSE(rule_allows(path("get", "/healthz/etcd"), health));
  CHECK(rule_allows(path("get", "/readyz/etcd"), health));
  CHECK(rule_allows(path("get", "/readyz/"), health));
  CHECK_FALSE(rule_allows(path("get", "/readyz"), health));
  CHECK(rule_allows(path("get", "/apis/apps"), health));
  CHECK_FALSE(rule_allows(path("post", "/healthz"), health));
  CHECK(rule_allows(path("get", "/anything"), all));
  // A resource rule never allows a path, nor a path rule a resource.
  CHECK_FALSE(rule_allows(path("get", "/api"), PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}}));
  CHECK_FALSE(rule_allows(resource("get", "", "pods"), all));
}

TEST_CASE("rules parse from JSON leniently and serialise as v1 PolicyRules", "[authz][rules]") {
  auto rule = apiserver::authorization::rule_from_json(nlohmann::json::parse(
      R"({"verbs":["get",7],"apiGroups":[""],"resources":"pods","resourceNames":["a"]})"));
  CHECK(rule.verbs == std::vector<std::string>{"get"});
  CHECK(rule.resources.empty());
  CHECK(apiserver::authorization::rule_to_json(rule).dump() ==
        R"({"apiGroups":[""],"resourceNames":["a"],"verbs":["get"]})");
}

TEST_CASE("coverage breaks the servant's rules down and reports what no owner rule covers",
          "[authz][rules]") {
  using apiserver::authorization::uncovered;
  const std::vector<PolicyRule> owner = {{{"get", "list"}, {""}, {"pods"}, {}, {}},
                                         {{"get"}, {"*"}, {"*/scale"}, {}, {}},
                                         {{"get"}, {}, {}, {}, {"/logs/*"}}};
  CHECK(uncovered(owner, {{{"get"}, {""}, {"pods"}, {"web"}, {}}}).empty());
  CHECK(uncovered(owner, {{{"get"}, {"apps"}, {"deployments/scale"}, {}, {}}}).empty());
  CHECK(uncovered(owner, {{{"get"}, {}, {}, {}, {"/logs/a/b"}}}).empty());
  auto missing = uncovered(owner, {{{"get", "delete"}, {""}, {"pods", "secrets"}, {}, {}}});
  REQUIRE(missing.size() == 3);
  CHECK(missing[0] == PolicyRule{{"delete"}, {""}, {"pods"}, {}, {}});
  CHECK(missing[1] == PolicyRule{{"get"}, {""}, {"secrets"}, {}, {}});
  CHECK(missing[2] == PolicyRule{{"delete"}, {""}, {"secrets"}, {}, {}});
  // An owner rule with names covers only requests for those names.
  CHECK_FALSE(
      uncovered({{{"get"}, {""}, {"pods"}, {"web"}, {}}}, {{{"get"}, {""}, {"pods"}, {}, {}}})
          .empty());
}

TEST_CASE("missing rules compact by resource and print as upstream's escalation error does",
          "[authz][rules]") {
  using apiserver::authorization::compact_rules;
  using apiserver::authorization::compact_string;
  auto compacted = compact_rules({{{"delete"}, {""}, {"pods"}, {}, {}},
                                  {{"get"}, {""}, {"secrets"}, {}, {}},
                                  {{"create"}, {""}, {"pods"}, {}, {}},
                                  {{"get"}, {}, {}, {}, {"/metrics"}}});
  REQUIRE(compacted.size() == 3);
  CHECK(compact_string(compacted[0]) == R"({NonResourceURLs:["/metrics"], Verbs:["get"]})");
  CHECK(compact_string(compacted[1]) ==
        R"({APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]})");
  CHECK(compact_string(PolicyRule{{"get"}, {"apps"}, {"deployments"}, {"web"}, {}}) ==
        R"({APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]})");
}
