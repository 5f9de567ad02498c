#include "console/model/access_rules.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "console/app/console_state.h"
#include "console/client/watch_stream.h"

using console::model::Access;
using console::model::AccessRules;
using nlohmann::json;

namespace {

// A SelfSubjectRulesReview as the API server answers it for a user bound to a Role that reads
// configmaps and patches one of them, plus the discovery rules every authenticated user has.
json review(bool incomplete = false) {
  return {
      {"apiVersion", "authorization.k8s.io/v1"},
      {"kind", "SelfSubjectRulesReview"},
      {"spec", {{"namespace", "default"}}},
      {"status",
       {{"resourceRules",
         {{{"verbs", {"get", "list", "watch"}}, {"apiGroups", {""}}, {"resources", {"configmaps"}}},
          {{"verbs", {"patch"}},
           {"apiGroups", {""}},
           {"resources", {"configmaps"}},
           {"resourceNames", {"settings"}}},
          {{"verbs", {"*"}}, {"apiGroups", {"apps"}}, {"resources", {"*"}}},
          {{"verbs", {"create"}},
           {"apiGroups", {"authorization.k8s.io"}},
           {"resources", {"selfsubjectrulesreviews"}}}}},
        {"nonResourceRules", {{{"verbs", {"get"}}, {"nonResourceURLs", {"/api", "/api/*"}}}}},
        {"incomplete", incomplete}}}};
}

}  // namespace

TEST_CASE("rules of a SelfSubjectRulesReview decide what the console offers",
          "[console][model][access]") {
  const auto rules = AccessRules::parse(review());
  REQUIRE(rules.ok());
  CHECK(rules->rules().size() == 4);
  CHECK_FALSE(rules->incomplete());
  struct Row {
    const char* verb;
    const char* group;
    const char* resource;
    const char* name;
    Access expected;
  };
  const Row row = GENERATE(Row{"list", "", "configmaps", "", Access::Allowed},
                           Row{"watch", "", "configmaps", "", Access::Allowed},
                           Row{"get", "", "configmaps", "settings", Access::Allowed},
                           Row{"delete", "", "configmaps", "settings", Access::Denied},
                           Row{"list", "", "pods", "", Access::Denied},
                           Row{"list", "batch", "configmaps", "", Access::Denied},
                           // resourceNames: only the named object, never the collection
                           Row{"patch", "", "configmaps", "settings", Access::Allowed},
                           Row{"patch", "", "configmaps", "other", Access::Denied},
                           Row{"patch", "", "configmaps", "", Access::Denied},
                           // wildcards in verbs and resources
                           Row{"delete", "apps", "deployments", "web", Access::Allowed},
                           Row{"create", "apps", "statefulsets", "", Access::Allowed},
                           Row{"create", "", "secrets", "", Access::Denied});
  CAPTURE(row.verb, row.group, row.resource, row.name);
  CHECK(rules->check(row.verb, row.group, row.resource, row.name) == row.expected);
}

TEST_CASE("an incomplete review leaves what no rule allows unknown", "[console][model][access]") {
  const auto rules = AccessRules::parse(review(true));
  REQUIRE(rules.ok());
  CHECK(rules->incomplete());
  CHECK(rules->check("list", "", "configmaps") == Access::Allowed);
  CHECK(rules->check("list", "", "pods") == Access::Unknown);
}

TEST_CASE("malformed reviews are refused with the field", "[console][model][access]") {
  CHECK(AccessRules::parse(json::object()).error() == "SelfSubjectRulesReview: status is missing");
  json bad = review();
  bad["status"]["resourceRules"][1]["verbs"] = "patch";
  CHECK(AccessRules::parse(bad).error() ==
        "SelfSubjectRulesReview: status.resourceRules[1] is malformed");
  bad["status"]["resourceRules"] = json::object();
  CHECK(AccessRules::parse(bad).error() ==
        "SelfSubjectRulesReview: status.resourceRules is not an array");
  json empty = {{"status", {{"incomplete", false}}}};
  const auto none = AccessRules::parse(empty);
  REQUIRE(none.ok());
  CHECK(none->check("get", "", "pods", "x") == Access::Denied);
}

TEST_CASE("a SelfSubjectReview names the user", "[console][model][access]") {
  const json answer = {
      {"apiVersion", "authentication.k8s.io/v1"},
      {"kind", "SelfSubjectReview"},
      {"status",
       {{"userInfo",
         {{"username", "alice"}, {"uid", "a1"}, {"groups", {"devs", "system:authenticated"}}}}}}};
  const auto user = console::model::parse_self_subject_review(answer);
  REQUIRE(user.ok());
  CHECK(user->username == "alice");
  CHECK(user->uid == "a1");
  CHECK(user->groups == std::vector<std::string>{"devs", "system:authenticated"});
  CHECK(console::model::parse_self_subject_review(json::object()).error() ==
        "SelfSubjectReview: status.userInfo.username is missing");
}

TEST_CASE("a 403 is shown as the server words it", "[console][client][access]") {
  const std::string body =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group)"
      R"( \"\" in the namespace \"default\"","reason":"Forbidden",)"
      R"("details":{"kind":"pods"},"code":403})";
  const std::string message =
      "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the "
      "namespace \"default\"";
  CHECK(console::client::refusal_text(403, body) == message);
  const console::app::ApiError error = console::app::parse_status(403, body);
  CHECK(error.http_status == 403);
  CHECK(error.reason == "Forbidden");
  CHECK(error.message == message);
  CHECK(console::client::refusal_text(401,
                                      R"({"kind":"Status","message":"Unauthorized",)"
                                      R"("reason":"Unauthorized","code":401})") == "Unauthorized");
  // Not a Status: the HTTP status and the body's start, never an empty text.
  CHECK(console::client::refusal_text(403, "no") == "HTTP 403: no");
}
