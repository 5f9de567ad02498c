// The RBAC authorizer over a policy snapshot: which bindings apply to a user, the reasons it
// gives, and the v1.32 bootstrap roles checked against what upstream documents of them.
#include <catch2/catch.hpp>
#include <set>

#include "authorization/bootstrap_policy.h"
#include "authorization/policy_cache.h"
#include "authorization/rbac_authorizer.h"
#include "controllers/clusterrole_aggregation.h"

namespace {

using apiserver::authorization::Attributes;
using apiserver::authorization::Binding;
using apiserver::authorization::Policy;
using apiserver::authorization::Role;
using apiserver::authorization::User;
using nlohmann::json;

Attributes request(const User& user, const std::string& verb, const std::string& group,
                   const std::string& resource, const std::string& ns,
                   const std::string& sub = "") {
  Attributes a;
  a.user = user;
  a.verb = verb;
  a.resource_request = true;
  a.group = group;
  a.resource = resource;
  a.subresource = sub;
  a.namespace_ = ns;
  return a;
}

void add_role(Policy& p, const std::string& ns, const std::string& name, json rules) {
  auto role = std::make_shared<Role>(apiserver::authorization::role_from_json(
      {{"metadata", {{"name", name}, {"namespace", ns}}}, {"rules", std::move(rules)}}));
  if (ns.empty()) {
    p.cluster_roles[name] = role;
  } else {
    p.roles[ns][name] = role;
  }
}

void add_binding(Policy& p, const std::string& ns, const std::string& name, const std::string& kind,
                 const std::string& role, json subjects) {
  auto b = std::make_shared<Binding>(apiserver::authorization::binding_from_json(
      {{"metadata", {{"name", name}, {"namespace", ns}}},
       {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", role}}},
       {"subjects", std::move(subjects)}}));
  if (ns.empty()) {
    p.cluster_role_bindings[name] = b;
  } else {
    p.role_bindings[ns][name] = b;
  }
}

// The bootstrap policy as a snapshot, with the aggregated roles filled as the aggregation
// controller fills them.
Policy bootstrap_snapshot() {
  Policy p;
  const json& policy = apiserver::authorization::bootstrap_policy();
  for (const auto& r : policy.at("clusterRoles")) {
    p.cluster_roles[r["metadata"]["name"]] =
        std::make_shared<Role>(apiserver::authorization::role_from_json(r));
  }
  for (const auto& b : policy.at("clusterRoleBindings")) {
    p.cluster_role_bindings[b["metadata"]["name"]] =
        std::make_shared<Binding>(apiserver::authorization::binding_from_json(b));
  }
  for (const char* name : {"view", "edit", "admin"}) {  // each aggregates the next
    auto role = std::make_shared<Role>(*p.cluster_roles.at(name));
    role->rules = apiserver::controllers::aggregated_rules(p, name, role->aggregation_rule);
    p.cluster_roles[name] = role;
  }
  return p;
}

}  // namespace

TEST_CASE("RBAC allows through the first binding whose subject is the user, and says which",
          "[authz][rbac]") {
  Policy p;
  add_role(
      p, "", "pod-reader",
      json::array({{{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"pods"}}}}));
  add_role(
      p, "team", "cm-writer",
      json::array({{{"verbs", {"create"}}, {"apiGroups", {""}}, {"resources", {"configmaps"}}}}));
  add_binding(
      p, "", "readers", "ClusterRole", "pod-reader",
      json::array(
          {{{"kind", "Group"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", "devs"}}}));
  add_binding(p, "team", "writers", "Role", "cm-writer",
              json::array({{{"kind", "User"}, {"name", "alice"}},
                           {{"kind", "ServiceAccount"}, {"name", "builder"}}}));
  add_binding(p, "team", "readers-here", "ClusterRole", "pod-reader",
              json::array({{{"kind", "User"}, {"name", "bob"}}}));
  const User alice{"alice", {"devs", "system:authenticated"}};
  const User bob{"bob", {"system:authenticated"}};
  const User builder{"system:serviceaccount:team:builder", {"system:serviceaccounts"}};
  const User other_builder{"system:serviceaccount:other:builder", {}};

  auto v = rbac_authorize(p, request(alice, "list", "", "pods", ""));
  CHECK(v.allowed());
  CHECK(
      v.reason ==
      R"(RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "devs")");
  v = rbac_authorize(p, request(alice, "create", "", "configmaps", "team"));
  CHECK(v.reason ==
        R"(RBAC: allowed by RoleBinding "writers/team" of Role "cm-writer" to User "alice")");
  CHECK_FALSE(rbac_authorize(p, request(alice, "create", "", "configmaps", "other")).allowed());
  // A ServiceAccount subject without a namespace is the binding's namespace's.
  v = rbac_authorize(p, request(builder, "create", "", "configmaps", "team"));
  CHECK(
      v.reason ==
      R"(RBAC: allowed by RoleBinding "writers/team" of Role "cm-writer" to ServiceAccount "builder/team")");
  CHECK_FALSE(
      rbac_authorize(p, request(other_builder, "create", "", "configmaps", "team")).allowed());
  // A RoleBinding to a ClusterRole grants its rules in the binding's namespace only.
  CHECK(rbac_authorize(p, request(bob, "get", "", "pods", "team")).allowed());
  CHECK_FALSE(rbac_authorize(p, request(bob, "get", "", "pods", "default")).allowed());
  CHECK_FALSE(rbac_authorize(p, request(bob, "list", "", "pods", "")).allowed());
  // No opinion, and no reason, when nothing applies.
  v = rbac_authorize(p, request(bob, "delete", "", "pods", "team"));
  CHECK(v.decision == apiserver::authorization::Decision::NoOpinion);
  CHECK(v.reason.empty());
}

TEST_CASE("RBAC names the roles it could not find in its reason", "[authz][rbac]") {
  Policy p;
  add_binding(p, "", "gone", "ClusterRole", "missing",
              json::array({{{"kind", "User"}, {"name", "carol"}}}));
  add_binding(p, "ns", "gone-too", "Role", "absent",
              json::array({{{"kind", "User"}, {"name", "carol"}}}));
  const User carol{"carol", {}};
  auto v = rbac_authorize(p, request(carol, "get", "", "pods", "ns"));
  CHECK_FALSE(v.allowed());
  CHECK(
      v.reason ==
      R"(RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "absent" not found])");
  v = rbac_authorize(p, request(carol, "get", "", "pods", ""));
  CHECK(v.reason == R"(RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found)");
  auto rules = rbac_rules_for(p, carol, "ns");
  CHECK(rules.rules.empty());
  CHECK(rules.errors.size() == 2);
}

TEST_CASE(
    "the bootstrap roles grant what upstream documents for view, edit, admin and "
    "cluster-admin",
    "[authz][rbac][bootstrap]") {
  Policy p = bootstrap_snapshot();
  auto in = [&](const std::string& role) {
    add_binding(p, "work", "as-" + role, "ClusterRole", role,
                json::array({{{"kind", "User"}, {"name", role + "-user"}}}));
    return User{role + "-user", {"system:authenticated"}};
  };
  const User view = in("view"), edit = in("edit"), admin = in("admin"), root = in("cluster-admin");
  struct Row {
    std::string verb, group, resource, sub;
    bool view, edit, admin;
  };
  auto row = GENERATE(values<Row>({
      {"get", "", "pods", "", true, true, true},
      {"list", "apps", "deployments", "", true, true, true},
      {"watch", "batch", "jobs", "", true, true, true},
      {"get", "", "pods", "log", true, true, true},
      {"get", "", "secrets", "", false, true, true},
      {"create", "", "pods", "", false, true, true},
      {"create", "", "pods", "exec", false, true, true},
      {"create", "", "pods", "eviction", false, true, true},
      {"delete", "apps", "deployments", "", false, true, true},
      {"update", "apps", "deployments", "scale", false, true, true},
      {"create", "", "serviceaccounts", "token", false, true, true},
      {"impersonate", "", "serviceaccounts", "", false, true, true},
      {"get", "rbac.authorization.k8s.io", "roles", "", false, false, true},
      {"create", "rbac.authorization.k8s.io", "rolebindings", "", false, false, true},
      {"create", "authorization.k8s.io", "localsubjectaccessreviews", "", false, false, true},
      {"get", "", "resourcequotas", "", true, true, true},
      {"update", "", "resourcequotas", "", false, false, false},
      {"update", "", "pods", "status", false, false, false},
      {"delete", "", "namespaces", "", false, false, false},
      {"create", "rbac.authorization.k8s.io", "clusterroles", "", false, false, false},
  }));
  CAPTURE(row.verb, row.group, row.resource, row.sub);
  CHECK(rbac_authorize(p, request(view, row.verb, row.group, row.resource, "work", row.sub))
            .allowed() == row.view);
  CHECK(rbac_authorize(p, request(edit, row.verb, row.group, row.resource, "work", row.sub))
            .allowed() == row.edit);
  CHECK(rbac_authorize(p, request(admin, row.verb, row.group, row.resource, "work", row.sub))
            .allowed() == row.admin);
  CHECK(rbac_authorize(p, request(root, row.verb, row.group, row.resource, "work", row.sub))
            .allowed());
  // Bound in a namespace, none of them reaches another.
  CHECK_FALSE(
      rbac_authorize(p, request(admin, row.verb, row.group, row.resource, "elsewhere", row.sub))
          .allowed());
}

TEST_CASE(
    "every authenticated user may discover the API and review itself, anyone may read "
    "health and version",
    "[authz][rbac][bootstrap]") {
  Policy p = bootstrap_snapshot();
  const User someone{"someone", {"system:authenticated"}};
  const User anonymous{"system:anonymous", {"system:unauthenticated"}};
  auto get_path = [](const User& u, const std::string& path) {
    Attributes a;
    a.user = u;
    a.verb = "get";
    a.path = path;
    return a;
  };
  CHECK(rbac_authorize(p, get_path(someone, "/apis/apps/v1")).allowed());
  CHECK(rbac_authorize(p, get_path(someone, "/openapi/v3")).allowed());
  CHECK_FALSE(rbac_authorize(p, get_path(someone, "/metrics")).allowed());
  CHECK(rbac_authorize(p, get_path(anonymous, "/healthz")).allowed());
  CHECK(rbac_authorize(p, get_path(anonymous, "/version")).allowed());
  CHECK_FALSE(rbac_authorize(p, get_path(anonymous, "/api")).allowed());
  CHECK_FALSE(rbac_authorize(p, get_path(anonymous, "/readyz/etcd")).allowed());
  CHECK(rbac_authorize(
            p, request(someone, "create", "authorization.k8s.io", "selfsubjectaccessreviews", ""))
            .allowed());
  CHECK(rbac_authorize(
            p, request(someone, "create", "authentication.k8s.io", "selfsubjectreviews", ""))
            .allowed());
  CHECK_FALSE(rbac_authorize(p, request(someone, "list", "", "pods", "default")).allowed());
}

TEST_CASE("the bootstrap policy holds v1.32's default roles, bindings and namespaced roles",
          "[authz][bootstrap]") {
  const json& policy = apiserver::authorization::bootstrap_policy();
  std::set<std::string> names;
  for (const auto& r : policy.at("clusterRoles")) {
    names.insert(r["metadata"]["name"]);
    CHECK(r["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] == "true");
    CHECK(r["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults");
  }
  for (const char* name : {"cluster-admin",
                           "admin",
                           "edit",
                           "view",
                           "system:basic-user",
                           "system:discovery",
                           "system:public-info-viewer",
                           "system:monitoring",
                           "system:node",
                           "system:node-proxier",
                           "system:kube-scheduler",
                           "system:kube-controller-manager",
                           "system:volume-scheduler",
                           "system:auth-delegator",
                           "system:heapster",
                           "system:kube-aggregator",
                           "system:kube-dns",
                           "system:node-bootstrapper",
                           "system:aggregate-to-admin",
                           "system:aggregate-to-edit",
                           "system:aggregate-to-view",
                           "system:service-account-issuer-discovery",
                           "system:persistent-volume-provisioner",
                           "system:kubelet-api-admin",
                           "system:certificates.k8s.io:kube-apiserver-client-approver",
                           "system:controller:deployment-controller",
                           "system:controller:namespace-controller",
                           "system:controller:clusterrole-aggregation-controller",
                           "system:controller:legacy-service-account-token-cleaner"}) {
    CAPTURE(name);
    CHECK(names.count(name) == 1);
  }
  // Feature-gated roles that v1.32 leaves off by default.
  CHECK(names.count("system:controller:service-cidrs-controller") == 0);
  CHECK(names.count("system:controller:resource-claim-controller") == 0);
  CHECK(policy.at("clusterRoles").size() == 64);
  CHECK(policy.at("clusterRoleBindings").size() == 45);
  CHECK(policy.at("roles").size() == 7);
  CHECK(policy.at("roleBindings").size() == 7);
  CHECK(apiserver::authorization::node_rules().size() == 22);
}
