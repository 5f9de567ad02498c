// Authentication: who is asking. As kube-apiserver: a verified client certificate (CN = user,
// O = groups) first, then a bearer token from the configured set; a request with neither (an
// Authorization header of another scheme counts as none) is system:anonymous; a bearer token
// that matches nothing is refused (401).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http.h"

namespace apiserver::filters {

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
  std::string uid = {};
  // user.Info's extra, e.g. authentication.kubernetes.io/pod-name for a pod-bound token.
  std::map<std::string, std::vector<std::string>> extra = {};
};

// Token -> user, as a --token-auth-file would give. Only SHA-256 digests of the tokens are
// kept, and find() compares the presented token's digest with every entry in full
// (CRYPTO_memcmp), so how long a lookup takes says nothing about how much of a token matched.
// Not thread-safe against set(); fill it before serving.
class TokenTable {
 public:
  using Digest = std::array<unsigned char, 32>;
  using Entry = std::pair<Digest, UserInfo>;
  using const_iterator = std::vector<Entry>::const_iterator;

  // Adds a token, or replaces the user of one already there.
  void set(std::string_view token, UserInfo user);
  // The entry of `token` (`->second` is its user), or end().
  const_iterator find(std::string_view token) const;
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }

 private:
  std::vector<Entry> entries_;
};

// nullopt: credentials were presented and are not valid (answer 401). The client certificate or
// the static tokens alone (Authenticator, authenticator.h, adds the service-account tokens).
std::optional<UserInfo> authenticate(const http::Request& request, const TokenTable& tokens);

bool is_anonymous(const UserInfo& user);

// Paths anyone may read, as kube-apiserver's system:public-info-viewer role grants.
bool is_public_info_path(const std::string& path);

}  // namespace apiserver::filters
