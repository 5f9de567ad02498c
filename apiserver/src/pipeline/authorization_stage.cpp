#include "audit/auditor.h"
#include "authorization/authorizer.h"
#include "errors/status.h"
#include "pipeline/stages.h"
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

// The 403 of kube-apiserver's authorization filter (responsewriters.ForbiddenStatusError): the
// message names the user, the verb and what was asked for, then the authorizers' reason when
// they gave one; for a resource it is errors.NewForbidden's, whose details carry name, group and
// resource.
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

// A name kube-apiserver accepts as a path segment (path.IsValidPathSegmentName).
bool path_segment_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('%') == std::string::npos;
}

}  // namespace

// What the authorizers decide on, from the request info (RequestInfo and the authorization
// filter's GetAuthorizerAttributes, with AuthorizeWithSelectors on as in v1.32).
authorization::Attributes request_attributes(const Context& context) {
  authorization::Attributes a;
  a.user.name = context.user.name;
  a.user.groups = context.user.groups;
  const http::Request& request = context.request;
  a.path = request.path;
  if (!context.info) {
    std::string verb = request.method;
    for (char& c : verb) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    a.verb = std::move(verb);
    return a;
  }
  const endpoints::RequestInfo& info = *context.info;
  a.resource_request = true;
  a.verb = info.verb;
  a.group = info.group;
  a.version = info.version;
  a.resource = info.resource;
  a.subresource = info.subresource;
  a.namespace_ = info.namespace_;
  a.name = info.name;
  if (a.verb == "list" || a.verb == "watch" || a.verb == "deletecollection") {
    if (auto it = request.query.find("fieldSelector");
        it != request.query.end() && !it->second.empty()) {
      authorization::parse_field_selector(it->second.front(), a.field_selector);
    }
  }
  if ((a.verb == "list" || a.verb == "watch") && a.name.empty()) {
    // A list or watch of one object by its name reads as a request for that object.
    for (const auto& req : a.field_selector) {
      if (req.field == "metadata.name" && req.equals && path_segment_name(req.value)) {
        a.name = req.value;
      }
    }
  }
  return a;
}

Stage authorization_stage(const authorization::Authorizer& authorizer) {
  return {"authorization", [&authorizer](Context& context) -> Outcome {
            if (!context.info && context.trace == nullptr) {
              context.info = endpoints::parse_resource_path(context.request);
            }
            const authorization::Attributes attributes = request_attributes(context);
            authorization::Verdict verdict = authorizer.authorize(attributes);
            audit::annotate(audit::kDecisionAnnotation, verdict.allowed() ? "allow" : "forbid");
            audit::annotate(audit::kReasonAnnotation, verdict.reason);
            if (verdict.allowed()) {
              if (context.trace == nullptr) {
                return {"", std::nullopt};
              }
              return {verdict.reason.empty() ? "allow (" + std::string(verdict.by) + ")"
                                             : "allow: " + verdict.reason,
                      std::nullopt};
            }
            std::string decision = "forbid";
            if (!verdict.reason.empty()) {
              decision += ": " + verdict.reason;
            }
            return {std::move(decision), forbidden(attributes, verdict.reason)};
          }};
}

}  // namespace apiserver::pipeline
