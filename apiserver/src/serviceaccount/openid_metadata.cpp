#include "serviceaccount/openid_metadata.h"

#include <set>

#include <nlohmann/json.hpp>

namespace apiserver::serviceaccount {
namespace {

bool https_url(const std::string& url) {
  constexpr std::string_view kScheme = "https://";
  if (url.size() <= kScheme.size()) {
    return false;
  }
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = url[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c) != kScheme[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

common::Result<OpenIdMetadata> openid_metadata(const std::string& issuer,
                                               const std::string& jwks_uri,
                                               const std::string& external_address,
                                               const std::vector<PublicKey>& keys) {
  using Failure = common::Result<OpenIdMetadata>;
  if (issuer.empty()) {
    return Failure::failure("empty issuer URL");
  }
  if (!https_url(issuer)) {
    return Failure::failure("issuer URL must use https scheme, got: " + issuer);
  }
  if (issuer.find('?') != std::string::npos) {
    return Failure::failure("issuer URL may not include a query, got: " + issuer);
  }
  if (issuer.find('#') != std::string::npos) {
    return Failure::failure("issuer URL may not include a fragment, got: " + issuer);
  }
  std::string uri = jwks_uri;
  if (uri.empty()) {
    if (external_address.empty()) {
      return Failure::failure(
          "either the JWKS URI or the default external address, or both, must be set");
    }
    uri = "https://" + external_address + "/openid/v1/jwks";
  } else if (!https_url(uri)) {
    return Failure::failure("jwksURI requires https scheme, parsed as: " + uri);
  }
  if (keys.empty()) {
    return Failure::failure("no keys provided for validating keyset");
  }
  std::set<std::string> algorithms;  // sorted, as upstream lists them
  nlohmann::ordered_json keyset = {{"keys", nlohmann::ordered_json::array()}};
  for (const PublicKey& key : keys) {
    algorithms.insert(key.algorithm());
    keyset["keys"].push_back(key.jwk());
  }
  nlohmann::ordered_json config;
  config["issuer"] = issuer;
  config["jwks_uri"] = uri;
  config["response_types_supported"] = {"id_token"};
  config["subject_types_supported"] = {"public"};
  config["id_token_signing_alg_values_supported"] =
      std::vector<std::string>(algorithms.begin(), algorithms.end());
  const auto replace = nlohmann::ordered_json::error_handler_t::replace;
  return OpenIdMetadata{config.dump(-1, ' ', false, replace), keyset.dump(-1, ' ', false, replace)};
}

}  // namespace apiserver::serviceaccount
