// Requests that controllers inside the server make. A kube-controller-manager controller's
// (controller_request) is made as upstream makes its own: as the controller's service account in
// kube-system (--use-service-account-credentials), presented as a verified client certificate
// would be, so the request pipeline authenticates, authorizes and traces it as any client's. The
// user is also set on the request, for handlers called past the pipeline (route()).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/http.h"

namespace apiserver::controllers {

// A request made inside the server: method, path (also the target), `body` as JSON unless null,
// and `agent` as its User-Agent. Whoever sends it sets who asks.
http::Request loopback_request(const std::string& method, const std::string& path,
                               const nlohmann::json& body, const std::string& agent);

// `body` null: no body. `service_account`: the name in kube-system, e.g. "namespace-controller".
http::Request controller_request(const std::string& method, const std::string& path,
                                 const nlohmann::json& body, const std::string& service_account);

}  // namespace apiserver::controllers
