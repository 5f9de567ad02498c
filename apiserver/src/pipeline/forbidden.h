// The answers of kube-apiserver's responsewriters that the authorization and impersonation
// stages give: the 403 of a refused request, and the plain-text 500 of a request the filters
// cannot make sense of.
#pragma once

#include <string>

#include "apiserver/http.h"
#include "authorization/authorizer.h"

namespace apiserver::pipeline {

// responsewriters.Forbidden: the message names the user, the verb and what was asked for, then
// the authorizers' reason when they gave one; for a resource it is errors.NewForbidden's, whose
// details carry name, group and resource.
http::Response forbidden(const authorization::Attributes& a, const std::string& reason);

// responsewriters.InternalError: not a Status but Go's http.Error text,
// `Internal Server Error: "<request URI>": <error>`.
http::Response internal_error_text(const http::Request& request, const std::string& error);

}  // namespace apiserver::pipeline
