// An RBAC PolicyRule and how it matches a request, as kube-apiserver's RBAC authorizer matches
// one: every verb, API group, resource (with its subresource as "resource/sub", or "*/sub" for a
// subresource of any resource), resource name and non-resource URL ("*" anywhere, and a trailing
// "*" in a URL as a prefix) must allow the request.
//
// Example: {verbs: [get], apiGroups: [""], resources: [pods, "*/scale"], resourceNames: [web]}
// allows `get pods/web` and `get deployments.apps/web/scale` (any group would do: "" only names
// the core group, so the latter needs apiGroups ["*"] or ["apps"] too), not `list pods`: a list
// carries no name, and a rule with resourceNames allows only requests naming one of them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "authorization/attributes.h"

namespace apiserver::authorization {

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;

  bool operator==(const PolicyRule&) const = default;
};

// The rule of a stored or requested object's `rules[i]`. Values of the wrong type are ignored
// (the registry validated what was stored; a review's spec is client data).
PolicyRule rule_from_json(const nlohmann::json& rule);
// The rules of a Role's or ClusterRole's `rules` (not an array: none).
std::vector<PolicyRule> rules_from_json(const nlohmann::json& rules);
// As a v1 PolicyRule serialises (empty lists left out).
nlohmann::json rule_to_json(const PolicyRule& rule);

// Whether `rule` allows the request (RuleAllows).
bool rule_allows(const Attributes& attributes, const PolicyRule& rule);
// Whether any of `rules` does.
bool rules_allow(const Attributes& attributes, const std::vector<PolicyRule>& rules);

// The single steps of rule_allows, for what shares them.
bool verb_matches(const PolicyRule& rule, const std::string& verb);
bool api_group_matches(const PolicyRule& rule, const std::string& group);
// `combined`: "resource" or "resource/subresource".
bool resource_matches(const PolicyRule& rule, const std::string& combined,
                      const std::string& subresource);
bool resource_name_matches(const PolicyRule& rule, const std::string& name);
bool non_resource_url_matches(const PolicyRule& rule, const std::string& path);

}  // namespace apiserver::authorization
