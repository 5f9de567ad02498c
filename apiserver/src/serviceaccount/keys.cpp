#include "serviceaccount/keys.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "common/base64.h"
#include "openssl_io.h"

namespace apiserver::serviceaccount {
namespace {

using openssl_io::bio_contents;
using openssl_io::BioPtr;
using openssl_io::memory_bio;
using openssl_io::no_passphrase;

struct BnFree {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;

std::shared_ptr<EVP_PKEY> share(EVP_PKEY* key) {
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

// A big number's bytes, big-endian; `width` pads on the left (0: as few bytes as it takes).
std::string bn_bytes(EVP_PKEY* key, const char* param, int width) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, param, &raw) != 1) {
    return {};
  }
  BnPtr bn(raw);
  const int size = width > 0 ? width : BN_num_bytes(bn.get());
  std::string out(static_cast<size_t>(size), '\0');
  BN_bn2binpad(bn.get(), reinterpret_cast<unsigned char*>(out.data()), size);
  return out;
}

// The public key of one DER block: a private key (PKCS#1, SEC 1, PKCS#8), a SubjectPublicKeyInfo
// or a certificate; nullptr when it is none of them.
EVP_PKEY* public_key_of_der(const unsigned char* der, long length) {
  const unsigned char* p = der;
  if (EVP_PKEY* key = d2i_AutoPrivateKey(nullptr, &p, length)) {
    return key;
  }
  p = der;
  if (EVP_PKEY* key = d2i_PUBKEY(nullptr, &p, length)) {
    return key;
  }
  p = der;
  if (X509* cert = d2i_X509(nullptr, &p, length)) {
    EVP_PKEY* key = X509_get_pubkey(cert);
    X509_free(cert);
    return key;
  }
  return nullptr;
}

}  // namespace

common::Result<PublicKey> PublicKey::adopt(EVP_PKEY* raw) {
  std::shared_ptr<EVP_PKEY> key = share(raw);
  PublicKey out;
  const int type = EVP_PKEY_get_base_id(raw);
  if (type == EVP_PKEY_RSA) {
    out.algorithm_ = "RS256";
  } else if (type == EVP_PKEY_EC) {
    switch (EVP_PKEY_get_bits(raw)) {
      case 256:
        out.algorithm_ = "ES256";
        out.curve_bytes_ = 32;
        break;
      case 384:
        out.algorithm_ = "ES384";
        out.curve_bytes_ = 48;
        break;
      case 521:
        out.algorithm_ = "ES512";
        out.curve_bytes_ = 66;
        break;
      default:
        return common::Result<PublicKey>::failure(
            "unknown private key curve, must be 256, 384, or 521");
    }
  } else {
    return common::Result<PublicKey>::failure("the key is neither an RSA nor an ECDSA key");
  }
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(raw, &der);
  if (length <= 0) {
    return common::Result<PublicKey>::failure("failed to serialize public key to DER format");
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der, static_cast<size_t>(length), digest);
  OPENSSL_free(der);
  out.key_id_ = common::base64url_encode_raw(
      std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
  out.key_ = std::move(key);
  return out;
}

nlohmann::ordered_json PublicKey::jwk() const {
  nlohmann::ordered_json jwk;
  jwk["use"] = "sig";
  jwk["kty"] = is_rsa() ? "RSA" : "EC";
  jwk["kid"] = key_id_;
  if (!is_rsa()) {
    jwk["crv"] = curve_bytes_ == 32 ? "P-256" : curve_bytes_ == 48 ? "P-384" : "P-521";
  }
  jwk["alg"] = algorithm_;
  if (is_rsa()) {
    jwk["n"] = common::base64url_encode_raw(bn_bytes(key_.get(), OSSL_PKEY_PARAM_RSA_N, 0));
    jwk["e"] = common::base64url_encode_raw(bn_bytes(key_.get(), OSSL_PKEY_PARAM_RSA_E, 0));
  } else {
    jwk["x"] =
        common::base64url_encode_raw(bn_bytes(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X, curve_bytes_));
    jwk["y"] =
        common::base64url_encode_raw(bn_bytes(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, curve_bytes_));
  }
  return jwk;
}

std::string PublicKey::pem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(bio.get(), key_.get());
  return bio_contents(bio.get());
}

common::Result<SigningKey> SigningKey::from_pem(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = memory_bio(pem);
  EVP_PKEY* raw = PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr);
  ERR_clear_error();
  if (raw == nullptr) {
    return common::Result<SigningKey>::failure(
        "data does not contain a valid RSA or ECDSA private key");
  }
  SigningKey out;
  out.key_ = share(raw);
  EVP_PKEY_up_ref(raw);
  auto public_key = PublicKey::adopt(raw);
  if (!public_key) {
    return common::Result<SigningKey>::failure(public_key.error());
  }
  out.public_ = std::move(*public_key);
  return out;
}

std::string SigningKey::sign(std::string_view input) const {
  const EVP_MD* md = public_.curve_bytes() == 48   ? EVP_sha384()
                     : public_.curve_bytes() == 66 ? EVP_sha512()
                                                   : EVP_sha256();
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, data, input.size()) != 1) {
    ERR_clear_error();
    return {};
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length, data,
                     input.size()) != 1) {
    ERR_clear_error();
    return {};
  }
  signature.resize(length);
  if (public_.is_rsa()) {
    return signature;
  }
  // ECDSA: OpenSSL writes an ASN.1 Ecdsa-Sig-Value; JWS wants r and s side by side.
  const auto* p = reinterpret_cast<const unsigned char*>(signature.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(signature.size()));
  if (sig == nullptr) {
    ERR_clear_error();
    return {};
  }
  const int width = public_.curve_bytes();
  std::string raw(static_cast<size_t>(2 * width), '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), out, width);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), out + width, width);
  ECDSA_SIG_free(sig);
  return raw;
}

common::Result<std::vector<PublicKey>> public_keys_from_pem(std::string_view pem) {
  std::vector<PublicKey> keys;
  ERR_clear_error();
  BioPtr bio = memory_bio(pem);
  while (true) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &length) != 1) {
      break;
    }
    EVP_PKEY* key = public_key_of_der(data, length);
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
    if (key != nullptr) {
      if (auto adopted = PublicKey::adopt(key)) {
        keys.push_back(std::move(*adopted));
      }
    }
  }
  ERR_clear_error();  // the read that ended the loop reports "no start line"
  if (keys.empty()) {
    return common::Result<std::vector<PublicKey>>::failure(
        "data does not contain any valid RSA or ECDSA public keys");
  }
  return keys;
}

std::string generate_rsa_key_pem(int bits) {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits));
  if (key == nullptr) {
    ERR_clear_error();
    return {};
  }
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  EVP_PKEY_free(key);
  return bio_contents(bio.get());
}

}  // namespace apiserver::serviceaccount
