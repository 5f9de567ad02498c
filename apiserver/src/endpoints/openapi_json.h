// The operation model and the schema definitions written out as the JSON of a Swagger 2.0 or an
// OpenAPI 3.0 document.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "endpoints/openapi_model.h"

namespace apiserver::endpoints::openapi_detail {

enum class Flavor { V2, V3 };

// Writes the path items of `paths` (keys of model.paths) as one JSON object, sorted by path.
void put_paths(std::string& out, Flavor f, const Model& model,
               const std::vector<std::string>& paths);

// Rewrites bare "$ref" names for a flavour. In v3 a "$ref" with sibling keys becomes
// {"allOf": [{"$ref": ...}], siblings...}, the way upstream serves v3 (siblings of "$ref" are
// ignored by OpenAPI 3.0 otherwise). Only schema positions are visited: "properties" maps field
// names to schemas, so a field called "$ref" (JSONSchemaProps) is left alone.
json convert_schema(Flavor f, const json& schema);

// Adds to `out` the bare names of the definitions `schema` refers to.
void collect_refs(const json& schema, std::set<std::string>& out);

// The definitions reachable from `paths` as one JSON object (see openapi_json.cpp).
void put_definitions(std::string& out, Flavor f, const Model& model,
                     const std::vector<std::string>& paths,
                     const std::map<std::string, std::string>& definitions,
                     const std::map<std::string, std::vector<std::string>>& refs);

}  // namespace apiserver::endpoints::openapi_detail
