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

namespace {

// Every value of header `name`, in order (a header sent once has one).
std::vector<std::string> header_values(const http::Request& request, const std::string& name) {
  if (auto it = request.repeated_headers.find(name); it != request.repeated_headers.end()) {
    return it->second;
  }
  const std::string value = request.header(name);
  return value.empty() ? std::vector<std::string>{} : std::vector<std::string>{value};
}

// Go's url.PathUnescape, or the text as it is when it is not a valid escape.
std::string path_unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      return text;
    }
    auto digit = [](char c) {
      return c <= '9' ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    };
    out.push_back(static_cast<char>(digit(text[i + 1]) * 16 + digit(text[i + 2])));
    i += 2;
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// The user a front proxy names in `request`'s headers; nullopt when it names none.
std::optional<UserInfo> request_header_user(const http::Request& request,
                                            const RequestHeaderConfig& config) {
  UserInfo user;
  for (const auto& header : config.username_headers) {
    if (std::string name = request.header(header); !name.empty()) {
      user.name = std::move(name);
      break;
    }
  }
  if (user.name.empty()) {
    return std::nullopt;
  }
  for (const auto& header : config.group_headers) {
    for (auto& group : header_values(request, header)) {
      user.groups.push_back(std::move(group));
    }
  }
  for (const auto& [name, value] : request.headers) {
    for (const auto& prefix : config.extra_prefixes) {
      if (name.size() > prefix.size() && lower(name.substr(0, prefix.size())) == lower(prefix)) {
        const std::string key = lower(path_unescape(name.substr(prefix.size())));
        for (auto& v : header_values(request, name)) {
          user.extra[key].push_back(std::move(v));
        }
      }
    }
  }
  return user;
}

}  // namespace

Authentication Authenticator::authenticate(const http::Request& request) const {
  const auto& cert = request.client_certificate;
  std::string cert_error;
  if (cert && cert->from_requestheader_ca && request_header_) {
    const auto& allowed = request_header_->allowed_names;
    if (!allowed.empty() &&
        std::find(allowed.begin(), allowed.end(), cert->common_name) == allowed.end()) {
      cert_error = "x509: subject with cn=" + cert->common_name + " is not in the allowed list";
    } else if (auto user = request_header_user(request, *request_header_)) {
      return {with_authenticated_group(std::move(*user)), {}};
    }
  }
  if (cert && !cert->from_client_ca) {
    // Only a front proxy's: its certificate alone names nobody.
    cert_error = cert_error.empty() ? "x509: certificate signed by unknown authority" : cert_error;
  } else if (cert && !cert->common_name.empty()) {
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
  if (!cert_error.empty()) {
    return {std::nullopt, std::move(cert_error)};  // a certificate that names nobody: 401
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
