// TokenRequest, TokenReview, bearer service-account tokens, the legacy token Secrets and issuer
// discovery, through ApiServer::handle with a fake clock.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/apiserver.h"
#include "common/base64.h"
#include "common/clock.h"
#include "common/read_file.h"
#include "store/store.h"
#include "test_request.h"

namespace {

using apiserver::testing::make_request;
using nlohmann::json;

const std::string kIssuer = "https://kubernetes.default.svc.cluster.local";
const std::string kAccounts = "/api/v1/namespaces/default/serviceaccounts";

std::string data_file(const std::string& name) {
  auto text = common::read_file(std::string(KS_APISERVER_TEST_DATA) + "/" + name);
  REQUIRE(text);
  return *text;
}

json claims_of(const std::string& token) {
  const size_t first = token.find('.');
  auto payload = common::go_base64_decode(token.substr(first + 1, token.rfind('.') - first - 1),
                                          common::GoBase64::RawUrl);
  return json::parse(payload.bytes, nullptr, false);
}

class TokenApi {
 public:
  explicit TokenApi(apiserver::ServiceAccountOptions options = {}) {
    store::Options store_options;
    store_options.durability = store::Durability::Ephemeral;
    db_ = std::move(store::Store::open(store_options)).value();
    apiserver::ApiServerConfig config;
    config.tokens["t0ken"] = {"admin", {"system:masters"}};
    config.tokens["n0de"] = {"system:node:node-1", {"system:nodes"}};
    config.clock = &clock;
    config.root_ca_pem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
    if (options.signing_key_pem.empty()) {
      options.signing_key_pem = data_file("sa_rsa.key");
    }
    config.service_accounts = std::move(options);
    api_ = std::make_unique<apiserver::ApiServer>(*db_, config);
    api_->bootstrap(6443, "192.0.2.10");
    api_->set_ready(true);
    settle();
  }

  struct Reply {
    int status;
    json body;
    apiserver::http::Response raw;
  };
  Reply call(const std::string& method, const std::string& target, const json& body = nullptr,
             const std::string& token = "t0ken") {
    auto request = make_request(method, target, body, token);
    auto response = api_->handle(request);
    return {response.status, json::parse(response.body, nullptr, false), response};
  }
  // POST serviceaccounts/<name>/token with this spec, as the user of `token`.
  Reply request_token(const std::string& name, const json& spec = json::object(),
                      const std::string& token = "t0ken") {
    return call(
        "POST", kAccounts + "/" + name + "/token",
        {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}},
        token);
  }
  json whoami(const std::string& token) {
    auto reply =
        call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
             {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}}, token);
    return reply.status == 201 ? reply.body["status"]["userInfo"] : json(reply.status);
  }
  json review(const std::string& token, const json& audiences = nullptr) {
    json spec = {{"token", token}};
    if (!audiences.is_null()) {
      spec["audiences"] = audiences;
    }
    auto reply =
        call("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
             {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", spec}});
    return reply.status == 201 ? reply.body["status"] : reply.body;
  }
  void settle() {
    REQUIRE(api_->wait_controllers_idle(std::chrono::seconds(5), std::chrono::seconds(20)));
  }
  apiserver::http::Response raw(apiserver::http::Request& request) { return api_->handle(request); }
  std::string uid_of(const std::string& path) {
    return call("GET", path).body["metadata"].value("uid", "");
  }

  common::FakeClock clock;

 private:
  std::unique_ptr<store::Store> db_;
  std::unique_ptr<apiserver::ApiServer> api_;
};

json pod_of(const std::string& name, const std::string& account) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"serviceAccountName", account},
            {"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
}

}  // namespace

TEST_CASE("TokenRequest issues a token that authenticates as the service account", "[tokens]") {
  TokenApi api;
  auto reply = api.request_token("default");
  REQUIRE(reply.status == 201);
  const json& body = reply.body;
  CHECK(body["kind"] == "TokenRequest");
  CHECK(body["metadata"]["name"] == "default");
  CHECK(body["metadata"]["namespace"] == "default");
  CHECK(body["metadata"]["creationTimestamp"] == "2024-01-01T00:00:00Z");
  CHECK(body["spec"]["audiences"] == json::array({kIssuer}));
  CHECK(body["spec"]["expirationSeconds"] == 3600);
  CHECK(body["status"]["expirationTimestamp"] == "2024-01-01T01:00:00Z");
  const std::string token = body["status"]["token"];
  const json claims = claims_of(token);
  CHECK(claims["iss"] == kIssuer);
  CHECK(claims["sub"] == "system:serviceaccount:default:default");
  CHECK(claims["exp"].get<int64_t>() - claims["iat"].get<int64_t>() == 3600);
  CHECK(claims["kubernetes.io"]["serviceaccount"]["uid"] == api.uid_of(kAccounts + "/default"));
  CHECK(claims["jti"].is_string());

  const json who = api.whoami(token);
  CHECK(who["username"] == "system:serviceaccount:default:default");
  CHECK(who["uid"] == api.uid_of(kAccounts + "/default"));
  CHECK(who["groups"] == json::array({"system:serviceaccounts", "system:serviceaccounts:default",
                                      "system:authenticated"}));
  CHECK(who["extra"]["authentication.kubernetes.io/credential-id"] ==
        json::array({"JTI=" + claims["jti"].get<std::string>()}));
  CHECK(api.call("GET", "/version", nullptr, token).status == 200);

  // The token lives an hour and a minute's leeway.
  api.clock.advance(std::chrono::seconds(3600 + 60));
  CHECK(api.call("GET", "/version", nullptr, token).status == 200);
  api.clock.advance(std::chrono::seconds(1));
  auto refused = api.call("GET", "/version", nullptr, token);
  CHECK(refused.status == 401);
  CHECK(refused.body.dump() ==
        R"({"apiVersion":"v1","code":401,"kind":"Status","message":"Unauthorized",)"
        R"("metadata":{},"reason":"Unauthorized","status":"Failure"})");
  CHECK(api.review(token)["error"] == "[invalid bearer token, service account token has expired]");
}

TEST_CASE("TokenRequest refuses what kube-apiserver refuses", "[tokens]") {
  TokenApi api;
  auto short_lived = api.request_token("default", {{"expirationSeconds", 60}});
  CHECK(short_lived.status == 422);
  CHECK(short_lived.body["message"] ==
        "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
        "value: 60: may not specify a duration less than 10 minutes");
  auto too_long = api.request_token("default", {{"expirationSeconds", (int64_t{1} << 32) + 1}});
  CHECK(too_long.body["message"] ==
        "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
        "value: 4294967297: may not specify a duration larger than 2^32 seconds");
  auto missing = api.request_token("nobody");
  CHECK(missing.status == 404);
  CHECK(missing.body["message"] == "serviceaccounts \"nobody\" not found");
  auto no_pod = api.request_token(
      "default", {{"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "ghost"}}}});
  CHECK(no_pod.status == 404);
  CHECK(no_pod.body["message"] == "pods \"ghost\" not found");
  auto deployment = api.request_token(
      "default",
      {{"boundObjectRef", {{"kind", "Deployment"}, {"apiVersion", "apps/v1"}, {"name", "web"}}}});
  CHECK(deployment.status == 400);
  CHECK(deployment.body["message"] ==
        "cannot bind token to object of type apps/v1, Kind=Deployment");
  REQUIRE(
      api.call(
             "POST", kAccounts,
             {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "robot"}}}})
          .status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/pods", pod_of("web", "robot")).status ==
          201);
  auto other_account = api.request_token(
      "default", {{"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "web"}}}});
  CHECK(other_account.status == 400);
  CHECK(other_account.body["message"] ==
        "cannot bind token for serviceaccount \"default\" to pod running with different "
        "serviceaccount name.");
  auto stale_uid = api.request_token(
      "robot", {{"boundObjectRef",
                 {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "web"}, {"uid", "old"}}}});
  CHECK(stale_uid.status == 409);
  CHECK(stale_uid.body["message"] ==
        "Operation cannot be fulfilled on Pod \"web\": the UID in the bound object reference "
        "(old) does not match the UID in record. The object might have been deleted and then "
        "recreated");
  auto renamed = api.call("POST", kAccounts + "/robot/token",
                          {{"apiVersion", "authentication.k8s.io/v1"},
                           {"kind", "TokenRequest"},
                           {"metadata", {{"name", "other"}}}});
  CHECK(renamed.status == 422);
  CHECK(renamed.body["message"] ==
        "TokenRequest.authentication.k8s.io \"robot\" is invalid: metadata.name: Invalid value: "
        "\"other\": must match the service account name if specified");
}

TEST_CASE("a pod-bound token dies with its pod", "[tokens]") {
  TokenApi api;
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/pods", pod_of("web", "default")).status ==
          201);
  auto reply = api.request_token(
      "default", {{"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "web"}}},
                  {"audiences", json::array({"vault", kIssuer})}});
  REQUIRE(reply.status == 201);
  CHECK(reply.body["spec"]["boundObjectRef"] ==
        json({{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "web"}}));
  const std::string token = reply.body["status"]["token"];
  const json claims = claims_of(token);
  CHECK(claims["aud"] == json::array({"vault", kIssuer}));
  CHECK(claims["kubernetes.io"]["pod"]["uid"] == api.uid_of("/api/v1/namespaces/default/pods/web"));
  const json who = api.whoami(token);
  CHECK(who["extra"]["authentication.kubernetes.io/pod-name"] == json::array({"web"}));
  json review = api.review(token, json::array({"vault"}));
  CHECK(review["authenticated"] == true);
  CHECK(review["audiences"] == json::array({"vault"}));
  REQUIRE(api.call("DELETE", "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0").status ==
          200);
  CHECK(api.call("GET", "/version", nullptr, token).status == 401);
  CHECK(api.review(token)["error"] ==
        "[invalid bearer token, service account token has been invalidated]");
}

TEST_CASE("kubelet tokens get a year and warnafter, a maximum shortens long requests", "[tokens]") {
  apiserver::ServiceAccountOptions options;
  options.max_expiration = std::chrono::hours(2);
  TokenApi api(options);
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/pods", pod_of("web", "default")).status ==
          201);
  auto kubelet = api.request_token(
      "default", {{"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "web"}}},
                  {"expirationSeconds", 3607}});
  REQUIRE(kubelet.status == 201);
  CHECK(kubelet.body["status"]["expirationTimestamp"] == "2024-01-01T01:00:07Z");
  const json claims = claims_of(kubelet.body["status"]["token"]);
  CHECK(claims["exp"].get<int64_t>() - claims["iat"].get<int64_t>() == 365 * 24 * 3600);
  CHECK(claims["kubernetes.io"]["warnafter"].get<int64_t>() - claims["iat"].get<int64_t>() == 3607);
  auto shortened = api.request_token("default", {{"expirationSeconds", 36000}});
  REQUIRE(shortened.status == 201);
  CHECK(shortened.body["spec"]["expirationSeconds"] == 7200);
  CHECK(apiserver::testing::response_header(shortened.raw, "Warning") ==
        "299 - \"requested expiration of 36000 seconds shortened to 7200 seconds\"");
}

TEST_CASE("TokenReview answers from the same authenticators", "[tokens]") {
  TokenApi api;
  CHECK(api.review("garbage") ==
        json({{"user", json::object()}, {"error", "invalid bearer token"}}));
  json admin = api.review("t0ken");
  CHECK(admin["authenticated"] == true);
  CHECK(admin["user"]["username"] == "admin");
  CHECK(admin["audiences"] == json::array({kIssuer}));
  // The static tokens are for the API server alone.
  CHECK(api.review("t0ken", json::array({"vault"}))["error"] == "invalid bearer token");
  auto empty = api.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                        {{"apiVersion", "authentication.k8s.io/v1"},
                         {"kind", "TokenReview"},
                         {"spec", {{"token", ""}}}});
  CHECK(empty.status == 400);
  CHECK(empty.body["message"] == "token is required for TokenReview in authentication");
}

TEST_CASE("legacy token Secrets are filled, used and tracked", "[tokens]") {
  TokenApi api;
  REQUIRE(
      api.call(
             "POST", kAccounts,
             {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "robot"}}}})
          .status == 201);
  const std::string secrets = "/api/v1/namespaces/default/secrets";
  json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"type", "kubernetes.io/service-account-token"},
                 {"metadata",
                  {{"name", "robot-token"},
                   {"annotations", {{"kubernetes.io/service-account.name", "robot"}}}}}};
  REQUIRE(api.call("POST", secrets, secret).status == 201);
  api.settle();
  json filled = api.call("GET", secrets + "/robot-token").body;
  CHECK(filled["metadata"]["annotations"]["kubernetes.io/service-account.uid"] ==
        api.uid_of(kAccounts + "/robot"));
  CHECK(common::base64_decode(filled["data"]["namespace"].get<std::string>()) == "default");
  CHECK(common::base64_decode(filled["data"]["ca.crt"].get<std::string>()) ==
        "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
  const std::string token = *common::base64_decode(filled["data"]["token"].get<std::string>());
  const json claims = claims_of(token);
  CHECK(claims["iss"] == "kubernetes/serviceaccount");
  CHECK(claims["kubernetes.io/serviceaccount/secret.name"] == "robot-token");
  CHECK_FALSE(claims.contains("exp"));
  CHECK(api.whoami(token)["username"] == "system:serviceaccount:default:robot");
  api.settle();
  CHECK(api.call("GET", secrets + "/robot-token")
            .body["metadata"]["labels"]["kubernetes.io/legacy-token-last-used"] == "2024-01-01");
  CHECK(api.call("GET",
                 "/api/v1/namespaces/kube-system/configmaps/"
                 "kube-apiserver-legacy-service-account-token-tracking")
            .body["data"] == json({{"since", "2024-01-01"}}));

  // A token Secret for no account is deleted; so are an account's once it is gone.
  json orphan = secret;
  orphan["metadata"] = {{"name", "orphan"},
                        {"annotations", {{"kubernetes.io/service-account.name", "nobody"}}}};
  REQUIRE(api.call("POST", secrets, orphan).status == 201);
  REQUIRE(api.call("DELETE", kAccounts + "/robot").status == 200);
  api.settle();
  CHECK(api.call("GET", secrets + "/orphan").status == 404);
  CHECK(api.call("GET", secrets + "/robot-token").status == 404);
  CHECK(api.call("GET", "/version", nullptr, token).status == 401);
}

TEST_CASE("issuer discovery serves the configuration and the keys", "[tokens]") {
  TokenApi api;
  auto config = api.call("GET", "/.well-known/openid-configuration");
  REQUIRE(config.status == 200);
  CHECK(apiserver::testing::response_header(config.raw, "Content-Type") == "application/json");
  CHECK(apiserver::testing::response_header(config.raw, "Cache-Control") == "public, max-age=3600");
  CHECK(config.raw.body ==
        R"({"issuer":"https://kubernetes.default.svc.cluster.local",)"
        R"("jwks_uri":"https://192.0.2.10:6443/openid/v1/jwks",)"
        R"("response_types_supported":["id_token"],"subject_types_supported":["public"],)"
        R"("id_token_signing_alg_values_supported":["RS256"]})");
  auto keys = api.call("GET", "/openid/v1/jwks");
  REQUIRE(keys.status == 200);
  CHECK(apiserver::testing::response_header(keys.raw, "Content-Type") ==
        "application/jwk-set+json");
  REQUIRE(keys.body["keys"].size() == 1);
  CHECK(keys.body["keys"][0]["kid"] == "tGKm3q2VqHti6peVTzkdzWOBRaHxSwPPtAhvVILTNSQ");
  const std::string token = api.request_token("default").body["status"]["token"];
  auto header =
      common::go_base64_decode(token.substr(0, token.find('.')), common::GoBase64::RawUrl);
  CHECK(json::parse(header.bytes)["kid"] == keys.body["keys"][0]["kid"]);
  // Not for anonymous callers (kube-apiserver grants it to service accounts alone).
  apiserver::http::Request anonymous = apiserver::testing::get_request("/openid/v1/jwks");
  CHECK(api.raw(anonymous).status == 403);
  CHECK(api.call("POST", "/openid/v1/jwks").status == 405);
}

TEST_CASE("a node gets tokens only for pods bound to it", "[tokens]") {
  TokenApi api;
  for (const char* node : {"node-1", "node-2"}) {
    json pod = pod_of(std::string("on-") + node, "default");
    pod["spec"]["nodeName"] = node;
    REQUIRE(api.call("POST", "/api/v1/namespaces/default/pods", pod).status == 201);
  }
  const std::string mine = api.uid_of("/api/v1/namespaces/default/pods/on-node-1");
  const std::string theirs = api.uid_of("/api/v1/namespaces/default/pods/on-node-2");
  auto bound = [](const std::string& name, const std::string& uid) {
    json ref = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", name}};
    if (!uid.empty()) {
      ref["uid"] = uid;
    }
    return json{{"boundObjectRef", ref}};
  };
  auto granted = api.request_token("default", bound("on-node-1", mine), "n0de");
  REQUIRE(granted.status == 201);
  CHECK(claims_of(granted.body["status"]["token"])["kubernetes.io"]["node"]["name"] == "node-1");

  const std::string refused = "serviceaccounts \"default\" is forbidden: ";
  struct Case {
    json spec;
    std::string why;
  };
  const std::vector<Case> cases = {
      {json::object(), "node requested token not bound to a pod"},
      {{{"boundObjectRef", {{"apiVersion", "v1"}, {"kind", "Secret"}, {"name", "s"}}}},
       "node requested token not bound to a pod"},
      {bound("on-node-1", ""), "node requested token with a pod binding without a uid"},
      {bound("on-node-1", "stale"),
       "the UID in the bound object reference (stale) does not match the UID in record. The "
       "object might have been deleted and then recreated"},
      {bound("on-node-2", theirs),
       "node requested token bound to a pod scheduled on a different node"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.spec.dump());
    auto reply = api.request_token("default", c.spec, "n0de");
    CHECK(reply.status == 403);
    CHECK(reply.body["message"] == refused + c.why);
    CHECK(reply.body["details"] == json({{"name", "default"}, {"kind", "serviceaccounts"}}));
  }
  CHECK(api.request_token("default", bound("ghost", "u"), "n0de").body["message"] ==
        "pods \"ghost\" not found");
  // Others are not nodes: the admin binds a token to any pod, or to none.
  CHECK(api.request_token("default", bound("on-node-2", theirs)).status == 201);
}
