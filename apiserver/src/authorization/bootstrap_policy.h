// The v1.32 bootstrap RBAC policy (apiserver/facts/bootstrap_policy.json) and what reconciling
// an object of it with the stored one means, as kube-apiserver's rbac/bootstrap-roles post-start
// hook does it (controllers/rbac_bootstrap writes the result): a missing object is created; an
// existing one whose annotation rbac.authorization.kubernetes.io/autoupdate is not "false" gets the
// labels, annotations, rules (broken down, as upstream adds them), aggregation selectors and
// subjects it lacks; nothing is taken away; a binding whose roleRef differs is deleted and created
// again.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "authorization/policy_rule.h"

namespace apiserver::authorization {

// The parsed document (facts::bootstrap_policy_json); parsed once, never changes.
const nlohmann::json& bootstrap_policy();
// The rules of the system:node ClusterRole, which the node authorizer applies to kubelets.
std::vector<PolicyRule> node_rules();

// What reconciliation does with one object.
struct Reconciled {
  enum class Op { None, Create, Update, Recreate } op = Op::None;
  nlohmann::json object;  // what to write (Create, Update, Recreate)
};
// `existing`: the stored object, null when there is none. Roles and ClusterRoles.
Reconciled reconcile_role(const nlohmann::json* existing, const nlohmann::json& expected);
// RoleBindings and ClusterRoleBindings.
Reconciled reconcile_binding(const nlohmann::json* existing, const nlohmann::json& expected);

}  // namespace apiserver::authorization
