#include "endpoints/issuer_discovery.h"

#include "errors/status.h"

namespace apiserver::endpoints {

std::optional<http::Response> serve_issuer_discovery(
    const http::Request& request, const serviceaccount::OpenIdMetadata* metadata) {
  const bool config = request.path == serviceaccount::kOpenIdConfigPath;
  if (metadata == nullptr || (!config && request.path != serviceaccount::kJwksPath)) {
    return std::nullopt;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    return errors::method_not_routed().response();
  }
  http::Response response;
  response.set_header("Content-Type", config ? "application/json" : "application/jwk-set+json");
  response.set_header("Cache-Control", "public, max-age=3600");
  response.body = config ? metadata->config_json : metadata->keyset_json;
  return response;
}

}  // namespace apiserver::endpoints
