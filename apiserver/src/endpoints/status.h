// The metav1 Status answers of the REST handlers, shared by the files that decode request bodies
// and parameters: kube-apiserver's reasons, messages and details.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "errors/status.h"
#include "registry/objects.h"

namespace apiserver::endpoints {

// A Status with status Failure. An empty `reason` is left out, as upstream does for errors that
// carry no API status (StatusReasonUnknown); null `details` are left out.
http::Response status_with_details(int code, const std::string& reason, const std::string& message,
                                   const nlohmann::json& details);
http::Response bad_request(const std::string& message);
// {name, group, kind: resource} as the storage errors carry them.
nlohmann::json name_details(const registry::Resource& r, const std::string& name);
// A 422 Invalid for `qualified_kind` ("ConfigMap", "DeleteOptions.meta.k8s.io") with the causes.
errors::Status invalid_error(const std::string& group, const std::string& kind,
                             const std::string& name,
                             const std::vector<registry::FieldError>& errors);
// The same, as the response.
http::Response invalid_status(const std::string& group, const std::string& kind,
                              const std::string& name,
                              const std::vector<registry::FieldError>& errors);
http::Response json_response(int code, const nlohmann::json& body);

}  // namespace apiserver::endpoints
