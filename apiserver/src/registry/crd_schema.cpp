// Structural schemas of custom resources, following apiextensions-apiserver v1.32
// (pkg/apiserver/schema/{pruning,defaulting,listtype}, pkg/apiserver/validation) and the
// kube-openapi validator it runs (pkg/validation/validate, pkg/validation/errors).
//
// This file parses a CRD version's schema into the tree of crd_schema_node.h. CrdSchema's other
// members live with their concept: crd_schema_pruning.cpp, crd_schema_defaulting.cpp and
// crd_schema_validation.cpp; Go's value model is crd_schema_values.cpp.
#include "registry/crd_schema.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "registry/crd_schema_node.h"
#include "registry/crd_schema_values.h"
#include "registry/go_regexp.h"
#include "registry/go_text.h"
#include "registry/schema_formats.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {

using nlohmann::json;
using Node = CrdSchema::Node;

namespace {

bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

// `field_error`, when not null, gets the failures upstream's CRD validation reports as field
// errors (an invalid pattern).
std::unique_ptr<Node> parse_node(const json& j, const std::string& where, std::string& error,
                                 FieldError* field_error);

bool parse_count(const json& j, const char* key, std::optional<int64_t>& out,
                 const std::string& where, std::string& error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return true;
  }
  if (kind_of(*it) != Kind::Int || as_int(*it) < 0) {
    error = where + "." + key + ": must be a non-negative integer";
    return false;
  }
  out = as_int(*it);
  return true;
}

bool parse_number(const json& j, const char* key, std::optional<double>& out,
                  const std::string& where, std::string& error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return true;
  }
  if (!it->is_number()) {
    error = where + "." + key + ": must be a number";
    return false;
  }
  out = as_double(*it);
  return true;
}

// Appends j[key], when present and not null, to `out` as strings; false with `error` set when it
// is not an array of strings.
bool read_strings(const json& j, const char* key, const std::string& where,
                  std::vector<std::string>& out, std::string& error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return true;
  }
  if (!it->is_array() ||
      !std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); })) {
    error = where + "." + key + ": must be an array of strings";
    return false;
  }
  for (const auto& v : *it) {
    out.push_back(v.get<std::string>());
  }
  return true;
}

std::unique_ptr<Node> parse_node(const json& j, const std::string& where, std::string& error,
                                 FieldError* field_error) {
  if (!j.is_object()) {
    error = where + ": must be an object";
    return nullptr;
  }
  if (j.contains("$ref")) {
    error = where + ".$ref: not allowed in a structural schema";
    return nullptr;
  }
  auto node = std::make_unique<Node>();
  node->nullable = flag(j, "nullable");
  node->preserve_unknown = flag(j, "x-kubernetes-preserve-unknown-fields");
  node->embedded = flag(j, "x-kubernetes-embedded-resource");
  const bool int_or_string = flag(j, "x-kubernetes-int-or-string");

  std::string type;
  if (auto it = j.find("type"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) {
      error = where + ".type: must be a string";
      return nullptr;
    }
    type = it->get<std::string>();
  }
  static const std::set<std::string> kTypes = {"object",  "array",  "string",
                                               "integer", "number", "boolean"};
  if (!type.empty() && kTypes.count(type) == 0) {
    error = where + ".type: unsupported type \"" + type + "\"";
    return nullptr;
  }
  if (int_or_string) {
    // The validator sees x-kubernetes-int-or-string as type [integer, string].
    node->types = {"integer", "string"};
  } else if (!type.empty()) {
    node->types = {type};
  } else if (!node->preserve_unknown) {
    error = where + ".type: must not be empty for specified fields";
    return nullptr;
  }
  if (node->embedded && type != "object") {
    error = where + ".type: must be object if x-kubernetes-embedded-resource is true";
    return nullptr;
  }

  if (auto it = j.find("format"); it != j.end() && it->is_string()) {
    // Upstream strips formats it does not support before validating.
    const std::string format = it->get<std::string>();
    if (is_supported_format(format)) {
      node->format = format;
    }
  }

  if (!parse_number(j, "maximum", node->maximum, where, error) ||
      !parse_number(j, "minimum", node->minimum, where, error) ||
      !parse_number(j, "multipleOf", node->multiple_of, where, error) ||
      !parse_count(j, "maxLength", node->max_length, where, error) ||
      !parse_count(j, "minLength", node->min_length, where, error) ||
      !parse_count(j, "maxItems", node->max_items, where, error) ||
      !parse_count(j, "minItems", node->min_items, where, error) ||
      !parse_count(j, "maxProperties", node->max_properties, where, error) ||
      !parse_count(j, "minProperties", node->min_properties, where, error)) {
    return nullptr;
  }
  node->exclusive_maximum = flag(j, "exclusiveMaximum");
  node->exclusive_minimum = flag(j, "exclusiveMinimum");
  node->unique_items = flag(j, "uniqueItems");

  if (auto it = j.find("pattern"); it != j.end() && it->is_string()) {
    node->pattern = it->get<std::string>();
    auto compiled = GoRegexp::compile(node->pattern);
    if (!compiled) {
      const FieldError invalid =
          invalid_rendered(where + ".pattern", go_quote(node->pattern),
                           "must be a valid regular expression, but isn't: " + compiled.error());
      error = invalid.field + ": " + invalid.message;
      if (field_error != nullptr) {
        *field_error = invalid;
      }
      return nullptr;
    }
    node->regex = std::move(*compiled);
  }

  if (auto it = j.find("enum"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) {
      error = where + ".enum: must be an array";
      return nullptr;
    }
    node->enum_values = std::vector<json>(it->begin(), it->end());
  }

  if (!read_strings(j, "required", where, node->required, error)) {
    return nullptr;
  }

  if (auto it = j.find("default"); it != j.end()) {
    node->default_value = *it;
  }

  if (auto it = j.find("properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = where + ".properties: must be an object";
      return nullptr;
    }
    for (const auto& [name, sub] : it->items()) {
      auto child = parse_node(sub, where + ".properties[" + name + "]", error, field_error);
      if (!child) {
        return nullptr;
      }
      node->properties.emplace(name, std::move(child));
    }
  }

  if (auto it = j.find("additionalProperties"); it != j.end() && !it->is_null()) {
    if (j.contains("properties")) {
      error = where +
              ".additionalProperties: properties and additionalProperties are mutually "
              "exclusive";
      return nullptr;
    }
    if (it->is_boolean()) {
      if (!it->get<bool>()) {
        error = where + ".additionalProperties: false is not allowed";
        return nullptr;
      }
      node->has_additional = true;
    } else {
      node->additional = parse_node(*it, where + ".additionalProperties", error, field_error);
      if (!node->additional) {
        return nullptr;
      }
      node->has_additional = true;
    }
  }

  if (auto it = j.find("items"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = where + ".items: must be a single schema";
      return nullptr;
    }
    node->items = parse_node(*it, where + ".items", error, field_error);
    if (!node->items) {
      return nullptr;
    }
  } else if (type == "array") {
    error = where + ".items: must be specified for type array";
    return nullptr;
  }

  if (auto it = j.find("x-kubernetes-list-type"); it != j.end() && !it->is_null()) {
    const std::string list_type = it->is_string() ? it->get<std::string>() : "";
    if (list_type != "atomic" && list_type != "set" && list_type != "map") {
      error = where + ".x-kubernetes-list-type: must be atomic, set or map";
      return nullptr;
    }
    node->list_type = list_type;
  }
  if (!read_strings(j, "x-kubernetes-list-map-keys", where, node->list_map_keys, error)) {
    return nullptr;
  }
  if (node->list_type == "map" && node->list_map_keys.empty()) {
    error = where + ".x-kubernetes-list-map-keys: must not be empty if list type is map";
    return nullptr;
  }
  return node;
}

}  // namespace

common::Result<CrdSchema, CrdSchema::Error> CrdSchema::parse(
    const nlohmann::json& open_api_v3_schema) {
  if (json_depth(open_api_v3_schema, kMaxSchemaDepth) > kMaxSchemaDepth) {
    return Error{
        "openAPIV3Schema: nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels", {}};
  }
  std::string error;
  FieldError field_error;
  auto root = parse_node(open_api_v3_schema, "openAPIV3Schema", error, &field_error);
  if (!root) {
    // parse_node names a field (never empty) only for the failures that have one.
    return Error{error, field_error.field.empty() ? std::nullopt : std::optional(field_error)};
  }
  if (root->types != std::vector<std::string>{"object"}) {
    return Error{"openAPIV3Schema.type: must be object at the root", {}};
  }
  CrdSchema schema;
  schema.root_ = std::shared_ptr<const Node>(std::move(root));
  schema.source_ = std::make_shared<const nlohmann::json>(open_api_v3_schema);
  return schema;
}

const nlohmann::json& CrdSchema::json() const {
  return *source_;
}

}  // namespace apiserver::registry
