#include "filters/authentication.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "filters/authenticator.h"

namespace apiserver::filters {

namespace {

TokenTable::Digest digest_of(std::string_view token) {
  TokenTable::Digest digest{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest.data());
  return digest;
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
  return Authenticator(tokens).authenticate(request).user;
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
