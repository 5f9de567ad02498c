// The RBAC authorizer (kube-apiserver's --authorization-mode=RBAC): a request is allowed when a
// rule of a role bound to its user allows it. ClusterRoleBindings count everywhere, RoleBindings
// in their namespace (a RoleBinding may name a ClusterRole: its rules, in that namespace only).
// A subject matches a user by name (User), one of the user's groups (Group), or a service
// account's user name, system:serviceaccount:<namespace>:<name>, where a ServiceAccount subject
// without a namespace takes the binding's (ServiceAccount).
//
// The allowed reason names the binding, role and subject that allowed it, as upstream words it:
//   RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group
//   "system:masters"
// RBAC never denies: without an allowing rule it has no opinion, and its reason lists the
// bindings it could not follow (a role that does not exist), else is empty.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "authorization/attributes.h"
#include "authorization/policy_cache.h"

namespace apiserver::authorization {

// Where a rule came from: one binding and the subject of it that matched the user.
struct RuleSource {
  const Binding* binding = nullptr;
  const Subject* subject = nullptr;

  // `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, or for a RoleBinding
  // `RoleBinding "x/ns" of Role "y" to ServiceAccount "sa/ns"`.
  std::string describe() const;
};

// Calls `visit` with each rule that applies to `user` in `ns` ("" for cluster-scoped requests:
// ClusterRoleBindings only), in binding name order, ClusterRoleBindings first; `error` is set
// instead of `rule` for a binding whose role cannot be read. `visit` returns false to stop.
void visit_rules(const Policy& policy, const User& user, const std::string& ns,
                 const std::function<bool(const RuleSource& source, const PolicyRule* rule,
                                          const std::string* error)>& visit);

// RBAC's decision.
Verdict rbac_authorize(const Policy& policy, const Attributes& attributes);

// Every rule RBAC gives `user` in `ns`, and the errors met (a missing role), in visit order.
struct UserRules {
  std::vector<PolicyRule> rules;
  std::vector<std::string> errors;
};
UserRules rbac_rules_for(const Policy& policy, const User& user, const std::string& ns);

// k8s.io/apimachinery's aggregate of errors as text: "" for none, the one message, or the
// distinct messages in order as "[a, b]".
std::string aggregate_errors(const std::vector<std::string>& errors);

// Whether `subject` of a binding in `binding_ns` ("" for a ClusterRoleBinding) is `user`.
bool subject_matches(const Subject& subject, const User& user, const std::string& binding_ns);

}  // namespace apiserver::authorization
