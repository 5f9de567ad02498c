#include "pipeline/forbidden.h"

#include "common/go_quote.h"
#include "errors/status.h"
#include "registry/go_text.h"

namespace apiserver::pipeline {
namespace {

// As upstream's responsewriters: text that could read as HTML is escaped in the message (not in
// the authorizer's reason).
std::string sanitized(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

http::Response forbidden(const authorization::Attributes& a, const std::string& reason) {
  using registry::go_quote;
  std::string why;
  if (!a.resource_request) {
    why = "User " + go_quote(a.user.name) + " cannot " + a.verb + " path " + go_quote(a.path);
  } else {
    const std::string resource =
        a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    why = "User " + go_quote(a.user.name) + " cannot " + a.verb + " resource " +
          go_quote(resource) + " in API group " + go_quote(a.group) +
          (a.namespace_.empty() ? " at the cluster scope"
                                : " in the namespace " + go_quote(a.namespace_));
  }
  why = sanitized(why);
  if (!reason.empty()) {
    why += ": " + reason;
  }
  if (a.group.empty() && a.resource.empty()) {
    return errors::failure(403, "Forbidden", "forbidden: " + why, errors::Details{}).response();
  }
  const std::string qualified = a.group.empty() ? a.resource : a.resource + "." + a.group;
  const std::string message = a.name.empty()
                                  ? qualified + " is forbidden: " + why
                                  : qualified + " " + go_quote(a.name) + " is forbidden: " + why;
  return errors::failure(403, "Forbidden", message,
                         errors::object_details(a.name, a.group, a.resource))
      .response();
}

http::Response internal_error_text(const http::Request& request, const std::string& error) {
  http::Response response;
  response.status = 500;
  response.set_header("Content-Type", "text/plain; charset=utf-8");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.body =
      sanitized("Internal Server Error: " + common::go_quote(request.target) + ": " + error) + "\n";
  return response;
}

}  // namespace apiserver::pipeline
