#include "serviceaccount/service_account_tokens.h"

#include <stdexcept>

#include "serviceaccount/claims.h"
#include "serviceaccount/jws.h"

namespace apiserver::serviceaccount {

ServiceAccountTokens::ServiceAccountTokens(ServiceAccountOptions options, ObjectGetter get,
                                           const common::Clock& clock, LegacyTokenUse used)
    : options_(std::move(options)),
      clock_(clock),
      bound_validator_(get, clock),
      legacy_validator_(get, clock, std::move(used)) {
  if (auto problem = check_service_account_options(options_)) {
    throw std::invalid_argument(*problem);
  }
  if (options_.issuers.empty()) {
    options_.issuers = {kDefaultServiceAccountIssuer};
  }
  api_audiences_ = options_.api_audiences.empty() ? options_.issuers : options_.api_audiences;
  if (!options_.signing_key_pem.empty()) {
    auto key = SigningKey::from_pem(options_.signing_key_pem);
    signing_key_ = std::move(*key);  // checked above
  }
  for (const auto& [name, pem] : options_.key_files) {
    auto keys = public_keys_from_pem(pem);
    keys_.insert(keys_.end(), keys->begin(), keys->end());
  }
  if (options_.key_files.empty() && signing_key_) {
    keys_.push_back(signing_key_->public_key());
  }
  legacy_ = std::make_unique<JwtAuthenticator>(std::vector<std::string>{kLegacyIssuer}, keys_,
                                               api_audiences_, legacy_validator_);
  bound_ =
      std::make_unique<JwtAuthenticator>(options_.issuers, keys_, api_audiences_, bound_validator_);
}

std::string ServiceAccountTokens::sign(nlohmann::json claims) const {
  claims["iss"] = options_.issuers.front();
  return sign_compact(*signing_key_, claims);
}

std::string ServiceAccountTokens::sign_legacy(nlohmann::json claims) const {
  claims["iss"] = kLegacyIssuer;
  return sign_compact(*signing_key_, claims);
}

common::Result<OpenIdMetadata> ServiceAccountTokens::discovery(
    const std::string& external_address) const {
  return openid_metadata(options_.issuers.front(), options_.jwks_uri, external_address, keys_);
}

}  // namespace apiserver::serviceaccount
