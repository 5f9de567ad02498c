#include "filters/authentication.h"

#include <algorithm>

namespace apiserver::filters {

std::optional<UserInfo> authenticate(const http::Request& request, const TokenTable& tokens) {
  if (const auto& cert = request.client_certificate; cert && !cert->common_name.empty()) {
    UserInfo user{cert->common_name, cert->organizations};
    user.groups.push_back("system:authenticated");
    return user;
  }
  std::string authorization = request.header("Authorization");
  if (!authorization.empty()) {
    const std::string bearer = "Bearer ";
    if (authorization.size() <= bearer.size() ||
        !std::equal(bearer.begin(), bearer.end(), authorization.begin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return std::nullopt;
    }
    auto it = tokens.find(authorization.substr(bearer.size()));
    if (it == tokens.end()) {
      return std::nullopt;
    }
    UserInfo user = it->second;
    user.groups.push_back("system:authenticated");
    return user;
  }
  return UserInfo{"system:anonymous", {"system:unauthenticated"}};
}

bool is_anonymous(const UserInfo& user) { return user.name == "system:anonymous"; }

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
