// Service-account tokens as kube-apiserver configures them: the issuers, the signing key, the
// verification keys and the API audiences (its --service-account-* and --api-audiences flags).
//
// The keys are PEM text, read by the caller. kube-apiserver's rules apply:
//   - the first issuer is written into new tokens; every issuer is accepted in tokens presented;
//   - the signing key is an RSA or ECDSA (P-256, P-384, P-521) private key, in any PEM form
//     (PKCS#1 "RSA PRIVATE KEY", SEC 1 "EC PRIVATE KEY", PKCS#8 "PRIVATE KEY");
//   - each verification file holds one or more public keys, private keys or certificates (RSA or
//     ECDSA) in PEM blocks of any name; blocks that are none of these are skipped;
//   - the API audiences default to the issuers.
//
// Thread-safe: every function here is pure apart from the files ensure_signing_key writes.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace apiserver {

// kubeadm's issuer, the flag's default here.
inline constexpr const char* kDefaultServiceAccountIssuer =
    "https://kubernetes.default.svc.cluster.local";

struct ServiceAccountOptions {
  // --service-account-issuer, in the order given.
  std::vector<std::string> issuers;
  // --service-account-signing-key-file's PEM text; empty: no tokens are issued (TokenRequest is
  // not served and legacy token secrets stay empty), as a kube-apiserver without the flag.
  std::string signing_key_pem;
  // --service-account-key-file: (name, PEM text) of each file, for the messages; empty: the
  // signing key's public key alone.
  std::vector<std::pair<std::string, std::string>> key_files;
  // --api-audiences; empty: the issuers.
  std::vector<std::string> api_audiences;
  // --service-account-max-token-expiration; 0 for none.
  std::chrono::seconds max_expiration{0};
  // --service-account-extend-token-expiration.
  bool extend_expiration = true;
  // --service-account-jwks-uri; empty: https://<external address>/openid/v1/jwks.
  std::string jwks_uri;
};

// What is wrong with the options, in kube-apiserver's words (one line per problem), or nullopt.
// Checks the issuers, the keys' PEM, the maximum expiration and the JWKS URI.
std::optional<std::string> check_service_account_options(const ServiceAccountOptions& options);

// The service-account key pair of a data directory, as kubeadm keeps it: `<pki_dir>/sa.key` (an
// RSA 2048 private key, PKCS#1 PEM, mode 0600) and `<pki_dir>/sa.pub` (its public key, PKIX PEM,
// mode 0644). Both are created when sa.key is missing; sa.pub is rewritten from sa.key when it
// is missing. Returns sa.key's PEM, or the error naming the file.
common::Result<std::string> ensure_signing_key(const std::filesystem::path& pki_dir);

}  // namespace apiserver
