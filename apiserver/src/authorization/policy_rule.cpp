#include "authorization/policy_rule.h"

#include <algorithm>

namespace apiserver::authorization {
namespace {

using nlohmann::json;

std::vector<std::string> strings_of(const json& rule, const char* key) {
  std::vector<std::string> out;
  auto it = rule.find(key);
  if (it == rule.end() || !it->is_array()) {
    return out;
  }
  out.reserve(it->size());
  for (const auto& v : *it) {
    if (v.is_string()) {
      out.push_back(v.get<std::string>());
    }
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

PolicyRule rule_from_json(const json& rule) {
  PolicyRule out;
  if (!rule.is_object()) {
    return out;
  }
  out.verbs = strings_of(rule, "verbs");
  out.api_groups = strings_of(rule, "apiGroups");
  out.resources = strings_of(rule, "resources");
  out.resource_names = strings_of(rule, "resourceNames");
  out.non_resource_urls = strings_of(rule, "nonResourceURLs");
  return out;
}

std::vector<PolicyRule> rules_from_json(const json& rules) {
  std::vector<PolicyRule> out;
  if (!rules.is_array()) {
    return out;
  }
  out.reserve(rules.size());
  for (const auto& rule : rules) {
    out.push_back(rule_from_json(rule));
  }
  return out;
}

json rule_to_json(const PolicyRule& rule) {
  json out = json::object();
  out["verbs"] = rule.verbs;  // required: always written, as Go's PolicyRule does
  if (!rule.api_groups.empty()) {
    out["apiGroups"] = rule.api_groups;
  }
  if (!rule.resources.empty()) {
    out["resources"] = rule.resources;
  }
  if (!rule.resource_names.empty()) {
    out["resourceNames"] = rule.resource_names;
  }
  if (!rule.non_resource_urls.empty()) {
    out["nonResourceURLs"] = rule.non_resource_urls;
  }
  return out;
}

bool verb_matches(const PolicyRule& rule, const std::string& verb) {
  for (const auto& v : rule.verbs) {
    if (v == "*" || v == verb) {
      return true;
    }
  }
  return false;
}

bool api_group_matches(const PolicyRule& rule, const std::string& group) {
  for (const auto& g : rule.api_groups) {
    if (g == "*" || g == group) {
      return true;
    }
  }
  return false;
}

bool resource_matches(const PolicyRule& rule, const std::string& combined,
                      const std::string& subresource) {
  for (const auto& r : rule.resources) {
    if (r == "*" || r == combined) {
      return true;
    }
    // "*/sub" matches the subresource `sub` of any resource.
    if (!subresource.empty() && r.size() == subresource.size() + 2 && r.starts_with("*/") &&
        r.ends_with(subresource)) {
      return true;
    }
  }
  return false;
}

bool resource_name_matches(const PolicyRule& rule, const std::string& name) {
  return rule.resource_names.empty() || contains(rule.resource_names, name);
}

bool non_resource_url_matches(const PolicyRule& rule, const std::string& path) {
  for (const auto& url : rule.non_resource_urls) {
    if (url == "*" || url == path) {
      return true;
    }
    if (url.ends_with("*")) {
      // As Go's strings.TrimRight(url, "*"): every trailing '*' goes.
      const size_t stem = url.find_last_not_of('*');
      const std::string_view prefix(url.data(), stem == std::string::npos ? 0 : stem + 1);
      if (std::string_view(path).starts_with(prefix)) {
        return true;
      }
    }
  }
  return false;
}

bool rule_allows(const Attributes& a, const PolicyRule& rule) {
  if (!verb_matches(rule, a.verb)) {
    return false;
  }
  if (!a.resource_request) {
    return non_resource_url_matches(rule, a.path);
  }
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  return api_group_matches(rule, a.group) && resource_matches(rule, combined, a.subresource) &&
         resource_name_matches(rule, a.name);
}

bool rules_allow(const Attributes& attributes, const std::vector<PolicyRule>& rules) {
  for (const auto& rule : rules) {
    if (rule_allows(attributes, rule)) {
      return true;
    }
  }
  return false;
}

}  // namespace apiserver::authorization
