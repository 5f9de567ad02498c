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

  const Node* property(const std::string& name) const {
    auto it = properties.find(name);
    return it == properties.end() ? nullptr : it->second.get();
  }
};

}  // namespace apiserver::registry
