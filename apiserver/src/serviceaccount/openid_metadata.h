// The documents of service-account issuer discovery, as kube-apiserver renders them once at
// start: the OpenID provider configuration served at /.well-known/openid-configuration and the
// JSON Web Key Set of the verification keys served at /openid/v1/jwks.
//
//   {"issuer":"https://kubernetes.default.svc.cluster.local",
//    "jwks_uri":"https://127.0.0.1:6443/openid/v1/jwks",
//    "response_types_supported":["id_token"],"subject_types_supported":["public"],
//    "id_token_signing_alg_values_supported":["RS256"]}
//
//   {"keys":[{"use":"sig","kty":"RSA","kid":"...","alg":"RS256","n":"...","e":"AQAB"}]}
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "serviceaccount/keys.h"

namespace apiserver::serviceaccount {

inline constexpr const char* kOpenIdConfigPath = "/.well-known/openid-configuration";
inline constexpr const char* kJwksPath = "/openid/v1/jwks";

struct OpenIdMetadata {
  std::string config_json;
  std::string keyset_json;
};

// The documents for `issuer`, or why discovery cannot be served (kube-apiserver then serves no
// discovery and logs the reason): the issuer must be an https URL without query or fragment.
// `jwks_uri` empty: https://<external_address>/openid/v1/jwks.
common::Result<OpenIdMetadata> openid_metadata(const std::string& issuer,
                                               const std::string& jwks_uri,
                                               const std::string& external_address,
                                               const std::vector<PublicKey>& keys);

}  // namespace apiserver::serviceaccount
