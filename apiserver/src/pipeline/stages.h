// The stages of the request pipeline before the handler, in the order ApiServer::stages() lists
// them. Each is one file.
#pragma once

#include "authorization/authorizer.h"
#include "filters/authenticator.h"
#include "pipeline/pipeline.h"

namespace apiserver::pipeline {

// Request info: what the request asks for, as kube-apiserver's RequestInfo (verb, group,
// version, resource, subresource, namespace, name) for resource paths. Never answers; decides
// "resource" or "not a resource".
Stage request_info_stage();

// Authentication: who is asking (filters::Authenticator). Answers 401 to credentials that match
// nothing ("refused", with the reason in the trace's notes and the log); no credentials at all is
// system:anonymous. Decides "authenticated".
Stage authentication_stage(const filters::Authenticator& authenticator);

// Impersonation: the Impersonate-User, -Group, -Uid and -Extra-<key> headers, each authorized for
// the authenticated user with the verb impersonate on users, serviceaccounts, groups, uids or
// userextras (as kube-apiserver's impersonation filter). Allowed, the request goes on as the user
// they name (`requestor` keeps who asked; "<who> is acting as <user>"); refused, the 403 of the
// first one refused; groups, extras or a uid without a user are a 500 in Go's plain text.
// Not in the trace when the request impersonates no one.
Stage impersonation_stage(const authorization::Authorizer& authorizer);
// Audit, in the list only when the server audits (ApiServerConfig::auditor): once the user is
// known, the policy of --audit-policy-file picks the request's audit level and its
// RequestReceived event is written, on the thread's current audit::RequestAudit (made by
// ApiServer::handle, which also writes the later stages). Never answers; decides
// "level <Level>" ("off" on a pass with no request audit). Impersonation goes after it: the
// policy sees the user who authenticated, and the impersonation stage reports the user acted as
// with audit::log_impersonated_user() (the event's impersonatedUser).
Stage audit_stage();

// The request as the authorizers and the audit policy see it (authorizer.Attributes), from what
// the stages found so far: the request info (a list or watch naming one object by the field
// selector `metadata.name=` is a request for that object; list, watch and deletecollection carry
// their field selector for the node authorizer) and the user.
authorization::Attributes request_attributes(const Context& context);

// Authorization: the authorizer chain of --authorization-mode decides (authorization/). Allowed,
// the decision is "allow: <reason>" (RBAC names the binding), or "allow (<authorizer>)" when the
// authorizer gave no reason; refused, "forbid[: <reason>]" and the 403 of kube-apiserver's
// authorization filter, whose message ends with the reason when there is one. Either way the
// decision ("allow"/"forbid") and the reason go on the request's audit event as the annotations
// authorization.k8s.io/decision and authorization.k8s.io/reason. `authorizer` must outlive the
// stage.
Stage authorization_stage(const authorization::Authorizer& authorizer);

}  // namespace apiserver::pipeline
