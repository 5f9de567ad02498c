// The audit policy (audit.k8s.io/v1 Policy) as kube-apiserver reads it from --audit-policy-file,
// and its evaluation: the rules are tried in order and the first that matches a request gives
// its level; a request no rule matches is not audited (level None).
//
// Worked example: with the rules
//   - level: None, users: ["system:kube-proxy"]
//   - level: Metadata, resources: [{group: "", resources: ["pods/log"]}]
//   - level: Request
// a kubectl logs request is audited at Metadata, anything else kube-proxy does at None, and the
// rest at Request.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authorization/attributes.h"
#include "common/result.h"

namespace apiserver::audit {

// Ordered: a level includes what the ones before it log.
enum class Level { None, Metadata, Request, RequestResponse };
enum class Stage { RequestReceived, ResponseStarted, ResponseComplete, Panic };

std::string_view level_name(Level level);
std::string_view stage_name(Stage stage);

struct GroupResources {
  std::string group;  // "" is the core group
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};

struct PolicyRule {
  Level level = Level::None;
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;
  std::vector<std::string> non_resource_urls;
  std::vector<Stage> omit_stages;
  std::optional<bool> omit_managed_fields;  // unset: the policy's
};

struct Policy {
  std::vector<PolicyRule> rules;
  std::vector<Stage> omit_stages;
  bool omit_managed_fields = false;
};

// What a rule is matched against: the request as the authorizers see it (the user who
// authenticated, the verb, the resource or the path).
using Attributes = authorization::Attributes;

// How one request is audited.
struct RequestConfig {
  Level level = Level::None;
  std::vector<Stage> omit_stages;  // the policy's and the rule's
  bool omit_managed_fields = false;

  bool omits(Stage stage) const;
};

// Reads a policy from YAML or JSON and checks it as kube-apiserver does. The error is
// kube-apiserver's text, e.g. `rules[0].level: Required value`, followed by
// ": from file <path>", as upstream's LoadPolicyFromFile writes it.
common::Result<Policy> parse_policy(std::string_view text, const std::string& path);

// The first matching rule's level and stages; level None when no rule matches.
RequestConfig evaluate(const Policy& policy, const Attributes& attributes);

}  // namespace apiserver::audit
