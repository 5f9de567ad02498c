// Unknown and duplicate fields in create, update and apply bodies, as kube-apiserver reports them
// under ?fieldValidation (Strict: 400; Warn, the default: Warning headers; Ignore), and the typing
// errors of apply configurations.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "errors/result.h"
#include "registry/field_validation.h"

namespace apiserver::endpoints {

// An apply configuration that does not type against the kind (or, with `scale`, against an
// autoscaling/v1 Scale): the answer upstream gives; nullopt when it types.
std::optional<http::Response> rejected_apply_config(const registry::FieldValidator& validator,
                                                    bool scale, const registry::Resource& r,
                                                    const nlohmann::json& config);
// The same for custom resources: what the CRD's schema does not declare fails the apply.
std::optional<http::Response> rejected_custom_apply_config(const registry::Resource& r,
                                                           const nlohmann::json& config);
// The warnings to attach to a built-in kind's write, or the answer that refuses it.
errors::Result<std::vector<std::string>> check_fields(const registry::FieldValidator& validator,
                                                      const registry::Resource& r,
                                                      const http::Request& request,
                                                      const nlohmann::json& decoded);
// The same for a custom resource, checked against its CRD's schema; unknown fields are pruned
// from `object` as upstream does.
errors::Result<std::vector<std::string>> check_custom_fields(const registry::Resource& r,
                                                             const http::Request& request,
                                                             nlohmann::json& object);

// A create or update body decoded into `r`'s kind (body_decode.h), then its fields checked as
// above: the object and the warnings to attach, or the answer that refuses the body.
struct CheckedBody {
  nlohmann::json object;
  std::vector<std::string> warnings;
};
errors::Result<CheckedBody> decode_checked_body(const http::Request& request,
                                                const registry::Resource& r,
                                                const registry::FieldValidator& validator);

}  // namespace apiserver::endpoints
