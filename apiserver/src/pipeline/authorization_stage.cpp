#include "audit/auditor.h"
#include "authorization/authorizer.h"
#include "pipeline/forbidden.h"
#include "pipeline/stages.h"

namespace apiserver::pipeline {
namespace {

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
  if (a.group.empty() && a.resource == "namespaces" && !a.name.empty()) {
    // Upstream's RequestInfo reads /api/v1/namespaces/NAME[/...] as in namespace NAME, so a
    // RoleBinding there applies to the Namespace object itself.
    a.namespace_ = a.name;
  }
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
