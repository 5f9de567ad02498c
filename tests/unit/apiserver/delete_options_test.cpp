// DELETE: DeleteOptions decoded and validated as upstream, preconditions, and what a delete
// answers (a Success Status, or the object for the kinds whose storage returns it).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "test_api.h"

using apiserver::testing::Api;
using apiserver::testing::check_status;
using apiserver::testing::configmap;
using apiserver::testing::kConfigMaps;
using nlohmann::json;

TEST_CASE("a DeleteOptions body with a value of the wrong type answers as upstream",
          "[apiserver][delete]") {
  Api api;
  REQUIRE(api.call("POST", kConfigMaps, configmap("keep")).status == 201);
  const std::string target = std::string(kConfigMaps) + "/keep";
  auto reply = api.send("DELETE", target, "application/json", R"({"propagationPolicy":5})");
  check_status(reply, 500, "",
               "json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy "
               "of type v1.DeletionPropagation");
  CHECK_FALSE(reply.body.contains("reason"));
  check_status(api.send("DELETE", target, "application/json", R"({"preconditions":{"uid":["x"]}})"),
               500, "",
               "json: cannot unmarshal array into Go struct field Preconditions.preconditions.uid "
               "of type types.UID");
  check_status(
      api.send("DELETE", target, "application/json", R"({"gracePeriodSeconds":"5"})"), 500, "",
      "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds "
      "of type int64");
  check_status(api.send("DELETE", target, "application/json", R"({"dryRun":"All"})"), 500, "",
               "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type "
               "[]string");
  check_status(api.send("DELETE", target, "application/json", "nope"), 500, "",
               "couldn't get version/kind; json parse error: invalid character 'o' in literal "
               "null (expecting 'u')");
  check_status(api.send("DELETE", target, "text/plain", "{}"), 415, "UnsupportedMediaType",
               "the body of the request was in an unknown format - accepted media types include: "
               "application/json, application/yaml, application/vnd.kubernetes.protobuf");
  CHECK(api.call("GET", target).status == 200);
}

TEST_CASE("DeleteOptions from the query are parsed and validated", "[apiserver][delete]") {
  Api api;
  REQUIRE(api.call("POST", kConfigMaps, configmap("keep")).status == 201);
  const std::string target = std::string(kConfigMaps) + "/keep";
  check_status(api.call("DELETE", target + "?gracePeriodSeconds=soon"), 400, "BadRequest",
               "strconv.ParseInt: parsing \"soon\": invalid syntax");
  check_status(api.call("DELETE", target + "?propagationPolicy=Later"), 422, "Invalid",
               "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: "
               "\"Later\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"");
  check_status(api.call("DELETE", target + "?propagationPolicy=Orphan&orphanDependents=false"), 422,
               "Invalid",
               "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: "
               "\"Orphan\": orphanDependents and deletionPropagation cannot be both set");
  auto dry = api.call("DELETE", target + "?dryRun=Some");
  check_status(dry, 422, "Invalid",
               "DeleteOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
               "[]string{\"Some\"}: supported values: \"All\"");
  CHECK(dry.body["details"]["group"] == "meta.k8s.io");
  CHECK(dry.body["details"]["kind"] == "DeleteOptions");
  CHECK(api.call("GET", target).status == 200);
}

TEST_CASE("delete preconditions that do not hold answer Conflict", "[apiserver][delete]") {
  Api api;
  auto created = api.call("POST", kConfigMaps, configmap("held"));
  REQUIRE(created.status == 201);
  const std::string uid = created.body["metadata"]["uid"];
  const std::string rv = created.body["metadata"]["resourceVersion"];
  const std::string target = std::string(kConfigMaps) + "/held";
  auto wrong_uid = api.call("DELETE", target, {{"preconditions", {{"uid", "other"}}}});
  check_status(wrong_uid, 409, "Conflict",
               "Operation cannot be fulfilled on ConfigMap \"held\": the UID in the precondition "
               "(other) does not match the UID in record (" +
                   uid + "). The object might have been deleted and then recreated");
  CHECK(wrong_uid.body["details"] == json{{"name", "held"}, {"kind", "ConfigMap"}});
  check_status(api.call("DELETE", target, {{"preconditions", {{"resourceVersion", "1"}}}}), 409,
               "Conflict",
               "Operation cannot be fulfilled on ConfigMap \"held\": the ResourceVersion in the "
               "precondition (1) does not match the ResourceVersion in record (" +
                   rv + "). The object might have been modified");
  CHECK(api.call("GET", target).status == 200);
  auto deleted =
      api.call("DELETE", target, {{"preconditions", {{"uid", uid}, {"resourceVersion", rv}}}});
  CHECK(deleted.status == 200);
}

TEST_CASE("deleting a ConfigMap answers a Success Status naming it", "[apiserver][delete]") {
  Api api;
  auto created = api.call("POST", kConfigMaps, configmap("gone"));
  REQUIRE(created.status == 201);
  auto deleted = api.call("DELETE", std::string(kConfigMaps) + "/gone");
  CHECK(deleted.status == 200);
  CHECK(
      deleted.body ==
      json{{"kind", "Status"},
           {"apiVersion", "v1"},
           {"metadata", json::object()},
           {"status", "Success"},
           {"details",
            {{"name", "gone"}, {"kind", "configmaps"}, {"uid", created.body["metadata"]["uid"]}}}});
  auto dry_created = api.call("POST", "/apis/apps/v1/namespaces/default/controllerrevisions",
                              {{"metadata", {{"name", "rev"}}}, {"revision", 1}});
  REQUIRE(dry_created.status == 201);
  auto dry = api.call("DELETE", "/apis/apps/v1/namespaces/default/controllerrevisions/rev",
                      {{"dryRun", {"All"}}});
  CHECK(dry.body["status"] == "Success");
  CHECK(dry.body["details"]["group"] == "apps");
  CHECK(dry.body["details"]["kind"] == "controllerrevisions");
}

TEST_CASE("kinds whose storage returns the deleted object still return it", "[apiserver][delete]") {
  Api api;
  json account = {{"metadata", {{"name", "robot"}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/serviceaccounts", account).status == 201);
  auto deleted = api.call("DELETE", "/api/v1/namespaces/default/serviceaccounts/robot");
  CHECK(deleted.status == 200);
  CHECK(deleted.body["kind"] == "ServiceAccount");
  CHECK(deleted.body["metadata"]["name"] == "robot");
}

TEST_CASE("deletecollection answers the objects as they were listed", "[apiserver][delete]") {
  Api api;
  REQUIRE(api.call("POST", kConfigMaps, configmap("a")).status == 201);
  REQUIRE(api.call("POST", kConfigMaps, configmap("b")).status == 201);
  check_status(api.call("DELETE", std::string(kConfigMaps) + "?gracePeriodSeconds=x"), 400,
               "BadRequest", "strconv.ParseInt: parsing \"x\": invalid syntax");
  auto reply = api.call("DELETE", kConfigMaps);
  REQUIRE(reply.status == 200);
  CHECK(reply.body["kind"] == "ConfigMapList");
  REQUIRE(reply.body["items"].size() == 2);
  CHECK(reply.body["items"][0]["metadata"]["name"] == "a");
  CHECK(api.call("GET", kConfigMaps).body["items"].empty());
}
