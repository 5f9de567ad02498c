// The review resources that are answered, never stored: SelfSubjectReview (kubectl auth
// whoami), SelfSubjectAccessReview (kubectl auth can-i), SelfSubjectRulesReview
// (can-i --list), SubjectAccessReview, LocalSubjectAccessReview and TokenReview.
//
// The access reviews ask the same authorizer chain that guards every request (authorization/):
// status.allowed, denied, reason and evaluationError are its answer for the attributes of the
// spec (the requester's own user for the Self kinds); the rules review lists the rules the
// authorizers can enumerate for the requester in spec.namespace.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "authorization/authorizer.h"
#include "filters/authenticator.h"

namespace apiserver::endpoints {

// Whether `resource` is one of the review resources.
bool is_review(const registry::Resource& resource);

// The answer to a review; `body` is the request object, decoded and type-checked against its
// kind's schema (values of another type are ignored here, never trusted).
// `ns`: the request's namespace (LocalSubjectAccessReview).
http::Response serve_review(const registry::Resource& resource, const http::Request& request,
                            const std::string& ns, const nlohmann::json& body,
                            const filters::Authenticator& authenticator,
                            const authorization::Authorizer& authorizer);

}  // namespace apiserver::endpoints
