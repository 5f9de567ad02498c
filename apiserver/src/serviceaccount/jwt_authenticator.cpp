#include "serviceaccount/jwt_authenticator.h"

#include <algorithm>

#include "common/go_errors.h"
#include "serviceaccount/jws.h"

namespace apiserver::serviceaccount {

using filters::TokenAnswer;

JwtAuthenticator::JwtAuthenticator(std::vector<std::string> issuers, std::vector<PublicKey> keys,
                                   std::vector<std::string> implicit_audiences,
                                   const Validator& validator)
    : issuers_(std::move(issuers)),
      keys_(std::move(keys)),
      implicit_audiences_(std::move(implicit_audiences)),
      validator_(validator) {}

TokenAnswer JwtAuthenticator::authenticate_token(std::string_view token,
                                                 const std::vector<std::string>& audiences) const {
  // The issuer, read before anything is verified, picks the authenticator.
  auto payload_bytes = peek_payload(token);
  if (!payload_bytes) {
    return {};
  }
  auto payload = parse_jose_json(*payload_bytes);
  if (!payload) {
    return {};
  }
  auto issuer = peek_issuer(*payload);
  if (!issuer || std::find(issuers_.begin(), issuers_.end(), *issuer) == issuers_.end()) {
    return {};
  }
  auto jws = parse_compact(token);
  if (!jws) {
    return {};
  }
  std::vector<std::string> errors;
  std::optional<PublicClaims> claims;
  for (const PublicKey& key : keys_) {
    if (!verify(*jws, key)) {
      errors.push_back("go-jose/go-jose: error in cryptographic primitive");
      continue;
    }
    auto decoded = read_public_claims(*payload);
    if (!decoded) {
      errors.push_back(decoded.error());
      continue;
    }
    if (auto error = validator_.private_claims_error(*payload)) {
      errors.push_back(std::move(*error));
      continue;
    }
    claims = std::move(*decoded);
    break;
  }
  if (!claims) {
    if (errors.empty()) {
      return {};  // no key at all: an empty aggregate is no error
    }
    return TokenAnswer::failed(common::go_aggregate(errors));
  }
  std::vector<std::string> token_audiences = claims->audience;
  if (token_audiences.empty()) {
    token_audiences = implicit_audiences_;  // a legacy token: only for the API server
  }
  const std::vector<std::string>& requested = audiences.empty() ? implicit_audiences_ : audiences;
  std::vector<std::string> matched = filters::intersect_audiences(token_audiences, requested);
  if (matched.empty() && !implicit_audiences_.empty()) {
    return TokenAnswer::failed("token audiences " + filters::quote_list(token_audiences) +
                               " is invalid for the target audiences " +
                               filters::quote_list(requested));
  }
  auto info = validator_.validate(token, *claims, *payload);
  if (!info) {
    return TokenAnswer::failed(info.error());
  }
  TokenAnswer answer;
  answer.outcome = TokenAnswer::Outcome::Authenticated;
  answer.user = info->user_info();
  answer.audiences = std::move(matched);
  return answer;
}

}  // namespace apiserver::serviceaccount
