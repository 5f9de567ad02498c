// Authorization through the whole request pipeline: the default Node,RBAC chain over the
// bootstrap policy, upstream's 403 texts, read-after-write of bindings, the access reviews,
// escalation prevention and the node authorizer's graph.
#include <catch2/catch.hpp>

#include "authorization_fixture.h"

using namespace apiserver::testing;  // Cluster, json, role, rule, binding, configmap, the paths

TEST_CASE(
    "a user without bindings is refused with kube-apiserver's text, and allowed right "
    "after a Role and RoleBinding are written",
    "[authz][pipeline]") {
  Cluster c;
  auto refused = c.call("alice", "POST", kConfigMaps, configmap("x"));
  CHECK(refused.status == 403);
  CHECK(refused.body["reason"] == "Forbidden");
  CHECK(refused.body["message"] ==
        "configmaps is forbidden: User \"alice\" cannot create resource \"configmaps\" in API "
        "group \"\" in the namespace \"default\"");
  CHECK(refused.body["details"] == json{{"kind", "configmaps"}});
  CHECK(c.call("alice", "GET", std::string(kConfigMaps) + "/x").body["message"] ==
        "configmaps \"x\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API "
        "group \"\" in the namespace \"default\"");

  REQUIRE(c.admin("POST", kRoles,
                  role("cm", json::array({rule({"create", "get"}, "", {"configmaps"})})))
              .status == 201);
  REQUIRE(c.admin("POST", kBindings, binding("alice-cm", "Role", "cm", "alice")).status == 201);
  // No wait: the authorizers see a write as soon as the request that made it is answered.
  CHECK(c.call("alice", "POST", kConfigMaps, configmap("x")).status == 201);
  CHECK(c.call("alice", "GET", std::string(kConfigMaps) + "/x").status == 200);
  CHECK(c.call("alice", "DELETE", std::string(kConfigMaps) + "/x").status == 403);
  CHECK(
      c.call("alice", "POST", "/api/v1/namespaces/kube-system/configmaps", configmap("y")).status ==
      403);

  REQUIRE(c.admin("DELETE", std::string(kBindings) + "/alice-cm").status == 200);
  CHECK(c.call("alice", "GET", std::string(kConfigMaps) + "/x").status == 403);
}

TEST_CASE("the trace names the binding that allowed a request and the refusal's reason",
          "[authz][pipeline]") {
  Cluster c;
  REQUIRE(
      c.admin("POST", kBindings, binding("alice-view", "ClusterRole", "view", "alice")).status ==
      201);
  REQUIRE(c.call("alice", "GET", "/api/v1/namespaces/default/pods").status == 200);
  auto items = c.admin("GET", "/debug/requests?user=alice").body["items"];
  REQUIRE(!items.empty());
  std::string decision;
  for (const auto& step : items.back()["stages"]) {
    if (step["stage"] == "authorization") {
      decision = step["decision"];
    }
  }
  CHECK(decision ==
        "allow: RBAC: allowed by RoleBinding \"alice-view/default\" of ClusterRole \"view\" to "
        "User \"alice\"");
}

TEST_CASE("access reviews answer from the authorizers", "[authz][reviews]") {
  Cluster c;
  REQUIRE(
      c.admin("POST", kBindings, binding("alice-edit", "ClusterRole", "edit", "alice")).status ==
      201);
  auto sar = [&](const json& spec) {
    return c.admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                   {{"apiVersion", "authorization.k8s.io/v1"},
                    {"kind", "SubjectAccessReview"},
                    {"spec", spec}});
  };
  auto allowed = sar({{"user", "alice"},
                      {"resourceAttributes",
                       {{"namespace", "default"},
                        {"verb", "create"},
                        {"group", "apps"},
                        {"resource", "deployments"}}}});
  REQUIRE(allowed.status == 201);
  CHECK(allowed.body["status"] ==
        json{{"allowed", true},
             {"reason",
              "RBAC: allowed by RoleBinding \"alice-edit/default\" of ClusterRole "
              "\"edit\" to User \"alice\""}});
  auto denied = sar({{"user", "alice"},
                     {"resourceAttributes",
                      {{"namespace", "default"},
                       {"verb", "create"},
                       {"group", "rbac.authorization.k8s.io"},
                       {"resource", "roles"}}}});
  CHECK(denied.body["status"] == json{{"allowed", false}});
  auto path = sar({{"user", "bob"},
                   {"groups", {"system:authenticated"}},
                   {"nonResourceAttributes", {{"path", "/apis"}, {"verb", "get"}}}});
  CHECK(path.body["status"]["allowed"] == true);
  auto masters = sar({{"user", "x"},
                      {"groups", {"system:masters"}},
                      {"resourceAttributes", {{"verb", "delete"}, {"resource", "nodes"}}}});
  CHECK(masters.body["status"] == json{{"allowed", true}});

  auto invalid = sar({{"resourceAttributes", {{"verb", "get"}}}});
  CHECK(invalid.status == 422);
  CHECK(invalid.body["message"] ==
        "SubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.user: Invalid value: "
        "\"\": at least one of user or group must be specified");

  auto self =
      c.call("alice", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
             {{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SelfSubjectAccessReview"},
              {"spec",
               {{"resourceAttributes",
                 {{"namespace", "kube-system"}, {"verb", "get"}, {"resource", "secrets"}}}}}});
  REQUIRE(self.status == 201);
  CHECK(self.body["status"] == json{{"allowed", false}});

  auto local = c.call("alice", "POST",
                      "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
                      {{"apiVersion", "authorization.k8s.io/v1"},
                       {"kind", "LocalSubjectAccessReview"},
                       {"spec",
                        {{"user", "alice"},
                         {"resourceAttributes",
                          {{"namespace", "other"}, {"verb", "get"}, {"resource", "pods"}}}}}});
  CHECK(local.status == 403);  // edit does not hold localsubjectaccessreviews; admin does
  auto local_admin =
      c.admin("POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
              {{"apiVersion", "authorization.k8s.io/v1"},
               {"kind", "LocalSubjectAccessReview"},
               {"spec",
                {{"user", "alice"},
                 {"resourceAttributes",
                  {{"namespace", "other"}, {"verb", "get"}, {"resource", "pods"}}}}}});
  CHECK(local_admin.status == 422);
  CHECK(local_admin.body["message"] ==
        "LocalSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
        "spec.resourceAttributes.namespace: Invalid value: \"other\": must match "
        "metadata.namespace");

  auto rules = c.call("alice", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                      {{"apiVersion", "authorization.k8s.io/v1"},
                       {"kind", "SelfSubjectRulesReview"},
                       {"spec", {{"namespace", "default"}}}});
  REQUIRE(rules.status == 201);
  CHECK(rules.body["status"]["incomplete"] == false);
  bool deployments = false;
  for (const auto& r : rules.body["status"]["resourceRules"]) {
    for (const auto& res : r.value("resources", json::array())) {
      deployments = deployments || res == "deployments";
    }
  }
  CHECK(deployments);
  CHECK(rules.body["status"]["nonResourceRules"].size() >= 1);
  auto no_namespace =
      c.call("alice", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
             {{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SelfSubjectRulesReview"},
              {"spec", json::object()}});
  CHECK(no_namespace.status == 400);
}

TEST_CASE(
    "roles and bindings cannot grant what the writer does not hold, unless escalate or "
    "bind allows it",
    "[authz][escalation]") {
  Cluster c;
  REQUIRE(c.admin("POST", kRoles,
                  role("rbac-writer",
                       json::array({rule({"create", "update", "get"}, "rbac.authorization.k8s.io",
                                         {"roles", "rolebindings"}),
                                    rule({"get", "list"}, "", {"pods"})})))
              .status == 201);
  REQUIRE(
      c.admin("POST", kBindings, binding("alice-rbac", "Role", "rbac-writer", "alice")).status ==
      201);

  // Rules alice holds: fine. Rules she does not: upstream's text, missing rules compacted.
  CHECK(c.call("alice", "POST", kRoles, role("readers", json::array({rule({"get"}, "", {"pods"})})))
            .status == 201);
  auto escalating =
      c.call("alice", "POST", kRoles,
             role("secrets", json::array({rule({"get", "delete"}, "", {"secrets", "pods"})})));
  CHECK(escalating.status == 403);
  CHECK(escalating.body["message"] ==
        "roles.rbac.authorization.k8s.io \"secrets\" is forbidden: user \"alice\" "
        "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not "
        "currently held:\n"
        "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n"
        "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"delete\"]}");
  CHECK(escalating.body["details"] ==
        json{{"name", "secrets"}, {"group", "rbac.authorization.k8s.io"}, {"kind", "roles"}});

  // Binding a role with more than alice holds: refused; binding one she covers: fine.
  auto bind_admin =
      c.call("alice", "POST", kBindings, binding("b1", "ClusterRole", "admin", "bob"));
  CHECK(bind_admin.status == 403);
  CHECK(bind_admin.body["message"].get<std::string>().rfind(
            "rolebindings.rbac.authorization.k8s.io \"b1\" is forbidden: user \"alice\" "
            "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not "
            "currently held:\n",
            0) == 0);
  CHECK(c.call("alice", "POST", kBindings, binding("b2", "Role", "readers", "bob")).status == 201);
  auto missing = c.call("alice", "POST", kBindings, binding("b3", "Role", "nope", "bob"));
  CHECK(missing.status == 404);
  CHECK(missing.body["message"] == "roles.rbac.authorization.k8s.io \"nope\" not found");

  // escalate on roles and bind on the admin ClusterRole lift the checks.
  REQUIRE(
      c.admin("POST", kRoles,
              role("lift", json::array({rule({"escalate"}, "rbac.authorization.k8s.io", {"roles"}),
                                        {{"verbs", {"bind"}},
                                         {"apiGroups", {"rbac.authorization.k8s.io"}},
                                         {"resources", {"clusterroles"}},
                                         {"resourceNames", {"admin"}}}})))
          .status == 201);
  REQUIRE(c.admin("POST", kBindings, binding("alice-lift", "Role", "lift", "alice")).status == 201);
  CHECK(c.call("alice", "POST", kRoles,
               role("secrets", json::array({rule({"get", "delete"}, "", {"secrets", "pods"})})))
            .status == 201);
  CHECK(c.call("alice", "POST", kBindings, binding("b1", "ClusterRole", "admin", "bob")).status ==
        201);
  CHECK(c.call("alice", "POST", kBindings, binding("b4", "ClusterRole", "edit", "bob")).status ==
        403);
}

TEST_CASE("kubelets read only the objects of the pods bound to their node", "[authz][node]") {
  Cluster c;
  REQUIRE(c.admin("POST", "/api/v1/namespaces/default/secrets",
                  {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "tls"}}}})
              .status == 201);
  REQUIRE(
      c.admin(
           "POST", "/api/v1/namespaces/default/pods",
           {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "web"}}},
            {"spec",
             {{"nodeName", "node-1"},
              {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})},
              {"volumes", json::array({{{"name", "tls"}, {"secret", {{"secretName", "tls"}}}}})}}}})
          .status == 201);
  CHECK(c.call("node1", "GET", "/api/v1/namespaces/default/secrets/tls").status == 200);
  CHECK(c.call("node1", "GET", "/api/v1/namespaces/default/pods/web").status == 200);
  auto other = c.call("node2", "GET", "/api/v1/namespaces/default/secrets/tls");
  CHECK(other.status == 403);
  CHECK(other.body["message"] ==
        "secrets \"tls\" is forbidden: User \"system:node:node-2\" cannot get resource "
        "\"secrets\" in API group \"\" in the namespace \"default\": no relationship found "
        "between node 'node-2' and this object");
  auto all_pods = c.call("node1", "GET", "/api/v1/pods");
  CHECK(all_pods.status == 403);
  CHECK(all_pods.body["message"] ==
        "pods is forbidden: User \"system:node:node-1\" cannot list resource \"pods\" in API "
        "group \"\" at the cluster scope: can only list/watch pods with spec.nodeName field "
        "selector");
  CHECK(c.call("node1", "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1").status == 200);
  auto node = c.call("node1", "GET", "/api/v1/nodes/node-2");
  CHECK(node.body["message"] ==
        "nodes \"node-2\" is forbidden: User \"system:node:node-1\" cannot get resource "
        "\"nodes\" in API group \"\" at the cluster scope: node 'node-1' cannot read 'node-2', "
        "only its own Node object");
  // The system:node role's rules hold for the rest.
  CHECK(c.call("node1", "GET", "/api/v1/namespaces/default/services").status == 200);
  CHECK(c.call("node1", "GET", "/apis/apps/v1/namespaces/default/deployments").status == 403);
  // Once the pod is gone, so is the relationship.
  REQUIRE(c.admin("DELETE", "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0").status ==
          200);
  CHECK(c.call("node1", "GET", "/api/v1/namespaces/default/secrets/tls").status == 403);
}

TEST_CASE("aggregated ClusterRoles follow the roles their selectors match",
          "[authz][aggregation]") {
  Cluster c;
  const std::string roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
  auto has_foos = [&](const std::string& role) {
    const json body = c.admin("GET", roles + "/" + role).body;
    for (const auto& r : body["rules"]) {
      if (r.value("resources", json::array()).dump() == R"(["foos"])") {
        return true;
      }
    }
    return false;
  };
  CHECK_FALSE(has_foos("view"));
  REQUIRE(c.admin("POST", roles,
                  {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"kind", "ClusterRole"},
                   {"metadata",
                    {{"name", "foo-viewer"},
                     {"labels", {{"rbac.authorization.k8s.io/aggregate-to-view", "true"}}}}},
                   {"rules", json::array({rule({"get", "list"}, "example.com", {"foos"})})}})
              .status == 201);
  c.settle();
  // view gets the rule, and through view edit, and through edit admin.
  CHECK(has_foos("view"));
  CHECK(has_foos("edit"));
  CHECK(has_foos("admin"));
  auto fields = c.admin("GET", roles + "/view").body["metadata"]["managedFields"];
  bool by_controller = false;
  for (const auto& f : fields) {
    by_controller = by_controller || f["manager"] == "clusterrole-aggregation-controller";
  }
  CHECK(by_controller);
  REQUIRE(c.admin("DELETE", roles + "/foo-viewer").status == 200);
  c.settle();
  CHECK_FALSE(has_foos("view"));
  CHECK_FALSE(has_foos("admin"));
}

TEST_CASE("the authorization mode flag is checked as kube-apiserver checks it", "[authz][modes]") {
  using apiserver::ApiServer;
  CHECK_FALSE(ApiServer::check_authorization_mode("Node,RBAC"));
  CHECK_FALSE(ApiServer::check_authorization_mode("AlwaysAllow"));
  CHECK(ApiServer::check_authorization_mode("RBAC,Nope") ==
        std::optional<std::string>("authorization-mode \"Nope\" is not a valid mode"));
  CHECK(ApiServer::check_authorization_mode("RBAC,RBAC") ==
        std::optional<std::string>(
            "authorization-mode [\"RBAC\" \"RBAC\"] has mode specified more than once"));
  CHECK(ApiServer::check_authorization_mode("") ==
        std::optional<std::string>("at least one authorization-mode must be passed"));
}
