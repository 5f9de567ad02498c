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

using Error = CrdSchema::Error;

// The node of `j` at `where`, or why it is not a usable structural schema; the error names a
// field only for the failures upstream's CRD validation reports as field errors.
common::Result<std::unique_ptr<Node>, Error> parse_node(const json& j, const std::string& where);

// Sets `out` to j[key] when present and not null; the error when it is not a non-negative
// integer.
std::optional<std::string> parse_count(const json& j, const char* key, std::optional<int64_t>& out,
                                       const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return std::nullopt;
  }
  if (kind_of(*it) != Kind::Int || as_int(*it) < 0) {
    return where + "." + key + ": must be a non-negative integer";
  }
  out = as_int(*it);
  return std::nullopt;
}

// Sets `out` to j[key] when present and not null; the error when it is not a number.
std::optional<std::string> parse_number(const json& j, const char* key, std::optional<double>& out,
                                        const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return std::nullopt;
  }
  if (!it->is_number()) {
    return where + "." + key + ": must be a number";
  }
  out = as_double(*it);
  return std::nullopt;
}

// Appends j[key], when present and not null, to `out` as strings; the error when it is not an
// array of strings.
std::optional<std::string> read_strings(const json& j, const char* key, const std::string& where,
                                        std::vector<std::string>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    return std::nullopt;
  }
  if (!it->is_array() ||
      !std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); })) {
    return where + "." + key + ": must be an array of strings";
  }
  for (const auto& v : *it) {
    out.push_back(v.get<std::string>());
  }
  return std::nullopt;
}

// An error that names no field.
Error message_only(std::string message) {
  return Error{std::move(message), std::nullopt};
}

}  // namespace

std::optional<Error> parse_value_checks(const json& j, const std::string& where, Node& n) {
  Node* node = &n;
  if (auto it = j.find("format"); it != j.end() && it->is_string()) {
    // Upstream strips formats it does not support before validating.
    const std::string format = it->get<std::string>();
    if (is_supported_format(format)) {
      node->format = format;
    }
  }

  for (auto [key, out] :
       {std::pair{"maximum", &node->maximum}, std::pair{"minimum", &node->minimum},
        std::pair{"multipleOf", &node->multiple_of}}) {
    if (auto error = parse_number(j, key, *out, where)) {
      return message_only(std::move(*error));
    }
  }
  for (auto [key, out] :
       {std::pair{"maxLength", &node->max_length}, std::pair{"minLength", &node->min_length},
        std::pair{"maxItems", &node->max_items}, std::pair{"minItems", &node->min_items},
        std::pair{"maxProperties", &node->max_properties},
        std::pair{"minProperties", &node->min_properties}}) {
    if (auto error = parse_count(j, key, *out, where)) {
      return message_only(std::move(*error));
    }
  }
  node->exclusive_maximum = flag(j, "exclusiveMaximum");
  node->exclusive_minimum = flag(j, "exclusiveMinimum");
  node->unique_items = flag(j, "uniqueItems");

  if (auto it = j.find("pattern"); it != j.end() && it->is_string()) {
    node->pattern = it->get<std::string>();
    auto compiled = GoRegexp::compile(node->pattern);
    if (!compiled) {
      FieldError invalid =
          invalid_rendered(where + ".pattern", go_quote(node->pattern),
                           "must be a valid regular expression, but isn't: " + compiled.error());
      std::string message = invalid.field + ": " + invalid.message;
      return Error{std::move(message), std::move(invalid)};
    }
    node->regex = std::move(*compiled);
  }

  if (auto it = j.find("enum"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) {
      return message_only(where + ".enum: must be an array");
    }
    node->enum_values = std::vector<json>(it->begin(), it->end());
  }

  if (auto error = read_strings(j, "required", where, node->required)) {
    return message_only(std::move(*error));
  }

  return std::nullopt;
}

namespace {

common::Result<std::unique_ptr<Node>, Error> parse_node(const json& j, const std::string& where) {
  if (!j.is_object()) {
    return message_only(where + ": must be an object");
  }
  if (j.contains("$ref")) {
    return message_only(where + ".$ref: not allowed in a structural schema");
  }
  auto node = std::make_unique<Node>();
  node->nullable = flag(j, "nullable");
  node->preserve_unknown = flag(j, "x-kubernetes-preserve-unknown-fields");
  node->embedded = flag(j, "x-kubernetes-embedded-resource");
  const bool int_or_string = flag(j, "x-kubernetes-int-or-string");

  std::string type;
  if (auto it = j.find("type"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) {
      return message_only(where + ".type: must be a string");
    }
    type = it->get<std::string>();
  }
  static const std::set<std::string> kTypes = {"object",  "array",  "string",
                                               "integer", "number", "boolean"};
  if (!type.empty() && kTypes.count(type) == 0) {
    return message_only(where + ".type: unsupported type \"" + type + "\"");
  }
  if (int_or_string) {
    // The validator sees x-kubernetes-int-or-string as type [integer, string].
    node->types = {"integer", "string"};
  } else if (!type.empty()) {
    node->types = {type};
  } else if (!node->preserve_unknown) {
    return message_only(where + ".type: must not be empty for specified fields");
  }
  if (node->embedded && type != "object") {
    return message_only(where + ".type: must be object if x-kubernetes-embedded-resource is true");
  }

  if (auto error = parse_value_checks(j, where, *node)) {
    return *error;
  }

  if (auto it = j.find("default"); it != j.end()) {
    node->default_value = *it;
  }

  if (auto it = j.find("properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      return message_only(where + ".properties: must be an object");
    }
    for (const auto& [name, sub] : it->items()) {
      auto child = parse_node(sub, where + ".properties[" + name + "]");
      if (!child) {
        return child;
      }
      node->properties.emplace(name, std::move(*child));
    }
  }

  if (auto it = j.find("additionalProperties"); it != j.end() && !it->is_null()) {
    if (j.contains("properties")) {
      return message_only(where +
                          ".additionalProperties: properties and additionalProperties are mutually "
                          "exclusive");
    }
    if (it->is_boolean()) {
      if (!it->get<bool>()) {
        return message_only(where + ".additionalProperties: false is not allowed");
      }
      node->has_additional = true;
    } else {
      auto additional = parse_node(*it, where + ".additionalProperties");
      if (!additional) {
        return additional;
      }
      node->additional = std::move(*additional);
      node->has_additional = true;
    }
  }

  if (auto it = j.find("items"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      return message_only(where + ".items: must be a single schema");
    }
    auto items = parse_node(*it, where + ".items");
    if (!items) {
      return items;
    }
    node->items = std::move(*items);
  } else if (type == "array") {
    return message_only(where + ".items: must be specified for type array");
  }

  if (auto it = j.find("x-kubernetes-list-type"); it != j.end() && !it->is_null()) {
    const std::string list_type = it->is_string() ? it->get<std::string>() : "";
    if (list_type != "atomic" && list_type != "set" && list_type != "map") {
      return message_only(where + ".x-kubernetes-list-type: must be atomic, set or map");
    }
    node->list_type = list_type;
  }
  if (auto error = read_strings(j, "x-kubernetes-list-map-keys", where, node->list_map_keys)) {
    return message_only(std::move(*error));
  }
  if (node->list_type == "map" && node->list_map_keys.empty()) {
    return message_only(where +
                        ".x-kubernetes-list-map-keys: must not be empty if list type is map");
  }
  if (auto error = parse_junctors(j, where, *node)) {
    return *error;
  }
  return node;
}

}  // namespace

common::Result<CrdSchema, CrdSchema::Error> CrdSchema::parse(
    const nlohmann::json& open_api_v3_schema, const std::string& field_root) {
  if (json_depth(open_api_v3_schema, kMaxSchemaDepth) > kMaxSchemaDepth) {
    return Error{field_root + ": nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels",
                 {}};
  }
  auto root = parse_node(open_api_v3_schema, field_root);
  if (!root) {
    return root.error();
  }
  if ((*root)->types != std::vector<std::string>{"object"}) {
    return Error{field_root + ".type: must be object at the root", {}};
  }
  if (auto error = check_junctor_completeness(**root, field_root)) {
    return *error;
  }
  CrdSchema schema;
  schema.root_ = std::shared_ptr<const Node>(std::move(*root));
  schema.source_ = std::make_shared<const nlohmann::json>(open_api_v3_schema);
  return schema;
}

const nlohmann::json& CrdSchema::json() const {
  return *source_;
}

}  // namespace apiserver::registry
