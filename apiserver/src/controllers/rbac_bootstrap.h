// kube-apiserver's rbac/bootstrap-roles post-start hook: at start-up every object of the v1.32
// bootstrap RBAC policy (authorization/bootstrap_policy) is read and created or completed through
// the handlers, as the API server's own privileged user (system:apiserver in system:masters),
// ClusterRoles (upstream's, then the sandbox's own), ClusterRoleBindings (likewise), then the
// Roles and RoleBindings of kube-system and kube-public.
#pragma once

#include <functional>

#include "apiserver/http.h"

namespace apiserver::controllers {

// Reconciles every object of the policy through `client`. A failure is logged and the next
// object tried.
void reconcile_bootstrap_policy(const std::function<http::Response(http::Request&)>& client);

}  // namespace apiserver::controllers
