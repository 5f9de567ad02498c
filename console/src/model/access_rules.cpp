#include "console/model/access_rules.h"

#include <algorithm>

#include "model/json_fields.h"

namespace console::model {

namespace {

using json = nlohmann::json;

// The strings of `list` at `where`; false when it is present and not an array of strings.
bool strings(const json& list, std::vector<std::string>& out) {
  if (list.is_null()) {
    return true;
  }
  if (!list.is_array()) {
    return false;
  }
  for (const json& value : list) {
    if (!value.is_string()) {
      return false;
    }
    out.push_back(value.get<std::string>());
  }
  return true;
}

bool holds(const std::vector<std::string>& values, std::string_view wanted) {
  return std::any_of(values.begin(), values.end(),
                     [&](const std::string& v) { return v == "*" || v == wanted; });
}

bool matches(const ResourceRule& rule, std::string_view verb, std::string_view group,
             std::string_view resource, std::string_view name) {
  if (!holds(rule.verbs, verb) || !holds(rule.api_groups, group) ||
      !holds(rule.resources, resource)) {
    return false;
  }
  if (rule.resource_names.empty()) {
    return true;
  }
  return !name.empty() && std::find(rule.resource_names.begin(), rule.resource_names.end(), name) !=
                              rule.resource_names.end();
}

}  // namespace

common::Result<AccessRules> AccessRules::parse(const json& review) {
  const json& status = field(review, "status");
  if (!status.is_object()) {
    return std::string("SelfSubjectRulesReview: status is missing");
  }
  AccessRules out;
  const json& rules = field(status, "resourceRules");
  if (!rules.is_null() && !rules.is_array()) {
    return std::string("SelfSubjectRulesReview: status.resourceRules is not an array");
  }
  if (rules.is_array()) {
    for (size_t i = 0; i < rules.size(); ++i) {
      ResourceRule rule;
      const json& r = rules[i];
      if (!r.is_object() || !strings(field(r, "verbs"), rule.verbs) ||
          !strings(field(r, "apiGroups"), rule.api_groups) ||
          !strings(field(r, "resources"), rule.resources) ||
          !strings(field(r, "resourceNames"), rule.resource_names)) {
        return "SelfSubjectRulesReview: status.resourceRules[" + std::to_string(i) +
               "] is malformed";
      }
      out.rules_.push_back(std::move(rule));
    }
  }
  const json& incomplete = field(status, "incomplete");
  out.incomplete_ = incomplete.is_boolean() && incomplete.get<bool>();
  out.evaluation_error_ = string_field(status, "evaluationError");
  return out;
}

Access AccessRules::check(std::string_view verb, std::string_view group, std::string_view resource,
                          std::string_view name) const {
  for (const ResourceRule& rule : rules_) {
    if (matches(rule, verb, group, resource, name)) {
      return Access::Allowed;
    }
  }
  return incomplete_ ? Access::Unknown : Access::Denied;
}

common::Result<UserInfo> parse_self_subject_review(const json& review) {
  const json& user = field(field(review, "status"), "userInfo");
  UserInfo out;
  out.username = string_field(user, "username");
  out.uid = string_field(user, "uid");
  if (out.username.empty() || !strings(field(user, "groups"), out.groups)) {
    return std::string("SelfSubjectReview: status.userInfo.username is missing");
  }
  return out;
}

}  // namespace console::model
