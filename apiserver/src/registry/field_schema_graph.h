// The schema graph field validation walks (FieldValidator::Index): one node per Go type of the
// OpenAPI definitions, with what its Go decoder accepts. Built once, then read-only.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "registry/field_validation.h"

namespace apiserver::registry {

enum class NodeKind { Opaque, Scalar, Struct, Map, Array };

// What a Scalar node's Go type accepts, and how a mismatch is reported.
enum class ScalarType {
  String,
  Bytes,
  Int32,
  Int64,
  Float,
  Bool,
  Quantity,
  Time,
  MicroTime,
  IntOrString
};

struct Node {
  NodeKind kind = NodeKind::Opaque;
  ScalarType scalar = ScalarType::String;
  std::string go_type;      // as Go prints the type: "v1.ObjectMeta", "[]v1.Container", "int32"
  std::string struct_name;  // Struct definitions: the Go type's name, "ObjectMeta"
  // Struct: property name -> (index, schema). Indices give duplicate detection a bitmap.
  std::unordered_map<std::string, std::pair<std::uint32_t, const Node*>> fields;
  const Node* elem = nullptr;  // Map values / Array items; nullptr = opaque
};

struct FieldValidator::Index {
  std::vector<std::unique_ptr<Node>> nodes;
  std::unordered_map<std::string, Node*> definitions;
  std::unordered_map<std::string, const Node*> by_gvk;  // "group/version/Kind"
  Node opaque;

  static std::string gvk_key(const std::string& g, const std::string& v, const std::string& k) {
    return g + '/' + v + '/' + k;
  }

  Node* make();

  static bool flag(const nlohmann::json& schema, const char* name);

  // Fills `node` from `schema`; inline sub-schemas get nodes of their own.
  void compile_into(Node& node, const nlohmann::json& schema);

  const Node* compile(const nlohmann::json& schema);

  explicit Index(std::string_view text);
};

}  // namespace apiserver::registry
