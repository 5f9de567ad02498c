// The continue token: round trips, and every token that is not one gets upstream's text.
#include <catch2/catch.hpp>

#include <string>

#include "common/base64.h"
#include "endpoints/continue_token.h"

using apiserver::endpoints::decode_continue;
using apiserver::endpoints::encode_continue;

namespace {

constexpr const char* kPrefix = "/registry/configmaps/";

// base64url without padding, as upstream encodes tokens.
std::string token_of(const std::string& json_text) {
  return common::base64url_encode_raw(json_text);
}

std::string error_of(const std::string& token) {
  auto decoded = decode_continue(token, kPrefix);
  return decoded ? std::string("<valid>") : decoded.error();
}

}  // namespace

TEST_CASE("a continue token round trips to its revision and full key", "[continue]") {
  const std::string token = encode_continue(42, std::string("default/app\0", 12));
  CHECK(token.find('=') == std::string::npos);
  auto decoded = decode_continue(token, kPrefix);
  REQUIRE(decoded);
  CHECK(decoded->revision == 42);
  CHECK(decoded->start_key == std::string("/registry/configmaps/default/app\0", 33));
}

TEST_CASE("upstream's own token format is read", "[continue]") {
  auto decoded =
      decode_continue(token_of(R"({"v":"meta.k8s.io/v1","rv":7,"start":"ns/b\u0000"})"), kPrefix);
  REQUIRE(decoded);
  CHECK(decoded->revision == 7);
}

TEST_CASE("a token that is not one answers continue key is not valid", "[continue]") {
  CHECK(error_of("abc$") == "continue key is not valid: illegal base64 data at input byte 3");
  CHECK(error_of("eyJ2Ijo=") == "continue key is not valid: illegal base64 data at input byte 7");
  CHECK(error_of("a") == "continue key is not valid: illegal base64 data at input byte 0");
  CHECK(error_of(token_of("[1]")) ==
        "continue key is not valid: json: cannot unmarshal array into Go value of type "
        "storage.continueToken");
  CHECK(error_of(token_of("{\"v\":")) == "continue key is not valid: unexpected end of JSON input");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","rv":"7","start":"a"})")) ==
        "continue key is not valid: json: cannot unmarshal string into Go struct field "
        "continueToken.rv of type int64");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","rv":1.5,"start":"a"})")) ==
        "continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field "
        "continueToken.rv of type int64");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","rv":99999999999999999999,"start":"a"})")) ==
        "continue key is not valid: json: cannot unmarshal number 99999999999999999999 into Go "
        "struct field continueToken.rv of type int64");
  CHECK(error_of(token_of(R"({"v":{},"rv":1,"start":"a"})")) ==
        "continue key is not valid: json: cannot unmarshal object into Go struct field "
        "continueToken.v of type string");
  CHECK(error_of(token_of(R"({"v":"v2","rv":1,"start":"a"})")) ==
        "continue key is not valid: server does not recognize this encoded version v2");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","start":"a"})")) ==
        "continue key is not valid: incorrect encoded start resourceVersion (version "
        "meta.k8s.io/v1)");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","rv":3})")) ==
        "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","rv":3,"start":"../secrets/x"})")) ==
        "continue key is not valid: ../secrets/x");
  CHECK(error_of(token_of(R"({"v":"meta.k8s.io/v1","rv":3,"start":"a//b"})")) ==
        "continue key is not valid: a//b");
}

TEST_CASE("a negative revision reads the newest, as upstream", "[continue]") {
  auto decoded =
      decode_continue(token_of(R"({"v":"meta.k8s.io/v1","rv":-4,"start":"a"})"), kPrefix);
  REQUIRE(decoded);
  CHECK(decoded->revision == 0);
  CHECK(decoded->start_key == "/registry/configmaps/a");
}
