// TokenReview (authentication.k8s.io/v1): a token checked by the server's own authenticators, for
// the audiences the review asks for (the API audiences when it asks for none), as
// kube-apiserver's tokenreview REST answers it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors/result.h"
#include "filters/authenticator.h"

namespace apiserver::endpoints {

// The review's status, fields in Go's order (authenticated, user, audiences, error; empty ones
// left out, user always there); or the 400 for a review without a token.
errors::Result<nlohmann::ordered_json> token_review_status(
    const nlohmann::json& spec, const filters::Authenticator& authenticator);

// A user as authentication.k8s.io's UserInfo: username, uid, groups, extra (empty ones left out).
nlohmann::ordered_json user_info_json(const std::string& name, const std::string& uid,
                                      const std::vector<std::string>& groups,
                                      const std::map<std::string, std::vector<std::string>>& extra);

}  // namespace apiserver::endpoints
