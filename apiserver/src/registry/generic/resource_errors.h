// The Status answers about one object of a resource, worded as kube-apiserver's storage errors
// (k8s.io/apimachinery/pkg/api/errors), and the one translation of storage errors into them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "errors/status.h"
#include "registry/objects.h"
#include "storage/storage.h"

namespace apiserver::registry {

// 404: `configmaps "x" not found`.
errors::Status not_found(const Resource& r, const std::string& name);
// 404 for the namespace a namespaced create names.
errors::Status namespace_not_found(const std::string& ns);
// NamespaceLifecycle's refusal of a create of `shown` (its name, or generateName) of `r` in
// namespace `ns`, stored as `namespace_object`: 403 while it terminates, else nullopt.
std::optional<errors::Status> refuse_create_in_namespace(const Resource& r,
                                                         const std::string& shown,
                                                         const std::string& ns,
                                                         const nlohmann::json& namespace_object);
// 409: `configmaps "x" already exists`.
errors::Status already_exists(const Resource& r, const std::string& name);
// 409: the object changed since the resourceVersion the write was made against.
errors::Status conflict(const Resource& r, const std::string& name);
// 422 Invalid for the kind `kind` of `group` ("ConfigMap", "DeleteOptions" of meta.k8s.io), one
// cause per field error.
errors::Status invalid(const std::string& group, const std::string& kind, const std::string& name,
                       const std::vector<FieldError>& field_errors);
errors::Status invalid(const Resource& r, const std::string& name,
                       const std::vector<FieldError>& field_errors);
// A storage error as the API answers it; `name` is the object the request named ("" for lists).
errors::Status from_storage(const Resource& r, const std::string& name,
                            const storage::Error& error);

}  // namespace apiserver::registry
