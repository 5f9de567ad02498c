// RBAC's escalation prevention, as kube-apiserver's policy-based RBAC registries enforce it: a
// user may write a Role or ClusterRole only with rules the user already holds (in that namespace;
// cluster-wide for a ClusterRole), unless allowed the verb `escalate` on it; an aggregationRule
// needs every permission (cluster-admin's). A user may write a RoleBinding or ClusterRoleBinding
// only to a role whose rules the user holds, unless allowed the verb `bind` on that role.
// system:masters is exempt, and so is an update that only changes owner references, finalizers
// or the deletion marks (the garbage collector's). A binding to a role that does not exist is
// the registry's 404 for the role. Refusals are upstream's 403s, e.g.
//   roles.rbac.authorization.k8s.io "r" is forbidden: user "alice"
//   (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//   {APIGroups:[""], Resources:["secrets"], Verbs:["get"]}
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "authorization/authorizer.h"
#include "errors/status.h"

namespace apiserver::authorization {

// Whether `resource` (group rbac.authorization.k8s.io) is one the check covers.
bool guards_escalation(const std::string& group, const std::string& resource);

// rbac.IsOnlyMutatingGCFields: whether `old` and `object` differ only in what the garbage
// collector writes (owner references, finalizers, the deletion marks) or the server keeps
// (resourceVersion, managedFields). Other checks of writes (ClusterTrustBundleAttest) skip such
// updates too.
bool only_gc_fields(const nlohmann::json& old, const nlohmann::json& object);

// The check of a create (`old` null) or update of `object`, a `resource` of group
// rbac.authorization.k8s.io written by `user` at `ns`/`name` (the request's; name empty on
// create). nullopt: allowed.
std::optional<errors::Status> check_escalation(const Authorizer& authorizer, PolicyCache& policy,
                                               const User& user, const std::string& resource,
                                               const std::string& ns, const std::string& name,
                                               const nlohmann::json* old,
                                               const nlohmann::json& object);

}  // namespace apiserver::authorization
