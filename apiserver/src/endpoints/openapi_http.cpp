// HTTP for the OpenAPI endpoints: the choice of a form by the Accept header's ranges in
// negotiation order (endpoints/accept.h), If-None-Match against the ETag, and the answers.
#include "endpoints/openapi_http.h"

#include <ctime>
#include <string_view>
#include <vector>

#include "endpoints/accept.h"

namespace apiserver::endpoints::openapi_detail {
namespace {

// The Accept header's ranges in negotiation order; an empty header accepts anything, as
// kube-openapi's handlers read it.
std::vector<MediaRange> ranges_of(const std::string& accept) {
  return parse_accept(accept.empty() ? std::string_view("*/*") : std::string_view(accept));
}

}  // namespace

// Whether the client accepts JSON (application/json, application/*, */*); the /openapi/v3
// documents exist only as JSON.
bool accepts_json(const std::string& accept) {
  for (const auto& m : ranges_of(accept)) {
    if ((m.type == "application" || m.type == "*") && (m.subtype == "json" || m.subtype == "*")) {
      return true;
    }
  }
  return false;
}

// The form of /openapi/v2 to answer with, chosen as kube-openapi's handler chooses: the first
// Accept clause (in parse_accept order) that matches JSON or either protobuf subtype, JSON first
// for a wildcard. nullopt: nothing acceptable (406).
std::optional<V2Form> negotiate_v2(const std::string& accept) {
  for (const auto& m : ranges_of(accept)) {
    if (m.type != "application" && m.type != "*") {
      continue;
    }
    if (m.subtype == "json" || m.subtype == "*") {
      return V2Form::Json;
    }
    if (m.subtype == kV2ProtobufSubtypeDeprecated || m.subtype == kV2ProtobufSubtype) {
      return V2Form::Protobuf;
    }
  }
  return std::nullopt;
}

namespace {

bool etag_matches(const std::string& if_none_match, const std::string& etag) {
  if (if_none_match.empty()) {
    return false;
  }
  size_t start = 0;
  while (start <= if_none_match.size()) {
    size_t comma = if_none_match.find(',', start);
    if (comma == std::string::npos) {
      comma = if_none_match.size();
    }
    std::string tag = if_none_match.substr(start, comma - start);
    start = comma + 1;
    size_t a = tag.find_first_not_of(" \t");
    size_t b = tag.find_last_not_of(" \t");
    if (a == std::string::npos) {
      continue;
    }
    tag = tag.substr(a, b - a + 1);
    if (tag == "*") {
      return true;
    }
    if (tag.rfind("W/", 0) == 0) {
      tag = tag.substr(2);
    }
    if (tag == etag) {
      return true;
    }
  }
  return false;
}

}  // namespace

http::Response not_acceptable() {
  http::Response r;
  r.status = 406;
  r.set_header("Vary", "Accept");
  return r;
}

http::Response not_found() {
  http::Response r;
  r.status = 404;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.set_header("X-Content-Type-Options", "nosniff");
  r.body = "404 page not found\n";
  return r;
}

// The document itself, or 304 when the client already has it (Go's http.ServeContent).
http::Response content(const http::Request& request, const std::string& body,
                       const std::string& hash, http::Response r, const char* content_type) {
  const std::string etag = "\"" + hash + "\"";
  r.set_header("ETag", etag);
  if (etag_matches(request.header("If-None-Match"), etag)) {
    r.status = 304;
    r.body.clear();
    return r;
  }
  r.status = 200;
  r.set_header("Content-Type", content_type);
  if (request.method != "HEAD") {
    r.body = body;
  }
  return r;
}

std::string http_date(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace apiserver::endpoints::openapi_detail
