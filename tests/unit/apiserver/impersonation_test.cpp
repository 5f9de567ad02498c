// Impersonation through the whole request pipeline: each Impersonate-* header authorized with the
// verb impersonate, upstream's 403 and 500 texts, the user the request then runs as, and
// --anonymous-auth.
#include <catch2/catch.hpp>

#include "authorization_fixture.h"

using namespace apiserver::testing;  // Cluster, json, role, rule, binding, the paths

namespace {

constexpr const char* kWhoAmI = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

json self_subject_review() {
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
}

json cluster_role(const std::string& name, json rules) {
  json r = role(name, std::move(rules));
  r["kind"] = "ClusterRole";
  return r;
}

json cluster_binding(const std::string& name, const std::string& role_name,
                     const std::string& user) {
  json b = binding(name, "ClusterRole", role_name, user);
  b["kind"] = "ClusterRoleBinding";
  return b;
}

constexpr const char* kClusterRoles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
constexpr const char* kClusterBindings = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";

}  // namespace

TEST_CASE("a privileged user acts as the user, groups, uid and extras the headers name",
          "[impersonation][pipeline]") {
  Cluster c;
  SECTION("a user: its groups are the ones given, plus system:authenticated") {
    auto who = c.call("admin", "POST", kWhoAmI, self_subject_review(),
                      {{"Impersonate-User", "bob"},
                       {"Impersonate-Group", "devs"},
                       {"Impersonate-Group", "ops, on call"},
                       {"Impersonate-Uid", "1234"},
                       {"Impersonate-Extra-Scopes", "view"},
                       {"Impersonate-Extra-Scopes", "edit"},
                       {"Impersonate-Extra-Acme.com%2fProject", "p1"}});
    REQUIRE(who.status == 201);
    CHECK(who.body["status"]["userInfo"] ==
          json{{"username", "bob"},
               {"uid", "1234"},
               {"groups", {"devs", "ops, on call", "system:authenticated"}},
               {"extra", {{"acme.com/project", {"p1"}}, {"scopes", {"view", "edit"}}}}});
    // And RBAC now judges bob.
    auto refused = c.call("admin", "GET", kConfigMaps, nullptr, {{"Impersonate-User", "bob"}});
    CHECK(refused.status == 403);
    CHECK(refused.body["message"] ==
          "configmaps is forbidden: User \"bob\" cannot list resource \"configmaps\" in API group "
          "\"\" in the namespace \"default\"");
  }
  SECTION("a service account: the groups of its namespace unless groups are given") {
    auto who = c.call("admin", "POST", kWhoAmI, self_subject_review(),
                      {{"Impersonate-User", "system:serviceaccount:default:builder"}});
    CHECK(who.body["status"]["userInfo"]["groups"] ==
          json{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"});
    // Unauthenticated, it may not even ask who it is (system:basic-user is for the
    // authenticated): the trace shows its groups.
    auto grouped = c.call("admin", "POST", kWhoAmI, self_subject_review(),
                          {{"Impersonate-User", "system:serviceaccount:default:builder"},
                           {"Impersonate-Group", "system:unauthenticated"}});
    CHECK(grouped.status == 403);
    auto traced = c.admin("GET", "/debug/requests?user=system:serviceaccount:default:builder");
    CHECK(traced.body["items"].back()["groups"] == json{"system:unauthenticated"});
  }
  SECTION("system:anonymous gets system:unauthenticated") {
    auto who = c.call("admin", "GET", "/api/v1/namespaces", nullptr,
                      {{"Impersonate-User", "system:anonymous"}});
    CHECK(who.body["message"] ==
          "namespaces is forbidden: User \"system:anonymous\" cannot list resource \"namespaces\" "
          "in API group \"\" at the cluster scope");
    auto traced = c.admin("GET", "/debug/requests?user=system:anonymous");
    CHECK(traced.body["items"].back()["groups"] == json{"system:unauthenticated"});
  }
  SECTION("the trace says who acted as whom") {
    REQUIRE(c.call("admin", "GET", "/version", nullptr, {{"Impersonate-User", "bob"}}).status ==
            200);
    auto items = c.admin("GET", "/debug/requests?user=bob").body["items"];
    REQUIRE(items.size() == 1);
    bool found = false;
    for (const auto& step : items[0]["stages"]) {
      found = found ||
              (step["stage"] == "impersonation" && step["decision"] == "admin is acting as bob");
    }
    CHECK(found);
  }
}

TEST_CASE("each thing impersonated needs the impersonate verb on it, with upstream's 403",
          "[impersonation][pipeline]") {
  Cluster c;
  auto refused = c.call("alice", "GET", "/version", nullptr, {{"Impersonate-User", "bob"}});
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API "
        "group \"\" at the cluster scope");
  CHECK(refused.body["details"] == json{{"name", "bob"}, {"kind", "users"}});

  REQUIRE(c.admin("POST", kClusterRoles,
                  cluster_role("act-as-bob", json::array({{{"verbs", {"impersonate"}},
                                                           {"apiGroups", {""}},
                                                           {"resources", {"users"}},
                                                           {"resourceNames", {"bob"}}}})))
              .status == 201);
  REQUIRE(c.admin("POST", kClusterBindings, cluster_binding("alice-as-bob", "act-as-bob", "alice"))
              .status == 201);
  CHECK(c.call("alice", "GET", "/version", nullptr, {{"Impersonate-User", "bob"}}).status == 200);
  CHECK(c.call("alice", "GET", "/version", nullptr, {{"Impersonate-User", "carol"}}).status == 403);
  auto group = c.call("alice", "GET", "/version", nullptr,
                      {{"Impersonate-User", "bob"}, {"Impersonate-Group", "admins"}});
  CHECK(group.body["message"] ==
        "groups \"admins\" is forbidden: User \"alice\" cannot impersonate resource \"groups\" in "
        "API group \"\" at the cluster scope");
  auto extra = c.call("alice", "GET", "/version", nullptr,
                      {{"Impersonate-User", "bob"}, {"Impersonate-Extra-Scopes", "view"}});
  CHECK(extra.body["message"] ==
        "userextras.authentication.k8s.io \"view\" is forbidden: User \"alice\" cannot "
        "impersonate resource \"userextras/scopes\" in API group \"authentication.k8s.io\" at "
        "the cluster scope");
  auto uid = c.call("alice", "GET", "/version", nullptr,
                    {{"Impersonate-User", "bob"}, {"Impersonate-Uid", "42"}});
  CHECK(uid.body["message"] ==
        "uids.authentication.k8s.io \"42\" is forbidden: User \"alice\" cannot impersonate "
        "resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope");
  auto account = c.call("alice", "GET", "/version", nullptr,
                        {{"Impersonate-User", "system:serviceaccount:default:builder"}});
  CHECK(account.body["message"] ==
        "serviceaccounts \"builder\" is forbidden: User \"alice\" cannot impersonate resource "
        "\"serviceaccounts\" in API group \"\" in the namespace \"default\"");
}

TEST_CASE("groups, extras or a uid without a user are a plain-text 500, as upstream's",
          "[impersonation][pipeline]") {
  Cluster c;
  auto answer = c.call("admin", "GET", "/api/v1/namespaces?limit=1", nullptr,
                       {{"Impersonate-Group", "devs"}, {"Impersonate-Uid", "7"}});
  CHECK(answer.status == 500);
  CHECK(answer.text ==
        "Internal Server Error: \"/api/v1/namespaces?limit=1\": requested [{Group  devs    } "
        "{UID  7  authentication.k8s.io/v1  }] without impersonating a user\n");
}

TEST_CASE("requests without credentials are system:anonymous, or a 401 with --anonymous-auth=false",
          "[impersonation][authentication]") {
  SECTION("on, the default: anonymous, refused by RBAC beyond the public paths") {
    Cluster c;
    CHECK(c.call("", "GET", "/version").status == 200);
    auto refused = c.call("", "GET", "/api/v1/namespaces");
    CHECK(refused.status == 403);
    CHECK(refused.body["message"] ==
          "namespaces is forbidden: User \"system:anonymous\" cannot list resource \"namespaces\" "
          "in API group \"\" at the cluster scope");
  }
  SECTION("off: a 401 Unauthorized Status, even on the public paths") {
    Cluster c([](apiserver::ApiServerConfig& config) { config.anonymous_auth = false; });
    auto refused = c.call("", "GET", "/version");
    CHECK(refused.status == 401);
    CHECK(refused.body["reason"] == "Unauthorized");
    CHECK(c.call("alice", "GET", "/version").status == 200);
  }
}
