#include "filters/authenticator.h"

#include <algorithm>
#include <cctype>

#include "common/go_errors.h"
#include "common/go_quote.h"

namespace apiserver::filters {

namespace {

constexpr const char* kInvalidBearerToken = "invalid bearer token";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// The token of an "Authorization: Bearer <token>" header as upstream's bearer token
// authenticator reads it (trimmed, split on single spaces, scheme case-insensitive), or
// nullopt when the header offers no bearer token at all.
std::optional<std::string_view> bearer_token(std::string_view header) {
  while (!header.empty() && is_space(header.front())) {
    header.remove_prefix(1);
  }
  while (!header.empty() && is_space(header.back())) {
    header.remove_suffix(1);
  }
  size_t space = header.find(' ');
  if (space == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view scheme = header.substr(0, space);
  static constexpr std::string_view kBearer = "bearer";
  if (scheme.size() != kBearer.size() ||
      !std::equal(scheme.begin(), scheme.end(), kBearer.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
      })) {
    return std::nullopt;
  }
  std::string_view token = header.substr(space + 1);
  token = token.substr(0, token.find(' '));
  if (token.empty()) {
    return std::nullopt;  // "Bearer  x": an empty token is no token
  }
  return token;
}

}  // namespace

std::vector<std::string> intersect_audiences(const std::vector<std::string>& have,
                                             const std::vector<std::string>& wanted) {
  std::vector<std::string> out;
  for (const auto& audience : wanted) {
    if (std::find(have.begin(), have.end(), audience) != have.end()) {
      out.push_back(audience);
    }
  }
  return out;
}

std::string quote_list(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i == 0 ? "" : " ") + common::go_quote(values[i]);
  }
  return out + "]";
}

UserInfo with_authenticated_group(UserInfo user) {
  for (const auto& group : user.groups) {
    if (group == "system:authenticated" || group == "system:unauthenticated") {
      return user;
    }
  }
  user.groups.push_back("system:authenticated");
  return user;
}

Authenticator::Authenticator(const TokenTable& tokens, std::vector<std::string> api_audiences)
    : tokens_(tokens), api_audiences_(std::move(api_audiences)) {}

TokenAnswer Authenticator::authenticate_token(std::string_view token,
                                              const std::vector<std::string>& audiences) const {
  std::vector<std::string> errors = {kInvalidBearerToken};
  // The static tokens know no audience: valid for the API audiences, when any are asked.
  std::vector<std::string> static_audiences = audiences;
  if (!audiences.empty()) {
    static_audiences = intersect_audiences(api_audiences_, audiences);
  }
  if (audiences.empty() || !static_audiences.empty()) {
    if (auto it = tokens_.find(token); it != tokens_.end()) {
      TokenAnswer answer;
      answer.outcome = TokenAnswer::Outcome::Authenticated;
      answer.user = it->second;
      answer.audiences = std::move(static_audiences);
      return answer;
    }
  }
  for (const TokenAuthenticator* authenticator : token_authenticators_) {
    TokenAnswer answer = authenticator->authenticate_token(token, audiences);
    if (answer.outcome == TokenAnswer::Outcome::Authenticated) {
      return answer;
    }
    if (answer.outcome == TokenAnswer::Outcome::Failed) {
      errors.push_back(std::move(answer.error));
    }
  }
  return TokenAnswer::failed(common::go_aggregate(errors));
}

Authentication Authenticator::authenticate(const http::Request& request) const {
  if (const auto& cert = request.client_certificate; cert && !cert->common_name.empty()) {
    UserInfo user;
    user.name = cert->common_name;
    user.groups = cert->organizations;
    return {with_authenticated_group(std::move(user)), {}};
  }
  const std::string authorization = request.header("Authorization");
  if (auto token = bearer_token(authorization)) {
    TokenAnswer answer = authenticate_token(*token, api_audiences_);
    if (answer.outcome != TokenAnswer::Outcome::Authenticated) {
      return {std::nullopt, std::move(answer.error)};
    }
    return {with_authenticated_group(std::move(answer.user)), {}};
  }
  if (!anonymous_) {
    return {std::nullopt, {}};  // no credentials and no anonymous user: 401, nothing to log
  }
  UserInfo anonymous;
  anonymous.name = "system:anonymous";
  anonymous.groups = {"system:unauthenticated"};
  return {std::move(anonymous), {}};
}

TokenReviewAnswer Authenticator::review(std::string_view token,
                                        std::vector<std::string> audiences) const {
  if (audiences.empty()) {
    audiences = api_audiences_;
  }
  TokenReviewAnswer review;
  // As the review's fake request: the token alone, in a bearer header.
  const std::string header = "Bearer " + std::string(token);
  auto parsed = bearer_token(header);
  if (!parsed) {
    review.error = kInvalidBearerToken;
    return review;
  }
  TokenAnswer answer = authenticate_token(*parsed, audiences);
  if (answer.outcome != TokenAnswer::Outcome::Authenticated) {
    review.error = std::move(answer.error);
    return review;
  }
  review.authenticated = true;
  review.user = with_authenticated_group(std::move(answer.user));
  review.audiences = std::move(answer.audiences);
  return review;
}

}  // namespace apiserver::filters
