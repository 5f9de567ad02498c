#include "errors/status.h"
#include "pipeline/stages.h"
#include "registry/go_text.h"

namespace apiserver::pipeline {
namespace {

// The 403 of kube-apiserver's authorization filter for a resource request
// (responsewriters.ForbiddenStatus with errors.NewForbidden): the message names the verb, the
// resource (with its subresource) and the group; the details carry name, group and resource.
http::Response forbidden_resource(const endpoints::RequestInfo& info, const std::string& user) {
  std::string resource = info.resource;
  if (!info.subresource.empty()) {
    resource += "/" + info.subresource;
  }
  std::string why = "User " + registry::go_quote(user) + " cannot " + info.verb + " resource " +
                    registry::go_quote(resource) + " in API group " +
                    registry::go_quote(info.group);
  why += info.namespace_.empty() ? " at the cluster scope"
                                 : " in the namespace " + registry::go_quote(info.namespace_);
  std::string qualified = info.group.empty() ? info.resource : info.resource + "." + info.group;
  std::string message =
      info.name.empty() ? qualified + " is forbidden: " + why
                        : qualified + " " + registry::go_quote(info.name) + " is forbidden: " + why;
  return errors::failure(403, "Forbidden", message,
                         errors::object_details(info.name, info.group, info.resource))
      .response();
}

// The verb of a non-resource request, as kube-apiserver's RequestInfo names it.
std::string path_verb(const std::string& method) {
  if (method == "PUT") {
    return "put";
  }
  if (method == "DELETE") {
    return "delete";
  }
  if (method == "PATCH") {
    return "patch";
  }
  return method == "GET" || method == "HEAD" ? "get" : "post";
}

}  // namespace

Stage authorization_stage() {
  return {"authorization", [](Context& context) -> Outcome {
            if (!filters::is_anonymous(context.user)) {
              return {"AlwaysAllow", std::nullopt};
            }
            const std::string& path = context.request.path;
            if (filters::is_public_info_path(path)) {
              return {"public path", std::nullopt};
            }
            if (!context.info && context.trace == nullptr) {
              context.info = endpoints::parse_resource_path(context.request);
            }
            if (context.info) {
              return {"forbidden", forbidden_resource(*context.info, context.user.name)};
            }
            return {"forbidden", errors::failure(403, "Forbidden",
                                                 "forbidden: User \"system:anonymous\" cannot " +
                                                     path_verb(context.request.method) +
                                                     " path \"" + path + "\"",
                                                 errors::Details{})
                                     .response()};
          }};
}

}  // namespace apiserver::pipeline
