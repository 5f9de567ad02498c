#include "endpoints/reviews.h"

#include <nlohmann/json.hpp>

#include "common/go_quote.h"
#include "endpoints/token_review.h"
#include "errors/status.h"
#include "registry/generic/resource_errors.h"
#include "registry/json_access.h"
#include "registry/objects.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

std::vector<std::string> strings(const json& list) {
  std::vector<std::string> out;
  if (list.is_array()) {
    for (const auto& v : list) {
      if (v.is_string()) {
        out.push_back(v.get<std::string>());
      }
    }
  }
  return out;
}

// A field selector of a review's resourceAttributes (rawSelector, or requirements with the
// operators In and NotIn of one value), as the authorizers read it.
std::vector<authorization::FieldRequirement> field_selector(const json& selector) {
  std::vector<authorization::FieldRequirement> out;
  if (std::string raw = registry::string_at(selector, {"rawSelector"}); !raw.empty()) {
    authorization::parse_field_selector(raw, out);
  }
  const json& requirements = registry::value_at(selector, {"requirements"});
  if (requirements.is_array() && !requirements.empty()) {
    out.clear();
    for (const auto& r : requirements) {
      const auto values = strings(registry::value_at(r, {"values"}));
      const std::string op = registry::string_at(r, {"operator"});
      if (values.size() == 1 && (op == "In" || op == "NotIn")) {
        out.push_back({registry::string_at(r, {"key"}), op == "In", values[0]});
      }
    }
  }
  return out;
}

// The attributes a review's spec asks about, for `user`.
authorization::Attributes attributes_of(const json& spec, authorization::User user) {
  authorization::Attributes a;
  a.user = std::move(user);
  if (const json& r = registry::value_at(spec, {"resourceAttributes"}); r.is_object()) {
    a.resource_request = true;
    a.namespace_ = registry::string_at(r, {"namespace"});
    a.verb = registry::string_at(r, {"verb"});
    a.group = registry::string_at(r, {"group"});
    a.version =
        registry::string_at(r, {"version"}).empty() ? "*" : registry::string_at(r, {"version"});
    a.resource = registry::string_at(r, {"resource"});
    a.subresource = registry::string_at(r, {"subresource"});
    a.name = registry::string_at(r, {"name"});
    a.field_selector = field_selector(registry::value_at(r, {"fieldSelector"}));
    return a;
  }
  const json& n = registry::value_at(spec, {"nonResourceAttributes"});
  a.path = registry::string_at(n, {"path"});
  a.verb = registry::string_at(n, {"verb"});
  return a;
}

// Go's %#v of a *NonResourceAttributes, as field errors print it.
std::string rendered_non_resource(const json& n) {
  if (!n.is_object()) {
    return "null";
  }
  return "&authorization.NonResourceAttributes{Path:" +
         common::go_quote(registry::string_at(n, {"path"})) +
         ", Verb:" + common::go_quote(registry::string_at(n, {"verb"})) + "}";
}

// ValidateSubjectAccessReviewSpec (with `subject`: the user or groups are required).
std::vector<registry::FieldError> validate_spec(const json& spec, bool subject) {
  std::vector<registry::FieldError> errors;
  const bool resource = registry::value_at(spec, {"resourceAttributes"}).is_object();
  const json& non_resource = registry::value_at(spec, {"nonResourceAttributes"});
  if (resource && non_resource.is_object()) {
    errors.push_back(registry::invalid_rendered("spec.nonResourceAttributes",
                                                rendered_non_resource(non_resource),
                                                "cannot be specified in combination with "
                                                "resourceAttributes"));
  }
  if (!resource && !non_resource.is_object()) {
    errors.push_back(registry::invalid_rendered(
        "spec.resourceAttributes", "null",
        "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  if (subject && registry::string_at(spec, {"user"}).empty() &&
      strings(registry::value_at(spec, {"groups"})).empty()) {
    errors.push_back(registry::invalid_value("spec.user", "",
                                             "at least one of user or group must be specified"));
  }
  return errors;
}

json access_status(const authorization::Verdict& verdict) {
  json status = {{"allowed", verdict.allowed()}};
  if (verdict.decision == authorization::Decision::Deny) {
    status["denied"] = true;
  }
  if (!verdict.reason.empty()) {
    status["reason"] = verdict.reason;
  }
  if (!verdict.error.empty()) {
    status["evaluationError"] = verdict.error;
  }
  return status;
}

json rules_status(const authorization::RulesReview& review) {
  json resource_rules = json::array();
  for (const auto& rule : review.resource_rules) {
    json r = {{"verbs", rule.verbs}};
    if (!rule.api_groups.empty()) {
      r["apiGroups"] = rule.api_groups;
    }
    if (!rule.resources.empty()) {
      r["resources"] = rule.resources;
    }
    if (!rule.resource_names.empty()) {
      r["resourceNames"] = rule.resource_names;
    }
    resource_rules.push_back(std::move(r));
  }
  json non_resource_rules = json::array();
  for (const auto& rule : review.non_resource_rules) {
    json r = {{"verbs", rule.verbs}};
    if (!rule.non_resource_urls.empty()) {
      r["nonResourceURLs"] = rule.non_resource_urls;
    }
    non_resource_rules.push_back(std::move(r));
  }
  json status = {{"resourceRules", std::move(resource_rules)},
                 {"nonResourceRules", std::move(non_resource_rules)},
                 {"incomplete", review.incomplete}};
  if (!review.evaluation_error.empty()) {
    status["evaluationError"] = review.evaluation_error;
  }
  return status;
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
                            const std::string& ns, const json& body,
                            const filters::Authenticator& authenticator,
                            const authorization::Authorizer& authorizer) {
  const std::string& kind = resource.kind;
  json answer = {{"kind", kind},
                 {"apiVersion", resource.group_version()},
                 {"metadata", {{"creationTimestamp", nullptr}}}};
  static const json kNoSpec = json::object();
  const json* spec = &kNoSpec;
  if (auto it = body.find("spec"); it != body.end() && it->is_object()) {
    spec = &*it;
    answer["spec"] = *spec;
  }
  const authorization::User requester{request.user, request.groups};
  if (kind == "SelfSubjectReview") {
    answer["status"] = {
        {"userInfo", user_info_json(request.user, request.uid, request.groups, request.extra)}};
  } else if (kind == "TokenReview") {
    auto status = token_review_status(*spec, authenticator);
    if (!status) {
      return status.error().response();
    }
    answer["status"] = json(*status);
  } else if (kind == "SelfSubjectRulesReview") {
    const std::string rules_ns = registry::string_at(*spec, {"namespace"});
    if (rules_ns.empty()) {
      return errors::bad_request("no namespace on request").response();
    }
    answer["status"] = rules_status(authorizer.rules_for(requester, rules_ns));
  } else if (kind == "SelfSubjectAccessReview") {
    if (auto problems = validate_spec(*spec, false); !problems.empty()) {
      return registry::invalid(resource, "", problems).response();
    }
    answer["status"] = access_status(authorizer.authorize(attributes_of(*spec, requester)));
  } else {
    const bool local = kind == "LocalSubjectAccessReview";
    auto problems = validate_spec(*spec, true);
    if (local) {
      const json& r = registry::value_at(*spec, {"resourceAttributes"});
      if (r.is_object() && registry::string_at(r, {"namespace"}) != ns) {
        problems.push_back(registry::invalid_value("spec.resourceAttributes.namespace",
                                                   registry::string_at(r, {"namespace"}),
                                                   "must match metadata.namespace"));
      }
      if (registry::value_at(*spec, {"nonResourceAttributes"}).is_object()) {
        problems.push_back(registry::invalid_rendered(
            "spec.nonResourceAttributes",
            rendered_non_resource(registry::value_at(*spec, {"nonResourceAttributes"})),
            "disallowed on this kind of request"));
      }
      answer["metadata"]["namespace"] = ns;
    }
    if (!problems.empty()) {
      return registry::invalid(resource, "", problems).response();
    }
    authorization::User subject{registry::string_at(*spec, {"user"}),
                                strings(registry::value_at(*spec, {"groups"}))};
    answer["status"] = access_status(authorizer.authorize(attributes_of(*spec, subject)));
  }
  http::Response response;
  response.status = 201;
  response.set_header("Content-Type", "application/json");
  response.body = answer.dump();
  return response;
}

}  // namespace apiserver::endpoints
