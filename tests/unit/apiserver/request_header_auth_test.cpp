// kube-apiserver's requestheader authenticator: a front proxy's certificate (signed by the
// requestheader CA, with an allowed common name) names the user in X-Remote-* headers.
#include <catch2/catch.hpp>

#include "filters/authenticator.h"

using namespace apiserver;

namespace {

http::Request from_proxy(const std::string& common_name, bool requestheader_ca, bool client_ca) {
  http::Request request;
  request.method = "GET";
  request.path = "/api/v1/pods";
  request.target = request.path;
  http::ClientCertificate cert;
  cert.common_name = common_name;
  cert.from_requestheader_ca = requestheader_ca;
  cert.from_client_ca = client_ca;
  request.client_certificate = cert;
  return request;
}

}  // namespace

TEST_CASE("a front proxy names the user in request headers", "[authn]") {
  filters::TokenTable tokens;
  filters::Authenticator authenticator(tokens);
  filters::RequestHeaderConfig config;
  config.allowed_names = {"front-proxy-client"};
  authenticator.set_request_header(config);

  http::Request request = from_proxy("front-proxy-client", true, false);
  request.headers["X-Remote-User"] = "carol";
  request.headers["X-Remote-Group"] = "a, b";
  request.repeated_headers["X-Remote-Group"] = {"a", "b"};
  request.headers["X-Remote-Extra-Scopes.example.com%2fLevel"] = "high";
  auto answer = authenticator.authenticate(request);
  REQUIRE(answer.user);
  CHECK(answer.user->name == "carol");
  CHECK(answer.user->groups == std::vector<std::string>{"a", "b", "system:authenticated"});
  CHECK(answer.user->extra ==
        std::map<std::string, std::vector<std::string>>{{"scopes.example.com/level", {"high"}}});

  // Without a user header, or from a name not allowed, the certificate names nobody.
  auto nobody = authenticator.authenticate(from_proxy("front-proxy-client", true, false));
  CHECK_FALSE(nobody.user);
  CHECK(nobody.error == "x509: certificate signed by unknown authority");
  http::Request stranger = from_proxy("someone", true, false);
  stranger.headers["X-Remote-User"] = "carol";
  auto refused = authenticator.authenticate(stranger);
  CHECK_FALSE(refused.user);
  CHECK(refused.error == "x509: subject with cn=someone is not in the allowed list");

  // A certificate of the client CA is its own user: the headers mean nothing there.
  http::Request admin = from_proxy("admin", false, true);
  admin.headers["X-Remote-User"] = "carol";
  auto own = authenticator.authenticate(admin);
  REQUIRE(own.user);
  CHECK(own.user->name == "admin");
}
