// DeleteOptions decoded as kube-apiserver's delete handler decodes them: from the body when there
// is one (JSON, YAML or protobuf; the query is then ignored), else from the query, then
// validated. Upstream passes the decoder's errors on without an API status, so a body that does
// not decode answers 500 with no reason and Go's text:
//
//   json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type
//     v1.DeletionPropagation
//   couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of
//     value
//
// A bad gracePeriodSeconds in the query is a 400 (strconv's text); values that decode but are
// not allowed are a 422 Invalid for DeleteOptions.meta.k8s.io.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "errors/result.h"
#include "registry/field_validation.h"

namespace apiserver::endpoints {

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<bool> orphan_dependents;
  std::optional<std::string> propagation_policy;
  std::vector<std::string> dry_run;
};

// The options, or the answer that refuses them (see above).
errors::Result<DeleteOptions> decode_delete_options(const http::Request& request,
                                                    const registry::FieldValidator& validator);

// The Warning header values a delete of `r` with these options gets: the kind's (batch/v1 Jobs')
// when the options name no propagation policy; none otherwise.
std::vector<std::string> default_policy_warnings(const registry::Resource& r,
                                                 const DeleteOptions& options);

// Whether upstream's storage for the resource returns the deleted object (ReturnDeletedObject):
// pods, services, serviceaccounts, persistentvolumes, persistentvolumeclaims, namespaces, the
// dynamic resource allocation claims, and every custom resource.
bool returns_deleted_object(const registry::Resource& r);

// The 200 of a delete that removed the object: the object where upstream returns it, else a
// Status with status Success and details {name, group, kind: resource, uid}.
http::Response deleted_response(const registry::Resource& r, const nlohmann::json& object);

}  // namespace apiserver::endpoints
