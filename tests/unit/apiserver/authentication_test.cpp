// Authentication as kube-apiserver's bearer token and anonymous authenticators do it, with the
// token table compared in constant time, and the admit hook that runs it from the header alone.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/apiserver.h"
#include "filters/authentication.h"
#include "store/store.h"

namespace {

using apiserver::filters::authenticate;
using apiserver::filters::TokenTable;

apiserver::http::Request with_authorization(const std::string& value) {
  apiserver::http::Request request;
  request.method = "GET";
  request.path = "/api/v1/pods";
  request.target = request.path;
  if (!value.empty()) {
    request.headers["Authorization"] = value;
  }
  return request;
}

TokenTable table() {
  TokenTable tokens;
  tokens.set("s3cret", {"alice", {"dev"}});
  tokens.set("other", {"bob", {}});
  return tokens;
}

}  // namespace

TEST_CASE("the token table finds whole tokens only", "[authn]") {
  TokenTable tokens = table();
  REQUIRE(tokens.find("s3cret") != tokens.end());
  CHECK(tokens.find("s3cret")->second.name == "alice");
  CHECK(tokens.find("other")->second.name == "bob");
  for (const char* wrong : {"s3cre", "s3cret ", "S3CRET", "", "s3cretx", "x"}) {
    CAPTURE(wrong);
    CHECK(tokens.find(wrong) == tokens.end());
  }
  tokens.set("s3cret", {"carol", {}});
  CHECK(tokens.size() == 2);
  CHECK(tokens.find("s3cret")->second.name == "carol");
  CHECK(TokenTable().find("s3cret") == TokenTable().end());
}

TEST_CASE("the Authorization header is read as upstream's bearer authenticator reads it",
          "[authn]") {
  TokenTable tokens = table();
  auto user_of = [&](const std::string& header) -> std::string {
    auto user = authenticate(with_authorization(header), tokens);
    return user ? user->name : "(401)";
  };
  CHECK(user_of("Bearer s3cret") == "alice");
  CHECK(user_of("bearer s3cret") == "alice");
  CHECK(user_of("BEARER s3cret trailing words") == "alice");
  CHECK(user_of(" \tBearer s3cret \t") == "alice");
  CHECK(user_of("Bearer wrong") == "(401)");
  // No bearer token offered at all: anonymous.
  CHECK(user_of("") == "system:anonymous");
  CHECK(user_of("Basic YWxpY2U6cHc=") == "system:anonymous");
  CHECK(user_of("Bearer") == "system:anonymous");
  CHECK(user_of("Bearer  s3cret") == "system:anonymous");
  CHECK(user_of("Bearers3cret") == "system:anonymous");
  auto alice = authenticate(with_authorization("Bearer s3cret"), tokens);
  REQUIRE(alice);
  CHECK(alice->groups == std::vector<std::string>{"dev", "system:authenticated"});
}

TEST_CASE("the admit hook refuses from the header what handle() refuses", "[authn][admit]") {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto db = std::move(store::Store::open(options)).value();
  apiserver::ApiServerConfig config;
  config.tokens["t0ken"] = {"admin", {"system:masters"}};
  apiserver::ApiServer api(*db, config);
  api.bootstrap();  // the bootstrap RBAC policy lets anyone read /healthz

  auto bad = with_authorization("Bearer nope");
  auto refused = api.admit(bad);
  REQUIRE(refused);
  CHECK(refused->status == 401);
  CHECK(refused->body == R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                         R"("message":"Unauthorized","reason":"Unauthorized","code":401})");
  CHECK(api.handle(bad).body == refused->body);

  auto anonymous = with_authorization("");
  anonymous.method = "POST";
  auto forbidden = api.admit(anonymous);
  REQUIRE(forbidden);
  CHECK(forbidden->status == 403);
  // A resource request is refused as the authorization filter refuses it.
  CHECK(forbidden->body ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
        R"("pods is forbidden: User \"system:anonymous\" cannot create resource \"pods\" in )"
        R"(API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"pods"},)"
        R"("code":403})");
  auto path = with_authorization("");
  path.path = "/logs";
  CHECK(nlohmann::json::parse(api.admit(path)->body)["message"] ==
        "forbidden: User \"system:anonymous\" cannot get path \"/logs\"");
  CHECK(api.handle(anonymous).status == 403);

  auto health = with_authorization("");
  health.path = "/healthz";
  CHECK_FALSE(api.admit(health));
  auto good = with_authorization("Bearer t0ken");
  CHECK_FALSE(api.admit(good));
}
