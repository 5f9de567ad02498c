#include "endpoints/reviews.h"

#include <nlohmann/json.hpp>

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

json user_info(const std::string& name, const std::vector<std::string>& groups) {
  return {{"username", name}, {"groups", groups}};
}

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
                            const json& body, const filters::TokenTable& tokens) {
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
    answer["status"] = {{"userInfo", user_info(request.user, request.groups)}};
  } else if (kind == "TokenReview") {
    std::string token;
    if (spec != nullptr) {
      if (auto it = spec->find("token"); it != spec->end() && it->is_string()) {
        token = it->get<std::string>();
      }
    }
    auto it = tokens.find(token);
    if (it == tokens.end()) {
      answer["status"] = {{"user", json::object()}};
    } else {
      auto groups = it->second.groups;
      groups.push_back("system:authenticated");
      answer["status"] = {
          {"authenticated", true},
          {"user", user_info(it->second.name, groups)},
          {"audiences", json::array({"https://kubernetes.default.svc.cluster.local"})}};
    }
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
