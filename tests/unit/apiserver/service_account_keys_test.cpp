// The keys and signatures of service-account tokens: PEM forms read as keyutil reads them, key
// ids as kube-apiserver derives them, JWKs, and compact JWS signing and verification.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "common/base64.h"
#include "common/read_file.h"
#include "serviceaccount/jws.h"
#include "serviceaccount/keys.h"

namespace {

using namespace apiserver::serviceaccount;

std::string data_file(const std::string& name) {
  auto text = common::read_file(std::string(KS_APISERVER_TEST_DATA) + "/" + name);
  REQUIRE(text);
  return *text;
}

SigningKey rsa_key() {
  auto key = SigningKey::from_pem(data_file("sa_rsa.key"));
  REQUIRE(key);
  return *key;
}

SigningKey ec_key() {
  auto key = SigningKey::from_pem(data_file("sa_ec.key"));
  REQUIRE(key);
  return *key;
}

// The parts of a compact token, with one replaced.
std::string replace_part(const std::string& token, int index, const std::string& part) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    size_t dot = token.find('.', start);
    parts.push_back(token.substr(start, dot - start));
    start = dot + 1;
  }
  parts[static_cast<size_t>(index)] = part;
  return parts[0] + "." + parts[1] + "." + parts[2];
}

}  // namespace

TEST_CASE("key ids are the base64url SHA-256 of the public key's DER", "[serviceaccount]") {
  // Computed with: openssl pkey -pubout -outform DER | openssl dgst -sha256 -binary | base64url
  CHECK(rsa_key().public_key().key_id() == "tGKm3q2VqHti6peVTzkdzWOBRaHxSwPPtAhvVILTNSQ");
  CHECK(ec_key().public_key().key_id() == "UnGobO26Z_Imu3EMsvB3LOXebRW6lil6OE4H3gtoVzk");
  CHECK(rsa_key().public_key().algorithm() == "RS256");
  CHECK(ec_key().public_key().algorithm() == "ES256");
}

TEST_CASE("a key file's public keys come from private keys, public keys and certificates",
          "[serviceaccount]") {
  const std::string rsa_public = rsa_key().public_key().pem();
  REQUIRE(rsa_public.rfind("-----BEGIN PUBLIC KEY-----", 0) == 0);
  auto keys = public_keys_from_pem("junk before\n" + rsa_public + data_file("sa_ec.crt") +
                                   "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n"
                                   "-----END EC PARAMETERS-----\n" +
                                   data_file("sa_rsa.key"));
  REQUIRE(keys);
  REQUIRE(keys->size() == 3);
  CHECK((*keys)[0].key_id() == "tGKm3q2VqHti6peVTzkdzWOBRaHxSwPPtAhvVILTNSQ");
  CHECK((*keys)[1].key_id() == "UnGobO26Z_Imu3EMsvB3LOXebRW6lil6OE4H3gtoVzk");
  CHECK((*keys)[2].key_id() == "tGKm3q2VqHti6peVTzkdzWOBRaHxSwPPtAhvVILTNSQ");
  for (const char* nothing : {"", "not PEM at all", "-----BEGIN PUBLIC KEY-----\n!!\n"}) {
    CAPTURE(nothing);
    auto none = public_keys_from_pem(nothing);
    REQUIRE_FALSE(none);
    CHECK(none.error() == "data does not contain any valid RSA or ECDSA public keys");
  }
  auto not_private = SigningKey::from_pem(rsa_public);
  REQUIRE_FALSE(not_private);
  CHECK(not_private.error() == "data does not contain a valid RSA or ECDSA private key");
}

TEST_CASE("JWKs carry go-jose's fields in its order", "[serviceaccount]") {
  const auto rsa = rsa_key().public_key().jwk();
  std::vector<std::string> keys;
  for (const auto& [k, v] : rsa.items()) {
    keys.push_back(k);
  }
  CHECK(keys == std::vector<std::string>{"use", "kty", "kid", "alg", "n", "e"});
  CHECK(rsa["e"] == "AQAB");
  auto n = common::go_base64_decode(rsa["n"].get<std::string>(), common::GoBase64::RawUrl);
  CHECK(n.error.empty());
  CHECK(n.bytes.size() == 256);
  const auto ec = ec_key().public_key().jwk();
  CHECK(
      ec.dump().rfind(
          R"({"use":"sig","kty":"EC","kid":"UnGobO26Z_Imu3EMsvB3LOXebRW6lil6OE4H3gtoVzk","crv":"P-256","alg":"ES256","x":")",
          0) == 0);
  for (const char* coordinate : {"x", "y"}) {
    auto bytes =
        common::go_base64_decode(ec[coordinate].get<std::string>(), common::GoBase64::RawUrl);
    CHECK(bytes.bytes.size() == 32);
  }
}

TEST_CASE("compact tokens verify with their own key only", "[serviceaccount]") {
  const nlohmann::json claims = {{"iss", "https://issuer"}, {"sub", "me"}};
  for (const SigningKey& key : {rsa_key(), ec_key()}) {
    CAPTURE(key.public_key().algorithm());
    const std::string token = sign_compact(key, claims);
    auto header =
        common::go_base64_decode(token.substr(0, token.find('.')), common::GoBase64::RawUrl);
    CHECK(header.bytes == R"({"alg":")" + key.public_key().algorithm() + R"(","kid":")" +
                              key.public_key().key_id() + R"("})");
    auto jws = parse_compact(token);
    REQUIRE(jws);
    CHECK(nlohmann::json::parse(jws->payload) == claims);
    CHECK(verify(*jws, key.public_key()));
    const SigningKey& other = key.public_key().is_rsa() ? ec_key() : rsa_key();
    CHECK_FALSE(verify(*jws, other.public_key()));
    // Another payload under the same signature.
    const std::string forged = replace_part(
        token, 1, common::base64url_encode_raw(R"({"iss":"https://issuer","sub":"root"})"));
    auto forged_jws = parse_compact(forged);
    REQUIRE(forged_jws);
    CHECK_FALSE(verify(*forged_jws, key.public_key()));
    // Padding is tolerated where go-jose tolerates it, not in the payload the issuer is read from.
    const std::string padded_token = token + "==";
    auto padded = parse_compact(padded_token);
    REQUIRE(padded);
    CHECK(verify(*padded, key.public_key()));
    CHECK(peek_payload(token));
    const size_t first = token.find('.');
    const std::string payload_part = token.substr(first + 1, token.rfind('.') - first - 1);
    const std::string padded_payload = replace_part(token, 1, payload_part + "=");
    CHECK_FALSE(peek_payload(padded_payload));
    CHECK(parse_compact(padded_payload));
  }
}

TEST_CASE("headers that go-jose refuses or that verify nothing", "[serviceaccount]") {
  const SigningKey key = rsa_key();
  const std::string token = sign_compact(key, {{"iss", "x"}});
  auto with_header = [&](const std::string& header) {
    return replace_part(token, 0, common::base64url_encode_raw(header));
  };
  // Not a compact JWS at all.
  for (const std::string& bad :
       {std::string(""), std::string("a.b"), std::string("a.b.c.d"), with_header("[]"),
        with_header("{"), with_header(R"({"alg":5})"), with_header(R"({"kid":{}})"),
        with_header(R"({"alg":"RS256","crit":"b64"})"), replace_part(token, 2, "***"),
        std::string(kMaxTokenBytes + 1, 'a')}) {
    CAPTURE(bad.substr(0, 80));
    CHECK_FALSE(parse_compact(bad));
  }
  // Read, but verified by no key.
  for (const std::string& header :
       {std::string(R"({"alg":"none"})"), std::string(R"({"alg":"HS256"})"),
        std::string(R"({"alg":"ES256"})"), std::string(R"({"alg":"RS999"})"),
        std::string(R"({"kid":"x"})"), std::string(R"({"alg":"RS256","crit":["exp"]})")}) {
    CAPTURE(header);
    const std::string with = with_header(header);
    auto jws = parse_compact(with);
    REQUIRE(jws);
    CHECK_FALSE(verify(*jws, key.public_key()));
  }
  // A signature made for RS256, claimed as PS256, fails.
  auto resigned = parse_compact(token);
  REQUIRE(resigned);
  resigned->algorithm = "PS256";
  CHECK_FALSE(verify(*resigned, key.public_key()));
}
