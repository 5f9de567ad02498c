// The answers the resource handlers build around stored objects: the object as served (its
// stored JSON plus resourceVersion), what a write stored, storage errors as Status, and Warning
// headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"
#include "apiserver/registry.h"
#include "errors/result.h"
#include "registry/generic/store.h"
#include "storage/storage.h"

namespace apiserver::endpoints {

// A storage error as the API answers it (registry/generic/resource_errors.h).
http::Response storage_failure(const registry::Resource& r, const std::string& name,
                               const storage::Error& error);
// The object as served: the stored JSON plus its resourceVersion ({} when it does not parse).
nlohmann::json served_object(const storage::Object& stored);
// A response carrying one object, made from its stored text and revision (see served_json.h).
http::Response object_response(int code, const std::string& stored, int64_t revision);
// The answer to a create or update: what it wrote (`code` 201 or 200) with the warnings, or the
// Status that refused it.
http::Response written_response(int code, const errors::Result<registry::Written>& written,
                                const std::vector<std::string>& warnings);
void add_warnings(http::Response& response, const std::vector<std::string>& warnings);
// A Status document (as the patch code builds them) as the answer.
http::Response status_from(const nlohmann::json& status);

}  // namespace apiserver::endpoints
