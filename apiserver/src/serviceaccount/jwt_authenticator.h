// kube-apiserver's JWT token authenticator for service-account tokens, one per kind of token:
// the bound one (issuers = --service-account-issuer, BoundValidator) and the legacy one (issuer
// "kubernetes/serviceaccount", LegacyValidator).
//
// A token whose unverified "iss" is not one of its issuers, or that is no compact JWS, is not
// its business (NotMine). Otherwise each verification key is tried in turn; the first that
// verifies the signature and under which the claims decode wins, else the token is refused with
// the keys' errors ("go-jose/go-jose: error in cryptographic primitive"). Then the audiences:
// a token without "aud" counts as made for the API audiences, and the audiences asked must
// share one with it ("token audiences [...] is invalid for the target audiences [...]"). Last,
// the validator.
//
// Thread-safe: const after construction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filters/token_authenticator.h"
#include "serviceaccount/keys.h"
#include "serviceaccount/validators.h"

namespace apiserver::serviceaccount {

class JwtAuthenticator final : public filters::TokenAuthenticator {
 public:
  // `implicit_audiences`: the API audiences. `validator` must outlive the authenticator.
  JwtAuthenticator(std::vector<std::string> issuers, std::vector<PublicKey> keys,
                   std::vector<std::string> implicit_audiences, const Validator& validator);

  filters::TokenAnswer authenticate_token(std::string_view token,
                                          const std::vector<std::string>& audiences) const override;

 private:
  std::vector<std::string> issuers_;
  std::vector<PublicKey> keys_;
  std::vector<std::string> implicit_audiences_;
  const Validator& validator_;
};

}  // namespace apiserver::serviceaccount
