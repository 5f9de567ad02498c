// The parsed structural schema (CrdSchema::Node): one node per schema object, shared by parsing,
// pruning, defaulting and validation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "registry/crd_schema.h"
#include "registry/go_regexp.h"

namespace apiserver::registry {

struct CrdSchema::Node {
  std::vector<std::string> types;  // {"integer","string"} for x-kubernetes-int-or-string
  std::string format;              // as written; empty when upstream strips it
  bool nullable = false;
  bool preserve_unknown = false;
  bool embedded = false;
  std::optional<double> maximum;
  std::optional<double> minimum;
  std::optional<double> multiple_of;
  bool exclusive_maximum = false;
  bool exclusive_minimum = false;
  std::optional<int64_t> max_length;
  std::optional<int64_t> min_length;
  std::optional<int64_t> max_items;
  std::optional<int64_t> min_items;
  std::optional<int64_t> max_properties;
  std::optional<int64_t> min_properties;
  std::string pattern;
  std::optional<GoRegexp> regex;
  bool unique_items = false;
  std::optional<std::vector<nlohmann::json>> enum_values;
  std::vector<std::string> required;
  std::map<std::string, std::unique_ptr<Node>> properties;
  // additionalProperties: has_additional with a null schema is `additionalProperties: true`.
  bool has_additional = false;
  std::unique_ptr<Node> additional;
  std::unique_ptr<Node> items;
  std::optional<nlohmann::json> default_value;
  std::string list_type;
  std::vector<std::string> list_map_keys;
  // Value validation by other schemas (allOf, anyOf, oneOf, not). Their nodes hold only value
  // checks, properties and items (no type but in upstream's int-or-string pattern).
  std::vector<std::unique_ptr<Node>> all_of;
  std::vector<std::unique_ptr<Node>> any_of;
  std::vector<std::unique_ptr<Node>> one_of;
  std::unique_ptr<Node> not_schema;
  bool has_junctors() const {
    return !all_of.empty() || !any_of.empty() || !one_of.empty() || not_schema != nullptr;
  }

  const Node* property(const std::string& name) const {
    auto it = properties.find(name);
    return it == properties.end() ? nullptr : it->second.get();
  }
};

// Parsing steps shared by crd_schema.cpp and crd_schema_junctors.cpp. `where` is the node's field
// path ("spec.versions[0].schema.openAPIV3Schema.properties[spec]").
//
// The value checks of `j` (format, bounds, lengths, counts, pattern, enum, required) into `node`.
std::optional<CrdSchema::Error> parse_value_checks(const nlohmann::json& j,
                                                   const std::string& where, CrdSchema::Node& node);
// allOf, anyOf, oneOf and not of `j` into `node`, with the rules upstream's structural schema
// check sets for them (crd_schema_junctors.cpp).
std::optional<CrdSchema::Error> parse_junctors(const nlohmann::json& j, const std::string& where,
                                               CrdSchema::Node& node);
// That every field and items schema the root's junctors name is also declared outside them.
std::optional<CrdSchema::Error> check_junctor_completeness(const CrdSchema::Node& root,
                                                           const std::string& where);

}  // namespace apiserver::registry
