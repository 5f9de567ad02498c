// Request bodies and parameters that do not decode: each gets kube-apiserver's status code and
// text, and nothing stored changes.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "test_api.h"

using apiserver::testing::Api;
using apiserver::testing::check_status;
using apiserver::testing::configmap;
using apiserver::testing::kConfigMaps;
using nlohmann::json;

namespace {

// The names of the ConfigMaps in default.
std::vector<std::string> names(Api& api) {
  std::vector<std::string> out;
  auto list = api.call("GET", kConfigMaps);
  for (const auto& item : list.body["items"]) {
    out.push_back(item["metadata"]["name"]);
  }
  return out;
}

}  // namespace

TEST_CASE("a create body that is not JSON gets Go's decoder text", "[apiserver][decode]") {
  Api api;
  check_status(api.send("POST", kConfigMaps, "application/json", "{name: 1}"), 400, "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
               "version/kind; json parse error: invalid character 'n' looking for beginning of "
               "object key string ({name: 1})");
  check_status(api.send("POST", kConfigMaps, "application/json", ""), 400, "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
               "version/kind; json parse error: unexpected end of JSON input (<empty>)");
  check_status(api.send("POST", kConfigMaps, "application/json", "[1]"), 400, "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
               "version/kind; json parse error: json: cannot unmarshal array into Go value of "
               "type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind "
               "string \"json:\\\"kind,omitempty\\\"\" } (5b315d)");
  check_status(api.send("POST", kConfigMaps, "application/json", R"({"kind":5})"), 400,
               "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
               "version/kind; json parse error: json: cannot unmarshal number into Go struct "
               "field .kind of type string ({\"kind\":5})");
  check_status(api.send("POST", kConfigMaps, "application/json", R"({"apiVersion":"a/b/c"})"), 400,
               "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): unexpected "
               "GroupVersion string: a/b/c ({\"apiVersion\":\"a/b/c\"})");
  CHECK(names(api).empty());
}

TEST_CASE("deeply nested JSON is refused as kube-apiserver refuses it", "[apiserver][decode]") {
  Api api;
  const std::string deep =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":)" +
      std::string(10001, '[');
  check_status(api.send("POST", kConfigMaps, "application/json", deep), 400, "BadRequest",
               "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
               "version/kind; json parse error: invalid character '[' exceeded max depth "
               "({\"apiVersion\":\"v1\",\"kind\":\"Con ...)");
  REQUIRE(api.call("POST", kConfigMaps, configmap("target")).status == 201);
  check_status(api.patch(std::string(kConfigMaps) + "/target", "application/merge-patch+json",
                         "{\"data\":" + std::string(20000, '[')),
               400, "BadRequest", "error decoding patch: invalid character '[' exceeded max depth");
  check_status(api.patch(std::string(kConfigMaps) + "/target?fieldValidation=Ignore",
                         "application/merge-patch+json", "{"),
               400, "BadRequest", "Invalid JSON Patch");
  check_status(api.patch(std::string(kConfigMaps) + "/target",
                         "application/strategic-merge-patch+json", "{]"),
               400, "BadRequest",
               "invalid character ']' looking for beginning of object key string");
  CHECK(names(api) == std::vector<std::string>{"target"});
}

TEST_CASE("a body of another kind names the conversion that does not exist",
          "[apiserver][decode]") {
  Api api;
  json secret = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "s"}}}};
  check_status(api.call("POST", kConfigMaps, secret), 400, "BadRequest",
               "Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) "
               "to (core.ConfigMap): unknown conversion");
  json deployment = {
      {"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "d"}}}};
  check_status(api.call("POST", kConfigMaps, deployment), 400, "BadRequest",
               "Deployment in version \"v1\" cannot be handled as a ConfigMap: converting "
               "(v1.Deployment) to (core.ConfigMap): unknown conversion");
  json unknown = {{"apiVersion", "v1"}, {"kind", "configmap"}, {"metadata", {{"name", "c"}}}};
  check_status(api.call("POST", kConfigMaps, unknown), 400, "BadRequest",
               "configmap in version \"v1\" cannot be handled as a ConfigMap: no kind "
               "\"configmap\" is registered for version \"v1\" in scheme "
               "\"pkg/api/legacyscheme/scheme.go:30\"");
  json wrong_group = {{"apiVersion", "apps/v1"}, {"metadata", {{"name", "c"}}}};
  check_status(api.call("POST", kConfigMaps, wrong_group), 400, "BadRequest",
               "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: no kind "
               "\"ConfigMap\" is registered for version \"apps/v1\" in scheme "
               "\"pkg/api/legacyscheme/scheme.go:30\"");
  json typed_wrong = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"data", {{"a", 1}}}};
  check_status(api.call("POST", kConfigMaps, typed_wrong), 400, "BadRequest",
               "Secret in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
               "number into Go struct field Secret.data of type []uint8");
  CHECK(names(api).empty());
}

TEST_CASE("review bodies are typed before they are answered", "[apiserver][decode]") {
  Api api;
  json review = {{"apiVersion", "authentication.k8s.io/v1"},
                 {"kind", "TokenReview"},
                 {"spec", {{"token", 5}}}};
  check_status(api.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", review), 400,
               "BadRequest",
               "TokenReview in version \"v1\" cannot be handled as a TokenReview: json: cannot "
               "unmarshal number into Go struct field TokenReviewSpec.spec.token of type string");
  review["spec"]["token"] = "t0ken";
  auto answer = api.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", review);
  CHECK(answer.status == 201);
  CHECK(answer.body["status"]["authenticated"] == true);
}

TEST_CASE("a Scale body is typed as an autoscaling/v1 Scale", "[apiserver][decode]") {
  Api api;
  json deployment = apiserver::testing::deployment("web", 1);
  const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
  REQUIRE(api.call("POST", deployments, deployment).status == 201);
  json scale = {{"apiVersion", "autoscaling/v1"},
                {"kind", "Scale"},
                {"metadata", {{"name", "web"}}},
                {"spec", {{"replicas", "3"}}}};
  check_status(api.call("PUT", deployments + "/web/scale", scale), 400, "BadRequest",
               "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal "
               "string into Go struct field ScaleSpec.spec.replicas of type int32");
  scale["spec"]["replicas"] = 3;
  scale["metadata"]["resourceVersion"] = 5;
  CHECK(api.call("PUT", deployments + "/web/scale", scale).status == 400);
  CHECK(api.patch(deployments + "/web/scale", "application/merge-patch+json",
                  R"({"metadata":{"name":7}})")
            .status == 422);
  CHECK(api.call("GET", deployments + "/web").body["spec"]["replicas"] == 1);
}

TEST_CASE("list and watch parameters are parsed as the parameter codec parses them",
          "[apiserver][decode]") {
  Api api;
  const std::string list = kConfigMaps;
  check_status(api.call("GET", list + "?limit=abc"), 400, "BadRequest",
               "strconv.ParseInt: parsing \"abc\": invalid syntax");
  check_status(api.call("GET", list + "?timeoutSeconds=" + std::string(400, '9')), 400,
               "BadRequest",
               "strconv.ParseInt: parsing \"" + std::string(400, '9') + "\": value out of range");
  check_status(api.call("GET", list + "?resourceVersionMatch=Exact"), 422, "Invalid",
               "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
               "resourceVersionMatch is forbidden unless resourceVersion is provided");
  check_status(api.call("GET", list + "?resourceVersion=1&resourceVersionMatch=Newest"), 422,
               "Invalid",
               "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: "
               "\"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"");
  check_status(api.call("GET", list + "?resourceVersion=x&resourceVersionMatch=Exact"), 400,
               "BadRequest",
               "invalid resource version: resourceVersion: Invalid value: \"x\": "
               "strconv.ParseUint: parsing \"x\": invalid syntax");
  check_status(api.call("GET", list + "?resourceVersion=-1"), 500, "",
               "resourceVersion: Invalid value: \"-1\": strconv.ParseUint: parsing \"-1\": "
               "invalid syntax");
  auto too_large = api.call("GET", list + "?resourceVersion=99999999");
  CHECK(too_large.status == 504);
  CHECK(too_large.body["reason"] == "Timeout");
  CHECK(too_large.body["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge");
  check_status(api.call("GET", list + "?continue=abc$"), 400, "BadRequest",
               "invalid continue token: continue key is not valid: illegal base64 data at input "
               "byte 3");
  // A watch's resourceVersion is parsed by the watch cache: its storage error has no status.
  check_status(api.call("GET", list + "?watch=true&resourceVersion=abc"), 500, "",
               "resourceVersion: Invalid value: \"abc\": "
               "strconv.ParseUint: parsing \"abc\": invalid syntax");
  check_status(api.call("GET", list + "?watch=true&timeoutSeconds=1.5"), 400, "BadRequest",
               "strconv.ParseInt: parsing \"1.5\": invalid syntax");
  check_status(
      api.call("GET", list + "?watch=true&resourceVersion=" + std::string(30, '9')), 500, "",
      "resourceVersion: Invalid value: \"" + std::string(30, '9') +
          "\": strconv.ParseUint: parsing \"" + std::string(30, '9') + "\": value out of range");
  auto beyond = api.call("GET", list + "?watch=true&resourceVersion=18446744073709551615");
  CHECK(beyond.status == 504);
}

TEST_CASE("a watch with a huge or negative timeout is bounded", "[apiserver][decode]") {
  Api api;
  auto forever = api.watch(std::string(kConfigMaps) +
                           "?watch=true&timeoutSeconds=" + std::to_string(INT64_MAX));
  CHECK_FALSE(forever->finished());
  auto negative = api.watch(std::string(kConfigMaps) + "?watch=true&timeoutSeconds=-5");
  CHECK(negative);
}

TEST_CASE("PUT and PATCH on a collection are not allowed", "[apiserver][decode]") {
  Api api;
  for (const char* method : {"PUT", "PATCH"}) {
    CAPTURE(method);
    auto reply = api.send(method, kConfigMaps, "application/merge-patch+json", "{}");
    check_status(reply, 405, "MethodNotAllowed",
                 "the server does not allow this method on the requested resource");
    CHECK(reply.body["details"] == json::object());
  }
  check_status(api.call("POST", std::string(kConfigMaps) + "/named", configmap("named")), 405,
               "MethodNotAllowed",
               "the server does not allow this method on the requested resource");
  CHECK(names(api).empty());
}

// Half of Go's limit: the write path still copies the object recursively (managedFields), which
// at the full limit exhausts a sanitizer build's 8 MB stack.
TEST_CASE("a create body nested five thousand deep is answered", "[apiserver][decode]") {
  Api api;
  const std::string depth(5000, '[');
  const std::string body =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"extra":)" + depth +
      std::string(depth.size(), ']') + "}";
  auto reply = api.send("POST", kConfigMaps, "application/json", body);
  CHECK(reply.status == 201);
  CHECK(api.call("GET", std::string(kConfigMaps) + "/deep").status == 200);
  auto patched = api.patch(std::string(kConfigMaps) + "/deep", "application/merge-patch+json",
                           R"({"data":{"a":"b"}})");
  CHECK(patched.status == 200);
}
