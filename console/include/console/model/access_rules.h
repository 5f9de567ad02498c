// What the API server says the console's user may do in one namespace: the resource rules of a
// SelfSubjectRulesReview (POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews with
// spec.namespace), which hold the rules of the user's RoleBindings in that namespace and of
// their ClusterRoleBindings (kClusterScope: those alone). The console greys out what they do not
// allow.
//
// A rule allows a request when its verbs, apiGroups and resources each hold the request's value
// or "*", and its resourceNames are empty or hold the request's object name (a request without a
// name, such as list or create, is allowed only by rules without resourceNames).
//
// The answer is advice, not the decision: the server still decides each request. When no rule
// matches and the review is incomplete (an authorizer could not list its rules), the answer is
// Unknown and the console lets the user try.
//
// Pure, not thread-safe: the UI thread owns it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace console::model {

struct ResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};

enum class Access { Allowed, Denied, Unknown };

class AccessRules {
 public:
  // From a SelfSubjectRulesReview as the server answered it (its status is read). The error
  // when it has no status or a rule is malformed.
  static common::Result<AccessRules> parse(const nlohmann::json& review);

  // May the user `verb` `resource` (no subresource) of `group`, named `name` ("" for a request
  // on the collection)?
  Access check(std::string_view verb, std::string_view group, std::string_view resource,
               std::string_view name = {}) const;

  const std::vector<ResourceRule>& rules() const { return rules_; }
  bool incomplete() const { return incomplete_; }
  const std::string& evaluation_error() const { return evaluation_error_; }

 private:
  std::vector<ResourceRule> rules_;
  bool incomplete_ = false;
  std::string evaluation_error_;
};

// What a review is asked for to learn the cluster-wide rules (those of the user's
// ClusterRoleBindings), which alone decide for cluster-scoped resources and for all namespaces at
// once: a review needs a namespace and adds the rules of that namespace's RoleBindings, and no
// namespace can bear this name (namespace names are DNS labels), so none are added.
inline constexpr const char* kClusterScope = "(cluster scope)";

// Who the console is connected as: a SelfSubjectReview's status.userInfo (what `kubectl auth
// whoami` prints).
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
};

// The error when the review has no status.userInfo.username.
common::Result<UserInfo> parse_self_subject_review(const nlohmann::json& review);

}  // namespace console::model
