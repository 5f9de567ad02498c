// The review resources that are answered, never stored: SelfSubjectReview (kubectl auth
// whoami), SelfSubjectAccessReview (kubectl auth can-i), SelfSubjectRulesReview
// (can-i --list), SubjectAccessReview, LocalSubjectAccessReview and TokenReview.
//
// Authorization today: every authenticated user may do everything (kube-apiserver's AlwaysAllow
// mode); RBAC replaces this decision later.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "filters/authentication.h"

namespace apiserver::endpoints {

// nullopt when `resource` is not a review resource.
std::optional<http::Response> serve_review(const registry::Resource& resource,
                                           const http::Request& request,
                                           const filters::TokenTable& tokens);

}  // namespace apiserver::endpoints
