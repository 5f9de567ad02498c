// Everything service-account tokens need while the server runs, built once from the options:
// the signer (first issuer, signing key), the API audiences, the expiration rules of
// TokenRequest, the two token authenticators (legacy, then bound, as kube-apiserver orders them)
// and the discovery documents.
//
// Thread-safe: const after construction.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/service_accounts.h"
#include "common/clock.h"
#include "common/result.h"
#include "serviceaccount/jwt_authenticator.h"
#include "serviceaccount/keys.h"
#include "serviceaccount/openid_metadata.h"
#include "serviceaccount/validators.h"

namespace apiserver::serviceaccount {

// kube-apiserver's transition rule for kubelet tokens: a pod-bound token asked for exactly
// this long, for the API audiences only, lives a year and warns after the hour.
inline constexpr int64_t kWarnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
inline constexpr int64_t kExpirationExtensionSeconds = 24LL * 365 * 60 * 60;

class ServiceAccountTokens {
 public:
  // `options` must pass check_service_account_options (else std::invalid_argument, at start).
  // Empty issuers mean the default one. `get` reads objects for the validators; `used` hears of
  // legacy tokens whose Secret wants a new last-used label. `clock` must outlive this object.
  ServiceAccountTokens(ServiceAccountOptions options, ObjectGetter get, const common::Clock& clock,
                       LegacyTokenUse used);

  // Whether a signing key is there: TokenRequest is served and legacy token Secrets are filled.
  bool issues_tokens() const { return signing_key_.has_value(); }
  const std::vector<std::string>& issuers() const { return options_.issuers; }
  const std::vector<std::string>& api_audiences() const { return api_audiences_; }
  std::chrono::seconds max_expiration() const { return options_.max_expiration; }
  bool extend_expiration() const { return options_.extend_expiration; }
  const common::Clock& clock() const { return clock_; }

  // A token of `claims` from the first issuer, and a legacy one ("kubernetes/serviceaccount").
  // Only when issues_tokens().
  std::string sign(nlohmann::json claims) const;
  std::string sign_legacy(nlohmann::json claims) const;

  const filters::TokenAuthenticator& legacy_authenticator() const { return *legacy_; }
  const filters::TokenAuthenticator& bound_authenticator() const { return *bound_; }

  // The discovery documents for a server reached at `external_address` (host:port), or why
  // there are none.
  common::Result<OpenIdMetadata> discovery(const std::string& external_address) const;

 private:
  ServiceAccountOptions options_;
  std::vector<std::string> api_audiences_;
  std::optional<SigningKey> signing_key_;
  std::vector<PublicKey> keys_;
  const common::Clock& clock_;
  BoundValidator bound_validator_;
  LegacyValidator legacy_validator_;
  std::unique_ptr<JwtAuthenticator> legacy_;
  std::unique_ptr<JwtAuthenticator> bound_;
};

}  // namespace apiserver::serviceaccount
