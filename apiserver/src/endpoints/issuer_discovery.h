// Service-account issuer discovery: GET /.well-known/openid-configuration (application/json)
// and GET /openid/v1/jwks (application/jwk-set+json), both with "Cache-Control: public,
// max-age=3600", as kube-apiserver serves them. Who may read them is the authorizer's business
// (upstream grants them to service accounts through system:service-account-issuer-discovery).
#pragma once

#include <optional>

#include "apiserver/http.h"
#include "serviceaccount/openid_metadata.h"

namespace apiserver::endpoints {

// The answer when `request` asks for one of the two paths and `metadata` is served (not null);
// else nullopt (the path is another's, or there is no discovery: 404).
std::optional<http::Response> serve_issuer_discovery(
    const http::Request& request, const serviceaccount::OpenIdMetadata* metadata);

}  // namespace apiserver::endpoints
