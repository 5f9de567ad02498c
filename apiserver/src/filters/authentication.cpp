#include "filters/authentication.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

namespace apiserver::filters {

namespace {

TokenTable::Digest digest_of(std::string_view token) {
  TokenTable::Digest digest{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest.data());
  return digest;
}

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

void TokenTable::set(std::string_view token, UserInfo user) {
  Digest digest = digest_of(token);
  for (auto& entry : entries_) {
    if (entry.first == digest) {
      entry.second = std::move(user);
      return;
    }
  }
  entries_.emplace_back(digest, std::move(user));
}

TokenTable::const_iterator TokenTable::find(std::string_view token) const {
  const Digest digest = digest_of(token);
  size_t match = entries_.size();
  // Every entry is compared in full, and the result is picked without a branch on it.
  for (size_t i = 0; i < entries_.size(); ++i) {
    size_t equal = static_cast<size_t>(
        CRYPTO_memcmp(entries_[i].first.data(), digest.data(), digest.size()) == 0);
    match ^= (match ^ i) & (0 - equal);
  }
  return entries_.begin() + static_cast<std::ptrdiff_t>(match);
}

std::optional<UserInfo> authenticate(const http::Request& request, const TokenTable& tokens) {
  if (const auto& cert = request.client_certificate; cert && !cert->common_name.empty()) {
    UserInfo user{cert->common_name, cert->organizations};
    user.groups.push_back("system:authenticated");
    return user;
  }
  const std::string authorization = request.header("Authorization");
  if (auto token = bearer_token(authorization)) {
    auto it = tokens.find(*token);
    if (it == tokens.end()) {
      return std::nullopt;
    }
    UserInfo user = it->second;
    user.groups.push_back("system:authenticated");
    return user;
  }
  return UserInfo{"system:anonymous", {"system:unauthenticated"}};
}

bool is_anonymous(const UserInfo& user) {
  return user.name == "system:anonymous";
}

bool is_public_info_path(const std::string& path) {
  for (const char* root : {"/healthz", "/livez", "/readyz"}) {
    std::string r = root;
    if (path == r || path.rfind(r + "/", 0) == 0) {
      return true;
    }
  }
  return path == "/version" || path == "/version/";
}

}  // namespace apiserver::filters
