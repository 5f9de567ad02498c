// ConsoleState under RBAC: who it is connected as, the rules per namespace behind what the object
// pane greys out, the kinds the tree marks, and the streams a 403 moves to one namespace.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "console/app/console_state.h"
#include "fake_session.h"

using console::app::ConsoleState;
using console::client::StreamState;
using console::testing::FakeSession;
using nlohmann::json;

namespace {

constexpr const char* kRulesPath = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
constexpr const char* kWhoAmIPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

// A Role that reads configmaps, nothing more.
json read_configmaps_rules() {
  return {{"kind", "SelfSubjectRulesReview"},
          {"status",
           {{"resourceRules",
             {{{"verbs", {"get", "list", "watch"}},
               {"apiGroups", {""}},
               {"resources", {"configmaps"}}}}},
            {"incomplete", false}}}};
}

// The last rules review asked for `ns`; 0 when none.
uint64_t rules_request(const FakeSession& session, const std::string& ns) {
  for (auto it = session.requests.rbegin(); it != session.requests.rend(); ++it) {
    if (it->second.method == "POST" && it->second.target == kRulesPath &&
        json::parse(it->second.body)["spec"]["namespace"] == ns) {
      return it->first;
    }
  }
  return 0;
}

json review_of(json rules) {
  return {{"kind", "SelfSubjectRulesReview"},
          {"status", {{"resourceRules", std::move(rules)}, {"incomplete", false}}}};
}

std::string forbidden(const std::string& resource, const std::string& verb,
                      const std::string& where) {
  return resource + " is forbidden: User \"alice\" cannot " + verb + " resource \"" + resource +
         "\" in API group \"\" " + where;
}

}  // namespace

TEST_CASE("the console asks who it is and what it may do, and greys out the rest",
          "[console][app][access]") {
  console::testing::ShowingConfigMaps f;
  FakeSession& session = f.session;
  ConsoleState& state = f.state;
  REQUIRE(state.select_namespace("default"));
  state.update(f.now);

  const uint64_t whoami = session.find("POST", kWhoAmIPath);
  REQUIRE(whoami != 0);
  // The namespace shown, and the cluster scope (the rules of ClusterRoleBindings alone).
  const uint64_t rules = rules_request(session, "default");
  REQUIRE(rules != 0);
  const uint64_t cluster_rules = rules_request(session, console::model::kClusterScope);
  REQUIRE(cluster_rules != 0);
  // Before the answers: nothing is greyed out (the server decides).
  REQUIRE(state.select_object("default", "cm1"));
  CHECK(state.may_edit().allowed);
  CHECK(state.may_delete().allowed);

  session.reply(
      whoami, 201,
      json{{"status", {{"userInfo", {{"username", "alice"}, {"groups", {"devs"}}}}}}}.dump());
  // A RoleBinding in default to a role that reads configmaps and names namespaces (which a
  // RoleBinding cannot grant: cluster-scoped); cluster-wide, pods may be listed.
  json in_default = read_configmaps_rules();
  in_default["status"]["resourceRules"].push_back(
      {{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"namespaces"}}});
  session.reply(rules, 201, in_default.dump());
  session.reply(
      cluster_rules, 201,
      review_of({{{"verbs", {"list"}}, {"apiGroups", {""}}, {"resources", {"pods"}}}}).dump());
  state.update(f.now);
  REQUIRE(state.user());
  CHECK(state.user()->username == "alice");
  REQUIRE(state.rules("default") != nullptr);
  REQUIRE(state.rules(console::model::kClusterScope) != nullptr);

  const auto edit = state.may_edit();
  CHECK_FALSE(edit.allowed);
  CHECK(edit.reason ==
        "User \"alice\" cannot patch resource \"configmaps\" in API group \"\" in the namespace "
        "\"default\"");
  CHECK(state.may_delete().reason ==
        "User \"alice\" cannot delete resource \"configmaps\" in API group \"\" in the namespace "
        "\"default\"");
  CHECK_FALSE(state.may_create().allowed);

  // The tree: configmaps listable, pods not, nodes (cluster-scoped) not.
  CHECK_FALSE(state.list_denied(*state.find_kind("configmaps")));
  CHECK(state.list_denied(*state.find_kind("pods")) ==
        "User \"alice\" cannot list resource \"pods\" in API group \"\" in the namespace "
        "\"default\"");
  CHECK(state.list_denied(*state.find_kind("nodes")) ==
        "User \"alice\" cannot list resource \"nodes\" in API group \"\" at the cluster scope");
  CHECK(state.list_denied(*state.find_kind("namespaces")) ==
        "User \"alice\" cannot list resource \"namespaces\" in API group \"\" at the cluster "
        "scope");
  const json dumped = state.dump()["access"];
  CHECK(dumped["user"] == "alice");
  CHECK(dumped["delete"]["allowed"] == false);
  CHECK(dumped["listDenied"].contains("core/pods"));

  SECTION("the rules are asked again once stale, and for a namespace picked") {
    const size_t before = session.count("POST");
    state.update(f.now + ConsoleState::kRulesRefreshMs - 1);
    CHECK(session.count("POST") == before);
    state.update(f.now + ConsoleState::kRulesRefreshMs);
    CHECK(session.count("POST") == before + 2);
    CHECK(rules_request(session, "default") > rules);
    CHECK(rules_request(session, console::model::kClusterScope) > cluster_rules);
    REQUIRE(state.select_namespace("team"));
    state.update(f.now + ConsoleState::kRulesRefreshMs);
    CHECK(session.count("POST") == before + 3);
    CHECK(rules_request(session, "team") != 0);
  }

  SECTION("in all namespaces, the cluster-wide rules decide what the tree marks") {
    REQUIRE(state.select_namespace(""));
    CHECK_FALSE(state.list_denied(*state.find_kind("pods")));
    CHECK(state.list_denied(*state.find_kind("configmaps")) ==
          "User \"alice\" cannot list resource \"configmaps\" in API group \"\" at the cluster "
          "scope");
  }
}

TEST_CASE("a kind refused cluster-wide is watched in the selected namespace",
          "[console][app][access]") {
  console::testing::ShowingConfigMaps f;
  FakeSession& session = f.session;
  ConsoleState& state = f.state;
  REQUIRE(state.select_kind("", "pods"));
  state.update(f.now);
  REQUIRE(session.watched.back().path == "/api/v1/pods");
  const std::string cluster_wide = forbidden("pods", "list", "at the cluster scope");
  session.state("core/pods", StreamState::Retrying, cluster_wide, 403);
  state.update(f.now);
  // All namespaces selected: the refusal stays, as the server worded it, and marks the tree.
  REQUIRE(state.current() != nullptr);
  CHECK(state.current()->refused == 403);
  CHECK(state.current()->error == cluster_wide);
  CHECK(state.list_denied(*state.find_kind("pods")) == cluster_wide);
  CHECK(state.last_error().empty());  // shown in the table, not as a generic error
  CHECK(state.connection() == console::app::ConnectionState::Connected);

  REQUIRE(state.select_namespace("default"));
  CHECK(session.watched.back().key == "core/pods");
  CHECK(session.watched.back().path == "/api/v1/namespaces/default/pods");
  CHECK(state.current()->scope == "default");
  CHECK(state.current()->refused == 0);
  CHECK_FALSE(state.list_denied(*state.find_kind("pods")));

  // It follows the namespace picked, and goes back to every namespace for All.
  REQUIRE(state.select_namespace("team"));
  CHECK(session.watched.back().path == "/api/v1/namespaces/team/pods");
  REQUIRE(state.select_namespace(""));
  CHECK(session.watched.back().path == "/api/v1/pods");
  CHECK(state.current()->scope.empty());
}

TEST_CASE("a refused namespace list leaves the context's namespace to pick",
          "[console][app][access]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(1000);
  session.reply(session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
  session.reply(session.find("GET", "/apis"), 200, console::testing::apps_discovery().dump());
  const std::string message =
      "namespaces is forbidden: User \"alice\" cannot list resource \"namespaces\" in API group "
      "\"\" at the cluster scope";
  session.state("core/namespaces", StreamState::Retrying, message, 403);
  state.update(1000);
  CHECK(state.namespaces_denied() == message);
  CHECK(state.namespaces().names() == std::vector<std::string>{"default"});
  CHECK(state.namespaces().selected() == "default");
  CHECK(state.list_denied(*state.find_kind("namespaces")) == message);
}
