// A request as the HTTPS server hands it to the API server: path and query split from the
// target, a bearer token, and a JSON body when one is given. Shared by the tests that drive
// ApiServer::handle directly; also a bare GET and a response header's value for the tests that
// call one endpoint.
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

// An anonymous GET of `path` (no query), with an Accept header when `accept` is not empty.
inline http::Request get_request(const std::string& path, const std::string& accept = "") {
  http::Request r;
  r.method = "GET";
  r.path = path;
  r.target = path;
  if (!accept.empty()) {
    r.headers["Accept"] = accept;
  }
  return r;
}

// The value of the response header `name` (exact case); empty when there is none.
inline std::string response_header(const http::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) {
      return v;
    }
  }
  return "";
}

}  // namespace apiserver::testing
