// The admission webhooks' pure parts (rule matching, configuration defaults, the AdmissionReview
// sent, the answer read back, the refusal's Status, clientConfig resolution) and, through the
// whole server, selectors, failure policies and dry run against a webhook nobody serves.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/webhook/config.h"
#include "admission/webhook/matching.h"
#include "admission/webhook/review.h"
#include "authorization_fixture.h"
#include "common/base64.h"
#include "webhook/resolve.h"

namespace {

using namespace apiserver::admission;
using namespace apiserver::admission::webhook;
using apiserver::registry::Resource;
using apiserver::testing::Cluster;
using nlohmann::json;

Resource pods() {
  Resource r;
  r.version = "v1";
  r.resource = "pods";
  r.kind = "Pod";
  r.namespaced = true;
  r.subresources.push_back({"status", {}, {"", "v1", "Pod"}});
  r.subresources.push_back({"binding", {}, {"", "v1", "Binding"}});
  return r;
}

Rule rule(std::vector<std::string> resources, std::string scope = "*") {
  return {{"CREATE"}, {""}, {"v1"}, std::move(resources), std::move(scope)};
}

Attributes create(const Resource& r, std::string subresource = "", std::string ns = "default") {
  Attributes a;
  a.resource = &r;
  a.subresource = std::move(subresource);
  a.namespace_ = std::move(ns);
  a.name = "web";
  return a;
}

}  // namespace

TEST_CASE("webhook rules match resources, subresources and scope as upstream", "[webhook]") {
  const Resource r = pods();
  struct Case {
    std::vector<std::string> resources;
    std::string subresource;
    std::string scope;
    std::string ns;
    bool matches;
  };
  auto c = GENERATE(values<Case>({
      {{"pods"}, "", "*", "default", true},
      {{"pods"}, "status", "*", "default", false},
      {{"*"}, "", "*", "default", true},
      {{"*"}, "status", "*", "default", false},
      {{"*/*"}, "status", "*", "default", true},
      {{"pods/status"}, "status", "*", "default", true},
      {{"pods/status"}, "", "*", "default", false},
      {{"*/status"}, "status", "*", "default", true},
      {{"pods/*"}, "binding", "*", "default", true},
      {{"pods/*"}, "", "*", "default", true},
      {{"deployments"}, "", "*", "default", false},
      {{"pods"}, "", "Namespaced", "default", true},
      {{"pods"}, "", "Cluster", "default", false},
      {{"pods"}, "", "Cluster", "", true},
  }));
  CAPTURE(c.resources, c.subresource, c.scope, c.ns);
  Attributes a = create(r, c.subresource, c.ns);
  CHECK(rule_matches(rule(c.resources, c.scope), a, r) == c.matches);
}

TEST_CASE("webhook rules match operations, groups and versions, * for any", "[webhook]") {
  const Resource r = pods();
  Attributes a = create(r);
  CHECK(rule_matches({{"*"}, {"*"}, {"*"}, {"pods"}, "*"}, a, r));
  CHECK_FALSE(rule_matches({{"UPDATE"}, {""}, {"v1"}, {"pods"}, "*"}, a, r));
  CHECK_FALSE(rule_matches({{"CREATE"}, {"apps"}, {"v1"}, {"pods"}, "*"}, a, r));
  CHECK_FALSE(rule_matches({{"CREATE"}, {""}, {"v2"}, {"pods"}, "*"}, a, r));
  a.operation = Operation::Delete;
  CHECK(rule_matches({{"DELETE"}, {""}, {"v1"}, {"pods"}, "*"}, a, r));
}

TEST_CASE("a webhook configuration takes admissionregistration/v1's defaults", "[webhook]") {
  const json hook = json::parse(R"({"name": "a.example.com",
    "clientConfig": {"url": "https://127.0.0.1:8443/x", "caBundle": "YWJj"},
    "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
               "resources": ["pods"]}],
    "sideEffects": "None", "admissionReviewVersions": ["v1"]})");
  Webhook w = webhook_from_json(hook, "conf");
  CHECK(w.fail_closed);
  CHECK(w.equivalent);
  CHECK(w.timeout_seconds == 10);
  CHECK_FALSE(w.reinvoke_if_needed);
  CHECK(w.namespace_selector.empty());
  CHECK(w.object_selector.empty());
  CHECK(w.rules.at(0).scope == "*");
  CHECK(w.client.ca_pem == "abc");
  json custom = hook;
  custom["failurePolicy"] = "Ignore";
  custom["matchPolicy"] = "Exact";
  custom["timeoutSeconds"] = 99;
  custom["reinvocationPolicy"] = "IfNeeded";
  w = webhook_from_json(custom, "conf");
  CHECK_FALSE(w.fail_closed);
  CHECK_FALSE(w.equivalent);
  CHECK(w.timeout_seconds == kMaxTimeoutSeconds);
  CHECK(w.reinvoke_if_needed);
}

TEST_CASE("the AdmissionReview version is the first one known", "[webhook]") {
  CHECK(*review_version({"v2", "v1beta1", "v1"}) == "v1beta1");
  CHECK(*review_version({"v1"}) == "v1");
  auto none = review_version({"v2"});
  REQUIRE_FALSE(none);
  CHECK(none.error() == "webhook does not accept known AdmissionReview versions (v1, v1beta1)");
}

TEST_CASE("the AdmissionReview carries the request as upstream builds it", "[webhook]") {
  const Resource r = pods();
  json object = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "web"}}}};
  const json old = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "web"}}}};
  Attributes a = create(r, "status");
  a.operation = Operation::Update;
  a.object = &object;
  a.old_object = &old;
  a.dry_run = true;
  a.options = {{"kind", "UpdateOptions"}, {"apiVersion", "meta.k8s.io/v1"}};
  a.user = {"alice", "u-1", {"devs", "system:authenticated"}, {{"scopes", {"x"}}}};
  Invocation inv{"", "v1", "pods", "", "v1", "Pod"};
  const auto review = build_review(a, inv, "v1", "uid-1");
  CHECK(review.dump() ==
        R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"uid-1",)"
        R"("kind":{"group":"","version":"v1","kind":"Pod"},)"
        R"("resource":{"group":"","version":"v1","resource":"pods"},"subResource":"status",)"
        R"("requestKind":{"group":"","version":"v1","kind":"Pod"},)"
        R"("requestResource":{"group":"","version":"v1","resource":"pods"},)"
        R"("requestSubResource":"status","name":"web","namespace":"default",)"
        R"("operation":"UPDATE","userInfo":{"username":"alice","uid":"u-1",)"
        R"("groups":["devs","system:authenticated"],"extra":{"scopes":["x"]}},)"
        R"("object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}},)"
        R"("oldObject":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}},)"
        R"("dryRun":true,"options":{"apiVersion":"meta.k8s.io/v1","kind":"UpdateOptions"}}})");
  Attributes binding = create(r, "binding");
  binding.operation = Operation::Delete;
  const auto deleted = build_review(binding, inv, "v1beta1", "uid-2");
  CHECK(deleted["apiVersion"] == "admission.k8s.io/v1beta1");
  CHECK(deleted["request"]["requestKind"]["kind"] == "Binding");
  CHECK(deleted["request"]["object"].is_null());
  CHECK(deleted["request"]["operation"] == "DELETE");
}

TEST_CASE("a webhook's answer is checked as upstream checks it", "[webhook]") {
  const std::string uid = "u-1";
  auto answer = [&](json response, const std::string& version = "v1") {
    json doc = {{"apiVersion", "admission.k8s.io/" + version},
                {"kind", "AdmissionReview"},
                {"response", std::move(response)}};
    return doc.dump();
  };
  SECTION("allowed, with warnings, audit annotations and a patch") {
    const std::string patch = R"([{"op":"add","path":"/metadata/labels","value":{"a":"b"}}])";
    auto got = read_answer(200,
                           answer({{"uid", uid},
                                   {"allowed", true},
                                   {"warnings", {"w1"}},
                                   {"auditAnnotations", {{"k", "v"}}},
                                   {"patchType", "JSONPatch"},
                                   {"patch", common::base64_encode(patch)}}),
                           uid, "v1", true);
    REQUIRE(got);
    CHECK(got->allowed);
    CHECK(got->warnings == std::vector<std::string>{"w1"});
    CHECK(got->audit_annotations.at(0) == std::make_pair(std::string("k"), std::string("v")));
    CHECK(got->patch == json::parse(patch));
  }
  auto failure = [&](int status, const std::string& body, bool mutating = true) {
    auto got = read_answer(status, body, uid, "v1", mutating);
    REQUIRE_FALSE(got);
    return got.error().reason;
  };
  SECTION("an answer or a patch nested past Go's 10,000 levels") {
    const std::string deep = std::string(10001, '[') + std::string(10001, ']');
    const std::string body = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                             R"("response":{"uid":"u-1","allowed":true,"x":)" +
                             deep + "}}";
    CHECK(failure(200, body) ==
          "failed to call webhook: couldn't get version/kind; json parse error: invalid "
          "character '[' exceeded max depth");
    const std::string patch =
        R"([{"op":"add","path":"/metadata/x","value":)" + deep.substr(1, deep.size() - 2) + "}]";
    CHECK(failure(200, answer({{"uid", uid},
                               {"allowed", true},
                               {"patchType", "JSONPatch"},
                               {"patch", common::base64_encode(patch)}})) ==
          "received undecodable patch in webhook response: invalid character '[' exceeded max "
          "depth");
  }
  SECTION("the errors") {
    CHECK(failure(200, answer({{"uid", "other"}, {"allowed", true}})) ==
          R"(received invalid webhook response: expected response.uid="u-1", got "other")");
    CHECK(failure(200, json({{"kind", "AdmissionReview"}}).dump()) ==
          "received invalid webhook response: webhook response was absent");
    CHECK(failure(200, answer({{"uid", uid}, {"allowed", true}}, "v2")) ==
          "received invalid webhook response: expected webhook response of "
          "admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v2, "
          "Kind=AdmissionReview");
    CHECK(failure(200, answer({{"uid", uid}, {"allowed", true}, {"patch", "W10="}})) ==
          "received invalid webhook response: webhook returned response.patch but not "
          "response.patchType");
    CHECK(failure(200, answer({{"uid", uid}, {"allowed", true}, {"patchType", "JSONPatch"}})) ==
          "received invalid webhook response: webhook returned response.patchType but not "
          "response.patch");
    CHECK(
        failure(
            200,
            answer({{"uid", uid}, {"allowed", true}, {"patchType", "Merge"}, {"patch", "W10="}})) ==
        "received invalid webhook response: webhook returned invalid response.patchType of "
        "\"Merge\"");
    CHECK(failure(200, answer({{"uid", uid}, {"allowed", true}, {"patch", "W10="}}), false) ==
          "received invalid webhook response: validating webhook may not return response.patch");
    auto beta = read_answer(200, answer({{"allowed", true}, {"patch", "W10="}}, "v1beta1"), uid,
                            "v1beta1", true);
    REQUIRE_FALSE(beta);
    CHECK(beta.error().reason == R"(unsupported patch type "")");
    CHECK(read_answer(200, answer({{"allowed", false}}, "v1beta1"), uid, "v1beta1", true));
    CHECK(failure(200, "not json") ==
          "failed to call webhook: couldn't get version/kind; json parse error: invalid JSON");
    CHECK(failure(404, "") ==
          "failed to call webhook: the server could not find the requested "
          "resource");
    CHECK(failure(500, "boom") ==
          "failed to call webhook: an error on the server (\"boom\") has "
          "prevented the request from succeeding");
    CHECK(failure(403, R"({"kind":"Status","code":403,"message":"go away"})") ==
          "failed to call webhook: go away");
    CHECK(failure(200, answer({{"uid", uid},
                               {"allowed", true},
                               {"patchType", "JSONPatch"},
                               {"patch", common::base64_encode("{}")}})) ==
          "received undecodable patch in webhook response: json: cannot unmarshal value into Go "
          "value of type jsonpatch.Patch");
  }
}

TEST_CASE("a webhook's refusal reads as upstream's ToStatusErr", "[webhook]") {
  auto s = denial("x.example.com", json({{"code", 403}, {"message", "no thanks"}}));
  CHECK(s.code == 403);
  CHECK(s.reason.empty());  // the webhook gave none
  CHECK(s.message == R"(admission webhook "x.example.com" denied the request: no thanks)");
  CHECK_FALSE(s.details);
  s = denial("x.example.com", json());
  CHECK(s.code == 400);  // no code, or one under 400, is a 400
  CHECK(s.message == R"(admission webhook "x.example.com" denied the request without explanation)");
  s = denial("x.example.com", json({{"code", 422}, {"reason", "Invalid"}}));
  CHECK(s.code == 422);
  CHECK(s.reason == "Invalid");
  CHECK(s.message == R"(admission webhook "x.example.com" denied the request: Invalid)");
  s = denial("x.example.com",
             json({{"code", 200}, {"message", "m"}, {"details", {{"name", "web"}}}}));
  CHECK(s.code == 400);
  REQUIRE(s.details);
  CHECK(s.details->name == "web");
}

TEST_CASE("a clientConfig resolves to an address as kube-apiserver's endpoint routing",
          "[webhook]") {
  std::map<std::string, json> objects;
  std::vector<json> slices;
  apiserver::webhook::Lookups lookups{
      [&](const std::string&, const std::string& resource, const std::string& ns,
          const std::string& name) -> std::optional<json> {
        auto it = objects.find(resource + "/" + ns + "/" + name);
        return it == objects.end() ? std::nullopt : std::optional<json>(it->second);
      },
      [&](const std::string&, const std::string&, const std::string&) { return slices; }};
  apiserver::webhook::ClientConfig config;
  SECTION("a url") {
    config.url = "https://[::1]:9443/check?x=1";
    auto t = apiserver::webhook::resolve(config, 5, lookups);
    REQUIRE(t);
    CHECK(t->url == "https://[::1]:9443/check?x=1&timeout=5s");
    CHECK(t->connect_host == "::1");
    CHECK(t->connect_port == "9443");
    CHECK(t->server_name == "::1");
    CHECK(t->path_and_query == "/check?x=1&timeout=5s");
    config.url = "http://example.com/";
    CHECK_FALSE(apiserver::webhook::resolve(config, 5, lookups));
  }
  SECTION("a service") {
    config.service = apiserver::webhook::ServiceReference{"ns", "hook", "/v", 443};
    auto missing = apiserver::webhook::resolve(config, 10, lookups);
    REQUIRE_FALSE(missing);
    CHECK(missing.error() ==
          R"(Post "https://hook.ns.svc:443/v?timeout=10s": service "hook" not found)");
    objects["services/ns/hook"] =
        json::parse(R"({"spec": {"ports": [{"name": "https", "port": 443, "targetPort": 8443}]}})");
    auto none = apiserver::webhook::resolve(config, 10, lookups);
    REQUIRE_FALSE(none);
    CHECK(none.error() == R"(Post "https://hook.ns.svc:443/v?timeout=10s": no endpoints )"
                          R"(available for service "hook")");
    slices.push_back(json::parse(R"({"metadata": {"labels": {"kubernetes.io/service-name":
      "hook"}}, "ports": [{"name": "https", "port": 8443}],
      "endpoints": [{"addresses": ["10.0.0.9"], "conditions": {"ready": false}},
                    {"addresses": ["127.0.0.1"]}]})"));
    auto from_slice = apiserver::webhook::resolve(config, 10, lookups);
    REQUIRE(from_slice);
    CHECK(from_slice->connect_host == "127.0.0.1");
    CHECK(from_slice->connect_port == "8443");
    CHECK(from_slice->server_name == "hook.ns.svc");
    objects["endpoints/ns/hook"] = json::parse(
        R"({"subsets": [{"addresses": [{"ip": "127.0.0.2"}], "ports": [{"name": "https",
          "port": 9000}]}]})");
    auto from_endpoints = apiserver::webhook::resolve(config, 10, lookups);
    REQUIRE(from_endpoints);
    CHECK(from_endpoints->connect_host == "127.0.0.2");
    CHECK(from_endpoints->connect_port == "9000");
    objects["services/ns/hook"] =
        json::parse(R"({"spec": {"type": "ExternalName", "externalName": "localhost"}})");
    auto external = apiserver::webhook::resolve(config, 10, lookups);
    REQUIRE(external);
    CHECK(external->connect_host == "localhost");
    CHECK(external->connect_port == "443");
    config.service->port = 8080;
    objects["services/ns/hook"] = json::parse(R"({"spec": {"ports": [{"port": 443}]}})");
    auto no_port = apiserver::webhook::resolve(config, 10, lookups);
    REQUIRE_FALSE(no_port);
    CHECK(no_port.error() == R"(Post "https://hook.ns.svc:8080/v?timeout=10s": no service port )"
                             R"(8080 found for service "hook")");
  }
}

namespace {

// A webhook configuration whose one webhook points at a port nothing listens on: when it is
// called, the call fails at once (connection refused).
json unreachable(const std::string& kind, const std::string& failure_policy,
                 json extra = json::object()) {
  json hook = {{"name", "hook.example.com"},
               {"clientConfig", {{"url", "https://127.0.0.1:1/check"}}},
               {"rules",
                {{{"operations", {"CREATE"}},
                  {"apiGroups", {""}},
                  {"apiVersions", {"v1"}},
                  {"resources", {"configmaps"}}}}},
               {"failurePolicy", failure_policy},
               {"sideEffects", "None"},
               {"admissionReviewVersions", {"v1"}}};
  hook.update(extra);
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", "hooks"}}},
          {"webhooks", {hook}}};
}

json configmap(const std::string& name, json labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}}};
}

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kValidating =
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
constexpr const char* kMutating =
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

}  // namespace

TEST_CASE("a failing webhook refuses under Fail and is skipped under Ignore", "[webhook]") {
  Cluster cluster;
  REQUIRE(cluster.admin("POST", kValidating, unreachable("ValidatingWebhookConfiguration", "Fail"))
              .status == 201);
  auto refused = cluster.admin("POST", kConfigMaps, configmap("a"));
  CHECK(refused.status == 500);
  CHECK(refused.body["reason"] == "InternalError");
  CHECK(refused.body["message"] ==
        "Internal error occurred: failed calling webhook \"hook.example.com\": failed to call "
        "webhook: Post \"https://127.0.0.1:1/check?timeout=10s\": dial tcp 127.0.0.1:1: connect: "
        "connection refused");
  CHECK(refused.body["details"]["causes"][0]["message"] ==
        refused.body["message"].get<std::string>().substr(strlen("Internal error occurred: ")));

  REQUIRE(cluster.admin("POST", kMutating, unreachable("MutatingWebhookConfiguration", "Ignore"))
              .status == 201);
  REQUIRE(cluster.admin("DELETE", std::string(kValidating) + "/hooks").status == 200);
  CHECK(cluster.admin("POST", kConfigMaps, configmap("b")).status == 201);
  auto items =
      cluster.admin("GET", "/debug/requests?verb=create&resource=configmaps").body["items"];
  REQUIRE(!items.empty());
  bool noted = false;
  for (const auto& n : items.back()["notes"]) {
    noted = noted || n["text"].get<std::string>().rfind(
                         "MutatingAdmissionWebhook: webhook \"hook.example.com\": failed "
                         "(Ignore): failed to call webhook: Post",
                         0) == 0;
  }
  CHECK(noted);
}

TEST_CASE("selectors decide which writes a webhook is asked about", "[webhook]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kValidating,
                     unreachable("ValidatingWebhookConfiguration", "Fail",
                                 {{"objectSelector", {{"matchLabels", {{"checked", "yes"}}}}},
                                  {"namespaceSelector",
                                   {{"matchExpressions",
                                     {{{"key", "kubernetes.io/metadata.name"},
                                       {"operator", "In"},
                                       {"values", {"default"}}}}}}}}))
              .status == 201);
  CHECK(cluster.admin("POST", kConfigMaps, configmap("plain")).status == 201);
  CHECK(cluster.admin("POST", kConfigMaps, configmap("checked", {{"checked", "yes"}})).status ==
        500);
  REQUIRE(cluster.admin("POST", "/api/v1/namespaces", {{"metadata", {{"name", "other"}}}}).status ==
          201);
  CHECK(cluster
            .admin("POST", "/api/v1/namespaces/other/configmaps",
                   configmap("checked", {{"checked", "yes"}}))
            .status == 201);
}

TEST_CASE("webhook configurations are defaulted and validated as admissionregistration/v1",
          "[webhook]") {
  Cluster cluster;
  auto created =
      cluster.admin("POST", kMutating, unreachable("MutatingWebhookConfiguration", "Ignore"));
  REQUIRE(created.status == 201);
  const json& hook = created.body["webhooks"][0];
  CHECK(hook["failurePolicy"] == "Ignore");
  CHECK(hook["matchPolicy"] == "Equivalent");
  CHECK(hook["timeoutSeconds"] == 10);
  CHECK(hook["reinvocationPolicy"] == "Never");
  CHECK(hook["namespaceSelector"] == json::object());
  CHECK(hook["rules"][0]["scope"] == "*");
  json bad = unreachable("ValidatingWebhookConfiguration", "Sometimes",
                         {{"sideEffects", "Some"},
                          {"timeoutSeconds", 31},
                          {"admissionReviewVersions", {"v2"}},
                          {"clientConfig", json::object()}});
  bad["webhooks"].push_back(bad["webhooks"][0]);
  auto refused = cluster.admin("POST", kValidating, bad);
  REQUIRE(refused.status == 422);
  std::vector<std::string> messages;
  for (const auto& cause : refused.body["details"]["causes"]) {
    messages.push_back(cause["field"].get<std::string>() + ": " +
                       cause["message"].get<std::string>());
  }
  CHECK(std::vector<std::string>(messages.begin(), messages.begin() + 6) ==
        std::vector<std::string>{
            "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include "
            "at least one of v1, v1beta1",
            "webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: "
            "\"Fail\", \"Ignore\"",
            "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", "
            "\"NoneOnDryRun\"",
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 "
            "and 30 seconds",
            "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
            "webhooks[1].name: Duplicate value: \"hook.example.com\""});
}

TEST_CASE("a dry run reaches webhooks without side effects, marked as one", "[webhook]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kValidating,
                     unreachable("ValidatingWebhookConfiguration", "Fail",
                                 {{"sideEffects", "NoneOnDryRun"}}))
              .status == 201);
  auto refused = cluster.admin("POST", std::string(kConfigMaps) + "?dryRun=All", configmap("d"));
  CHECK(refused.status == 500);
  CHECK(refused.body["reason"] == "InternalError");
}

TEST_CASE("webhook configurations with matchConditions are refused", "[webhook]") {
  Cluster cluster;
  auto refused =
      cluster.admin("POST", kValidating,
                    unreachable("ValidatingWebhookConfiguration", "Fail",
                                {{"matchConditions", {{{"name", "a"}, {"expression", "true"}}}}}));
  CHECK(refused.status == 422);
  CHECK(refused.body["details"]["causes"][0]["field"] == "webhooks[0].matchConditions");
  CHECK(refused.body["details"]["causes"][0]["message"] ==
        "Forbidden: kube-sandbox does not evaluate CEL matchConditions yet");
}
