#include "endpoints/reviews.h"

#include <nlohmann/json.hpp>

#include "endpoints/token_review.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// The AlwaysAllow decision for an authenticated user.
json allowed() {
  return {{"allowed", true}};
}

}  // namespace

bool is_review(const registry::Resource& resource) {
  const std::string& kind = resource.kind;
  return (resource.group == "authentication.k8s.io" &&
          (kind == "SelfSubjectReview" || kind == "TokenReview")) ||
         (resource.group == "authorization.k8s.io" &&
          (kind == "SelfSubjectAccessReview" || kind == "SelfSubjectRulesReview" ||
           kind == "SubjectAccessReview" || kind == "LocalSubjectAccessReview"));
}

http::Response serve_review(const registry::Resource& resource, const http::Request& request,
                            const json& body, const filters::Authenticator& authenticator) {
  const std::string& kind = resource.kind;
  json answer = {{"kind", kind},
                 {"apiVersion", resource.group_version()},
                 {"metadata", {{"creationTimestamp", nullptr}}}};
  const json* spec = nullptr;
  if (auto it = body.find("spec"); it != body.end() && it->is_object()) {
    spec = &*it;
    answer["spec"] = *spec;
  }
  if (kind == "SelfSubjectReview") {
    answer["status"] = {
        {"userInfo", user_info_json(request.user, request.uid, request.groups, request.extra)}};
  } else if (kind == "TokenReview") {
    auto status = token_review_status(spec != nullptr ? *spec : json(), authenticator);
    if (!status) {
      return status.error().response();
    }
    answer["status"] = json(*status);
  } else if (kind == "SelfSubjectRulesReview") {
    answer["status"] = {
        {"resourceRules",
         json::array({{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}})},
        {"nonResourceRules", json::array({{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}})},
        {"incomplete", false}};
  } else {
    answer["status"] = allowed();
  }
  http::Response response;
  response.status = 201;
  response.set_header("Content-Type", "application/json");
  response.body = answer.dump();
  return response;
}

}  // namespace apiserver::endpoints
