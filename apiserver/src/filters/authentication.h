// Authentication: who is asking. As kube-apiserver: a verified client certificate (CN = user,
// O = groups) first, then a bearer token from the configured set; a request with neither is
// system:anonymous; a bearer token that matches nothing is refused (401).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/http.h"

namespace apiserver::filters {

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
};

// Token -> user, as a --token-auth-file would give.
using TokenTable = std::map<std::string, UserInfo>;

// nullopt: credentials were presented and are not valid (answer 401).
std::optional<UserInfo> authenticate(const http::Request& request, const TokenTable& tokens);

bool is_anonymous(const UserInfo& user);

// A --token-auth-file's text into token -> (user, groups); see ApiServer's
// parse_token_auth_file, which forwards here.
bool parse_token_auth_file(
    const std::string& text, const std::string& file_name,
    std::map<std::string, std::pair<std::string, std::vector<std::string>>>& tokens,
    std::vector<std::string>& warnings, std::string& error);

// Paths anyone may read, as kube-apiserver's system:public-info-viewer role grants.
bool is_public_info_path(const std::string& path);

}  // namespace apiserver::filters
