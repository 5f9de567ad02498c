// The keys that sign and verify service-account tokens: RSA, or ECDSA on P-256, P-384 or P-521,
// held as OpenSSL keys. A key's id is kube-apiserver's: the SHA-256 of its public key in DER
// (SubjectPublicKeyInfo), base64url without padding. Each key has one JWS algorithm: RS256 for
// RSA, ES256/ES384/ES512 by curve.
//
// Keys are immutable once made and may be shared between threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace apiserver::serviceaccount {

class PublicKey {
 public:
  // The key's JWS algorithm ("RS256", "ES256", ...) and id.
  const std::string& algorithm() const { return algorithm_; }
  const std::string& key_id() const { return key_id_; }
  bool is_rsa() const { return curve_bytes_ == 0; }
  // For ECDSA keys: the size in bytes of one coordinate (32, 48, 66).
  int curve_bytes() const { return curve_bytes_; }
  EVP_PKEY* get() const { return key_.get(); }
  // The JSON Web Key kube-apiserver serves at /openid/v1/jwks, fields in go-jose's order:
  // use, kty, kid, crv, alg, x, y (ECDSA) or n, e (RSA).
  nlohmann::ordered_json jwk() const;
  // The public key as PKIX PEM ("BEGIN PUBLIC KEY").
  std::string pem() const;

  // Takes ownership of `key`; fails when it is neither RSA nor ECDSA on a supported curve.
  static common::Result<PublicKey> adopt(EVP_PKEY* key);

 private:
  std::shared_ptr<EVP_PKEY> key_;
  std::string algorithm_;
  std::string key_id_;
  int curve_bytes_ = 0;
};

class SigningKey {
 public:
  // The private key of `pem` (PKCS#1, SEC 1 or PKCS#8); the error in keyutil's words.
  static common::Result<SigningKey> from_pem(std::string_view pem);

  const PublicKey& public_key() const { return public_; }
  // The JWS signature of `input` with the key's algorithm (for ECDSA, r||s as JWS writes it);
  // empty only if OpenSSL fails.
  std::string sign(std::string_view input) const;

 private:
  std::shared_ptr<EVP_PKEY> key_;
  PublicKey public_;
};

// Every public key in `pem`, as keyutil.ParsePublicKeysPEM reads a --service-account-key-file:
// from private keys, public keys and certificates, whatever their block names. Fails with
// "data does not contain any valid RSA or ECDSA public keys" when there is none.
common::Result<std::vector<PublicKey>> public_keys_from_pem(std::string_view pem);

// A new RSA private key of `bits` bits as PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), as kubeadm
// writes sa.key; empty only if OpenSSL fails.
std::string generate_rsa_key_pem(int bits = 2048);

}  // namespace apiserver::serviceaccount
