// A request as the HTTPS server hands it to the API server: path and query split from the
// target, a bearer token, and a JSON body when one is given. Shared by the tests that drive
// ApiServer::handle directly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/http.h"

namespace apiserver::testing {

inline http::Request make_request(const std::string& method, const std::string& target,
                                  const nlohmann::json& body, const std::string& token,
                                  const std::string& content_type = "application/json") {
  http::Request request;
  request.method = method;
  request.target = target;
  const auto q = target.find('?');
  request.path = target.substr(0, q);
  if (q != std::string::npos) {
    request.query = http::parse_query(target.substr(q + 1));
  }
  request.headers["Authorization"] = "Bearer " + token;
  if (!body.is_null()) {
    request.headers["Content-Type"] = content_type;
    request.body = body.dump();
  }
  return request;
}

}  // namespace apiserver::testing
