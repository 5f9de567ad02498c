// Service-account tokens presented as bearer tokens: the JWT authenticator and its validators,
// with an injected clock and objects held in a map. Hostile tokens are not ours or refused with
// kube-apiserver's reasons; none throws.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/base64.h"
#include "common/clock.h"
#include "common/read_file.h"
#include "filters/authenticator.h"
#include "serviceaccount/claims.h"
#include "serviceaccount/jws.h"
#include "serviceaccount/jwt_authenticator.h"
#include "serviceaccount/validators.h"

namespace {

using namespace apiserver::serviceaccount;
using apiserver::filters::TokenAnswer;
using nlohmann::json;
using Outcome = TokenAnswer::Outcome;

const std::string kIssuer = "https://kubernetes.default.svc.cluster.local";

std::string data_file(const std::string& name) {
  auto text = common::read_file(std::string(KS_APISERVER_TEST_DATA) + "/" + name);
  REQUIRE(text);
  return *text;
}

json object(const std::string& name, const std::string& uid, const std::string& ns = "default") {
  json o = {{"metadata", {{"name", name}, {"uid", uid}}}};
  if (!ns.empty()) {
    o["metadata"]["namespace"] = ns;
  }
  return o;
}

struct World {
  common::FakeClock clock;  // 2024-01-01T00:00:00Z
  std::map<std::string, json> objects;
  std::vector<std::string> used;
  SigningKey key = *SigningKey::from_pem(data_file("sa_rsa.key"));
  SigningKey other_key = *SigningKey::from_pem(data_file("sa_ec.key"));
  ObjectGetter get = [this](const std::string& resource, const std::string& ns,
                            const std::string& name) -> common::Result<std::optional<json>> {
    auto it = objects.find(resource + "/" + ns + "/" + name);
    return it == objects.end() ? std::optional<json>() : std::optional<json>(it->second);
  };
  BoundValidator bound_validator{get, clock};
  LegacyValidator legacy_validator{
      get, clock, [this](const std::string& ns, const std::string& name, const std::string&) {
        used.push_back(ns + "/" + name);
      }};
  JwtAuthenticator bound{{kIssuer}, {key.public_key()}, {kIssuer}, bound_validator};
  JwtAuthenticator legacy{{kLegacyIssuer}, {key.public_key()}, {kIssuer}, legacy_validator};

  World() { objects["serviceaccounts/default/default"] = object("default", "sa-uid"); }

  int64_t now() const {
    return std::chrono::duration_cast<std::chrono::seconds>(clock.system_now().time_since_epoch())
        .count();
  }
  BoundTokenSpec spec() const {
    BoundTokenSpec s;
    s.namespace_ = "default";
    s.service_account = {"default", "sa-uid"};
    s.audiences = {kIssuer};
    s.now = now();
    s.expiration_seconds = 3600;
    s.id = "jti-1";
    return s;
  }
  std::string sign(json claims, const SigningKey* with = nullptr) const {
    if (!claims.contains("iss")) {
      claims["iss"] = kIssuer;
    }
    return sign_compact(with != nullptr ? *with : key, claims);
  }
  TokenAnswer check(const std::string& token, std::vector<std::string> audiences = {kIssuer}) {
    TokenAnswer answer = bound.authenticate_token(token, audiences);
    if (answer.outcome == Outcome::NotMine) {
      answer = legacy.authenticate_token(token, audiences);
    }
    return answer;
  }
  std::string refusal(const std::string& token, std::vector<std::string> audiences = {kIssuer}) {
    TokenAnswer answer = check(token, std::move(audiences));
    return answer.outcome == Outcome::Failed    ? answer.error
           : answer.outcome == Outcome::NotMine ? "(not mine)"
                                                : "(authenticated)";
  }
};

}  // namespace

TEST_CASE("a bound token stands for its service account", "[serviceaccount][authn]") {
  World w;
  TokenAnswer answer = w.check(w.sign(bound_claims(w.spec())));
  REQUIRE(answer.outcome == Outcome::Authenticated);
  CHECK(answer.user.name == "system:serviceaccount:default:default");
  CHECK(answer.user.uid == "sa-uid");
  CHECK(answer.user.groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"});
  CHECK(answer.user.extra == std::map<std::string, std::vector<std::string>>{
                                 {"authentication.kubernetes.io/credential-id", {"JTI=jti-1"}}});
  CHECK(answer.audiences == std::vector<std::string>{kIssuer});
}

TEST_CASE("bound claims are upstream's, keys sorted", "[serviceaccount]") {
  World w;
  BoundTokenSpec s = w.spec();
  s.pod = ObjectRef{"web", "pod-uid"};
  s.node = ObjectRef{"node-1", ""};
  s.warn_after_seconds = 3607;
  s.expiration_seconds = 365 * 24 * 3600;
  const int64_t now = w.now();
  CHECK(bound_claims(s).dump() ==
        R"({"aud":["https://kubernetes.default.svc.cluster.local"],"exp":)" +
            std::to_string(now + 365 * 24 * 3600) + R"(,"iat":)" + std::to_string(now) +
            R"(,"jti":"jti-1","kubernetes.io":{"namespace":"default","node":{"name":"node-1"},)"
            R"("pod":{"name":"web","uid":"pod-uid"},"serviceaccount":{"name":"default",)"
            R"("uid":"sa-uid"},"warnafter":)" +
            std::to_string(now + 3607) + R"(},"nbf":)" + std::to_string(now) +
            R"(,"sub":"system:serviceaccount:default:default"})");
  CHECK(legacy_claims("default", "robot", "u1", "robot-token").dump() ==
        R"({"kubernetes.io/serviceaccount/namespace":"default",)"
        R"("kubernetes.io/serviceaccount/secret.name":"robot-token",)"
        R"("kubernetes.io/serviceaccount/service-account.name":"robot",)"
        R"("kubernetes.io/serviceaccount/service-account.uid":"u1",)"
        R"("sub":"system:serviceaccount:default:robot"})");
}

TEST_CASE("expiration, not-before and issued-at allow a minute's leeway", "[serviceaccount]") {
  World w;
  BoundTokenSpec s = w.spec();
  s.expiration_seconds = 600;
  const std::string token = w.sign(bound_claims(s));
  w.clock.advance(std::chrono::seconds(600 + 60));  // exp + leeway: still valid
  CHECK(w.refusal(token) == "(authenticated)");
  w.clock.advance(std::chrono::nanoseconds(1));
  CHECK(w.refusal(token) == "service account token has expired");

  World f;
  json future = bound_claims(f.spec());
  future["nbf"] = f.now() + 60;
  CHECK(f.refusal(f.sign(future)) == "(authenticated)");
  future["nbf"] = f.now() + 61;
  CHECK(f.refusal(f.sign(future)) == "service account token is not valid yet");
  future = bound_claims(f.spec());
  future["iat"] = f.now() + 61;
  CHECK(f.refusal(f.sign(future)) == "service account token is issued in the future");
  // Go's float-to-integer conversion: a date past int64 is the most negative one.
  future = bound_claims(f.spec());
  future["exp"] = 1e300;
  CHECK(f.refusal(f.sign(future)) == "service account token has expired");
  future["exp"] = static_cast<double>(f.now() + 100) + 0.9;
  CHECK(f.refusal(f.sign(future)) == "(authenticated)");
}

TEST_CASE("audiences must meet the ones asked for", "[serviceaccount]") {
  World w;
  BoundTokenSpec s = w.spec();
  s.audiences = {"vault", "other"};
  const std::string token = w.sign(bound_claims(s));
  CHECK(w.refusal(token) == R"(token audiences ["vault" "other"] is invalid for the target )"
                            R"(audiences ["https://kubernetes.default.svc.cluster.local"])");
  TokenAnswer answer = w.check(token, {"x", "other", "vault"});
  REQUIRE(answer.outcome == Outcome::Authenticated);
  CHECK(answer.audiences == std::vector<std::string>{"other", "vault"});
  // A single audience may be a string.
  json single = bound_claims(w.spec());
  single["aud"] = kIssuer;
  CHECK(w.refusal(w.sign(single)) == "(authenticated)");
}

TEST_CASE("hostile tokens are not ours, or refused with upstream's reasons",
          "[serviceaccount][hostile]") {
  World w;
  const std::string good = w.sign(bound_claims(w.spec()));
  auto payload_of = [](const json& claims) { return common::base64url_encode_raw(claims.dump()); };
  const std::string header = good.substr(0, good.find('.'));
  const std::string signature = good.substr(good.rfind('.') + 1);
  std::string deep(20000, '[');
  SECTION("not a token of this issuer: another authenticator's business") {
    for (const std::string& token :
         {std::string(""), std::string("abc"), std::string("a.b"), std::string("a.b.c.d"),
          std::string("..."), header + ".!!!." + signature,
          header + "." + common::base64url_encode_raw("not json") + "." + signature,
          header + "." + common::base64url_encode_raw(deep) + "." + signature,
          header + "." + common::base64url_encode_raw("[1,2]") + "." + signature,
          header + "." + payload_of({{"iss", 7}}) + "." + signature,
          header + "." + payload_of({{"iss", "https://elsewhere"}}) + "." + signature,
          header + "." + payload_of({{"iss", nullptr}}) + "." + signature,
          common::base64url_encode_raw("{") + "." + payload_of({{"iss", kIssuer}}) + "." +
              signature,
          std::string(kMaxTokenBytes + 10, 'x')}) {
      CAPTURE(token.substr(0, 60));
      CHECK(w.refusal(token) == "(not mine)");
    }
  }
  SECTION("another key, another payload, no signature, no algorithm") {
    const std::string crypto = "go-jose/go-jose: error in cryptographic primitive";
    CHECK(w.refusal(w.sign(bound_claims(w.spec()), &w.other_key)) == crypto);
    CHECK(w.refusal(header + "." + payload_of({{"iss", kIssuer}, {"sub", "x"}}) + "." +
                    signature) == crypto);
    CHECK(w.refusal(header + "." +
                    good.substr(good.find('.') + 1, good.rfind('.') - good.find('.') - 1) + ".") ==
          crypto);
    const std::string none = common::base64url_encode_raw(R"({"alg":"none"})");
    json claims = bound_claims(w.spec());
    claims["iss"] = kIssuer;
    CHECK(w.refusal(none + "." + payload_of(claims) + ".") == crypto);
  }
  SECTION("signed claims of the wrong type") {
    auto with = [&](const std::string& key, const json& value) {
      json claims = bound_claims(w.spec());
      claims[key] = value;
      return w.refusal(w.sign(claims));
    };
    CHECK(with("aud", 5) ==
          "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience");
    CHECK(with("aud", json::array({"a", 1})) ==
          "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience");
    CHECK(with("exp", "tomorrow") ==
          "go-jose/go-jose/jwt: expected number value to unmarshal into NumericDate");
    CHECK(with("sub", json::object()) ==
          "json: cannot unmarshal object into Go value of type string");
    CHECK(with("kubernetes.io", "x") ==
          "json: cannot unmarshal string into Go value of type serviceaccount.kubernetes");
    CHECK(with("kubernetes.io", {{"pod", 1}}) ==
          "json: cannot unmarshal number into Go value of type serviceaccount.ref");
  }
}

TEST_CASE("a bound token dies with what it is bound to", "[serviceaccount]") {
  World w;
  BoundTokenSpec s = w.spec();
  s.pod = ObjectRef{"web", "pod-uid"};
  s.node = ObjectRef{"node-1", "node-uid"};
  const std::string pod_token = w.sign(bound_claims(s));
  w.objects["pods/default/web"] = object("web", "pod-uid");
  TokenAnswer answer = w.check(pod_token);
  REQUIRE(answer.outcome == Outcome::Authenticated);
  CHECK(answer.user.extra["authentication.kubernetes.io/pod-name"] ==
        std::vector<std::string>{"web"});
  CHECK(answer.user.extra["authentication.kubernetes.io/pod-uid"] ==
        std::vector<std::string>{"pod-uid"});
  // The node of a pod-bound token is reported, never looked up.
  CHECK(answer.user.extra["authentication.kubernetes.io/node-name"] ==
        std::vector<std::string>{"node-1"});
  CHECK(answer.user.extra["authentication.kubernetes.io/node-uid"] ==
        std::vector<std::string>{"node-uid"});

  w.objects["pods/default/web"] = object("web", "another-uid");
  CHECK(w.refusal(pod_token) ==
        "pod UID (another-uid) does not match service account pod ref claim (pod-uid)");
  json deleting = object("web", "pod-uid");
  deleting["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  w.objects["pods/default/web"] = deleting;
  CHECK(w.refusal(pod_token) == "(authenticated)");  // within the leeway
  w.clock.advance(std::chrono::seconds(61));
  CHECK(w.refusal(pod_token) == "service account token has been invalidated");
  w.objects.erase("pods/default/web");
  CHECK(w.refusal(pod_token) == "service account token has been invalidated");

  BoundTokenSpec secret_spec = w.spec();
  secret_spec.secret = ObjectRef{"s", "secret-uid"};
  const std::string secret_token = w.sign(bound_claims(secret_spec));
  w.objects["secrets/default/s"] = object("s", "secret-uid");
  CHECK(w.refusal(secret_token) == "(authenticated)");
  w.objects["secrets/default/s"] = object("s", "new");
  CHECK(w.refusal(secret_token) ==
        "secret UID (new) does not match service account secret ref claim (secret-uid)");

  BoundTokenSpec node_spec = w.spec();
  node_spec.node = ObjectRef{"node-1", "node-uid"};
  const std::string node_token = w.sign(bound_claims(node_spec));
  w.objects["nodes//node-1"] = object("node-1", "node-uid", "");
  CHECK(w.refusal(node_token) == "(authenticated)");
  w.objects.erase("nodes//node-1");
  CHECK(w.refusal(node_token) == "service account token has been invalidated");

  // The account itself: gone, or another one of the same name.
  const std::string plain = w.sign(bound_claims(w.spec()));
  w.objects["serviceaccounts/default/default"] = object("default", "other-uid");
  CHECK(w.refusal(plain) == "service account UID (other-uid) does not match claim (sa-uid)");
  w.objects.erase("serviceaccounts/default/default");
  CHECK(w.refusal(plain) == R"(serviceaccounts "default" not found)");
}

TEST_CASE("legacy Secret tokens hold while their Secret holds them", "[serviceaccount]") {
  World w;
  w.objects["serviceaccounts/default/robot"] = object("robot", "robot-uid");
  json secret = object("robot-token", "secret-uid");
  json claims = legacy_claims("default", "robot", "robot-uid", "robot-token");
  claims["iss"] = kLegacyIssuer;
  const std::string token = w.sign(claims);
  secret["data"] = {{"token", common::base64_encode(token)}};
  w.objects["secrets/default/robot-token"] = secret;
  TokenAnswer answer = w.check(token);
  REQUIRE(answer.outcome == Outcome::Authenticated);
  CHECK(answer.user.name == "system:serviceaccount:default:robot");
  CHECK(answer.user.uid == "robot-uid");
  CHECK(answer.user.extra.empty());
  CHECK(w.used == std::vector<std::string>{"default/robot-token"});
  // Used today already: no new label.
  secret["metadata"]["labels"] = {{kLastUsedLabel, "2024-01-01"}};
  w.objects["secrets/default/robot-token"] = secret;
  CHECK(w.refusal(token) == "(authenticated)");
  CHECK(w.used.size() == 1);
  // A legacy token is for the API server only.
  CHECK(
      w.refusal(token, {"vault"}) ==
      R"(token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["vault"])");

  secret["metadata"]["labels"][kInvalidSinceLabel] = "2023-01-01";
  w.objects["secrets/default/robot-token"] = secret;
  CHECK(w.refusal(token) ==
        "the token in secret default/robot-token for service account default/robot has been "
        "marked invalid. Use tokens from the TokenRequest API or manually created secret-based "
        "tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret "
        "to temporarily allow use of this token");
  secret["data"]["token"] = common::base64_encode(token + "x");
  w.objects["secrets/default/robot-token"] = secret;
  CHECK(w.refusal(token) == "Token does not match server's copy");
  w.objects.erase("secrets/default/robot-token");
  CHECK(w.refusal(token) == "Token has been invalidated");

  auto claims_without = [&](const std::string& key) {
    json claims = legacy_claims("default", "robot", "robot-uid", "robot-token");
    claims.erase(key);
    claims["iss"] = kLegacyIssuer;
    return w.refusal(w.sign(claims));
  };
  CHECK(claims_without("sub") == "sub claim is missing");
  CHECK(claims_without("kubernetes.io/serviceaccount/namespace") == "namespace claim is missing");
  CHECK(claims_without("kubernetes.io/serviceaccount/secret.name") ==
        "secretName claim is missing");
  json other_subject = legacy_claims("default", "robot", "robot-uid", "robot-token");
  other_subject["sub"] = "system:serviceaccount:default:someone-else";
  other_subject["iss"] = kLegacyIssuer;
  CHECK(w.refusal(w.sign(other_subject)) == "sub claim is invalid");
}

TEST_CASE("the union of authenticators words refusals as kube-apiserver logs them",
          "[serviceaccount][authn]") {
  World w;
  apiserver::filters::TokenTable table;
  apiserver::filters::Authenticator authenticator(table, {kIssuer});
  authenticator.add(w.legacy);
  authenticator.add(w.bound);
  auto review = authenticator.review("garbage", {});
  CHECK_FALSE(review.authenticated);
  CHECK(review.error == "invalid bearer token");
  BoundTokenSpec s = w.spec();
  s.audiences = {"vault"};
  const std::string vault_token = w.sign(bound_claims(s));
  review = authenticator.review(vault_token, {});
  CHECK(review.error == R"([invalid bearer token, token audiences ["vault"] is invalid for the )"
                        R"(target audiences ["https://kubernetes.default.svc.cluster.local"]])");
  review = authenticator.review(vault_token, {"vault"});
  REQUIRE(review.authenticated);
  CHECK(review.audiences == std::vector<std::string>{"vault"});
  CHECK(review.user.groups.back() == "system:authenticated");
}
