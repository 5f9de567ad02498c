#include "serviceaccount/jws.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <memory>

#include "common/base64.h"

namespace apiserver::serviceaccount {
namespace {

struct Parts {
  std::string_view header, payload, signature;
};

std::optional<Parts> split(std::string_view token) {
  if (token.size() > kMaxTokenBytes) {
    return std::nullopt;
  }
  const size_t first = token.find('.');
  if (first == std::string_view::npos) {
    return std::nullopt;
  }
  const size_t second = token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return Parts{token.substr(0, first), token.substr(first + 1, second - first - 1),
               token.substr(second + 1)};
}

// go-jose's reading of one part: trailing '=' cut, then base64url without padding.
std::optional<std::string> decode_part(std::string_view part) {
  while (!part.empty() && part.back() == '=') {
    part.remove_suffix(1);
  }
  auto decoded = common::go_base64_decode(part, common::GoBase64::RawUrl);
  if (!decoded.error.empty()) {
    return std::nullopt;
  }
  return std::move(decoded.bytes);
}

const EVP_MD* digest_of(std::string_view algorithm) {
  const std::string_view bits = algorithm.substr(2);
  return bits == "256" ? EVP_sha256() : bits == "384" ? EVP_sha384() : EVP_sha512();
}

// A JWS ECDSA signature (r||s, both `width` bytes) as the DER that OpenSSL verifies.
std::string ecdsa_der(std::string_view raw, int width) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  ECDSA_SIG* sig = ECDSA_SIG_new();
  BIGNUM* r = BN_bin2bn(bytes, width, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + width, width, nullptr);
  if (sig == nullptr || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return {};
  }
  unsigned char* der = nullptr;
  const int length = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (length <= 0) {
    return {};
  }
  std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(length));
  OPENSSL_free(der);
  return out;
}

bool verify_with(EVP_PKEY* key, const EVP_MD* md, bool pss, std::string_view input,
                 std::string_view signature) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), &pctx, md, nullptr, key) == 1;
  if (ok && pss) {
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) == 1 &&
         EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) == 1;
  }
  ok =
      ok && EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                             input.size()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace

std::optional<std::string> peek_payload(std::string_view token) {
  auto parts = split(token);
  if (!parts) {
    return std::nullopt;
  }
  auto decoded = common::go_base64_decode(parts->payload, common::GoBase64::RawUrl);
  if (!decoded.error.empty()) {
    return std::nullopt;
  }
  return std::move(decoded.bytes);
}

std::optional<CompactJws> parse_compact(std::string_view token) {
  auto parts = split(token);
  if (!parts) {
    return std::nullopt;
  }
  auto header_bytes = decode_part(parts->header);
  auto payload = decode_part(parts->payload);
  auto signature = decode_part(parts->signature);
  if (!header_bytes || !payload || !signature) {
    return std::nullopt;
  }
  auto header = parse_jose_json(*header_bytes);
  if (!header || !header->is_object()) {
    return std::nullopt;
  }
  CompactJws jws;
  for (const char* name : {"alg", "kid"}) {
    auto it = header->find(name);
    if (it != header->end() && !it->is_string() && !it->is_null()) {
      return std::nullopt;  // go-jose: "invalid alg header, not a string"
    }
  }
  if (const JoseJson* alg = field(*header, "alg")) {
    jws.algorithm = alg->get<std::string>();
  }
  if (const JoseJson* crit = field(*header, "crit")) {
    if (!crit->is_array()) {
      return std::nullopt;
    }
    jws.critical = !crit->empty();
  }
  jws.signing_input = token.substr(0, parts->header.size() + 1 + parts->payload.size());
  jws.payload = std::move(*payload);
  jws.signature = std::move(*signature);
  return jws;
}

bool verify(const CompactJws& jws, const PublicKey& key) {
  const std::string& alg = jws.algorithm;
  if (jws.critical || alg.size() != 5) {
    return false;
  }
  const std::string_view family = std::string_view(alg).substr(0, 2);
  const std::string_view bits = std::string_view(alg).substr(2);
  if (bits != "256" && bits != "384" && bits != "512") {
    return false;
  }
  if (key.is_rsa()) {
    if (family != "RS" && family != "PS") {
      return false;
    }
    return verify_with(key.get(), digest_of(alg), family == "PS", jws.signing_input, jws.signature);
  }
  if (family != "ES") {
    return false;
  }
  const int width = bits == "256" ? 32 : bits == "384" ? 48 : 66;
  if (jws.signature.size() != static_cast<size_t>(2 * width)) {
    return false;
  }
  const std::string der = ecdsa_der(jws.signature, width);
  return !der.empty() && verify_with(key.get(), digest_of(alg), false, jws.signing_input, der);
}

std::string sign_compact(const SigningKey& key, const nlohmann::json& claims) {
  const nlohmann::json header = {{"alg", key.public_key().algorithm()},
                                 {"kid", key.public_key().key_id()}};
  // Text from clients (audiences) was decoded as UTF-8 already; replace, never throw, regardless.
  const std::string payload = claims.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string input =
      common::base64url_encode_raw(header.dump()) + "." + common::base64url_encode_raw(payload);
  const std::string signature = key.sign(input);
  return input + "." + common::base64url_encode_raw(signature);
}

}  // namespace apiserver::serviceaccount
