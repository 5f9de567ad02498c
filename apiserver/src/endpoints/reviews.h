// The review resources that are answered, never stored: SelfSubjectReview (kubectl auth
// whoami), SelfSubjectAccessReview (kubectl auth can-i), SelfSubjectRulesReview
// (can-i --list), SubjectAccessReview, LocalSubjectAccessReview and TokenReview.
//
// Authorization today: every authenticated user may do everything (kube-apiserver's AlwaysAllow
// mode); RBAC replaces this decision later.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "filters/authenticator.h"

namespace apiserver::endpoints {

// Whether `resource` is one of the review resources.
bool is_review(const registry::Resource& resource);

// The answer to a review; `body` is the request object, decoded and type-checked against its
// kind's schema (values of another type are ignored here, never trusted).
http::Response serve_review(const registry::Resource& resource, const http::Request& request,
                            const nlohmann::json& body,
                            const filters::Authenticator& authenticator);

}  // namespace apiserver::endpoints
