// Builds the schema graph of field_schema_graph.h from a {"definitions": {...}} document: every
// definition first gets its node, so that $ref (cycles included) resolves to it.
#include "registry/field_schema_graph.h"

namespace apiserver::registry {

using nlohmann::json;

namespace {

// Definitions that are empty Go structs: no properties in the schema, but decoded as structs, so
// every key is unknown (all other property-less object definitions have their own UnmarshalJSON).
const char* const kEmptyStructs[] = {
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceSubresourceStatus",
    "io.k8s.api.apiserverinternal.v1alpha1.StorageVersionSpec",
};

}  // namespace

Node* FieldValidator::Index::make() {
  nodes.push_back(std::make_unique<Node>());
  return nodes.back().get();
}

bool FieldValidator::Index::flag(const json& schema, const char* name) {
  auto it = schema.find(name);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

void FieldValidator::Index::compile_into(Node& node, const json& schema) {
  if (!schema.is_object() || flag(schema, "x-kubernetes-preserve-unknown-fields") ||
      flag(schema, "x-kubernetes-embedded-resource") ||
      flag(schema, "x-kubernetes-int-or-string")) {
    node.kind = NodeKind::Opaque;
    return;
  }
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
    node.kind = NodeKind::Struct;
    std::uint32_t i = 0;
    for (const auto& [name, sub] : props->items()) {
      node.fields.emplace(name, std::make_pair(i++, compile(sub)));
    }
    return;
  }
  if (auto extra = schema.find("additionalProperties"); extra != schema.end()) {
    node.kind = NodeKind::Map;
    node.elem = extra->is_object() ? compile(*extra) : &opaque;
    if (node.go_type.empty()) {
      node.go_type =
          "map[string]" + (node.elem->go_type.empty() ? "interface {}" : node.elem->go_type);
    }
    return;
  }
  const std::string type = schema.value("type", std::string());
  if (type == "array") {
    node.kind = NodeKind::Array;
    auto items = schema.find("items");
    node.elem = items != schema.end() ? compile(*items) : &opaque;
    if (node.go_type.empty()) {
      node.go_type = "[]" + (node.elem->go_type.empty() ? "interface {}" : node.elem->go_type);
    }
  } else if (type == "string" || type == "integer" || type == "number" || type == "boolean") {
    node.kind = NodeKind::Scalar;
    const std::string format = schema.value("format", std::string());
    if (type == "integer") {
      node.scalar = format == "int32" ? ScalarType::Int32 : ScalarType::Int64;
    } else if (type == "number") {
      node.scalar = ScalarType::Float;
    } else if (type == "boolean") {
      node.scalar = ScalarType::Bool;
    } else if (format == "byte") {
      node.scalar = ScalarType::Bytes;
    } else if (format == "int-or-string") {
      node.scalar = ScalarType::IntOrString;
    }
    if (node.go_type.empty()) {
      static const std::unordered_map<ScalarType, std::string> kGoTypes = {
          {ScalarType::String, "string"},
          {ScalarType::Bytes, "[]uint8"},
          {ScalarType::Int32, "int32"},
          {ScalarType::Int64, "int64"},
          {ScalarType::Float, "float64"},
          {ScalarType::Bool, "bool"},
          {ScalarType::IntOrString, "intstr.IntOrString"}};
      node.go_type = kGoTypes.at(node.scalar);
    }
  } else {
    node.kind = NodeKind::Opaque;
  }
}

const Node* FieldValidator::Index::compile(const json& schema) {
  if (schema.is_object()) {
    if (auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
      auto it = definitions.find(ref->get<std::string>());
      return it != definitions.end() ? it->second : &opaque;
    }
  }
  Node* node = make();
  compile_into(*node, schema);
  return node;
}

FieldValidator::Index::Index(std::string_view text) {
  const json doc = json::parse(text);
  const json& defs = doc.at("definitions");
  // Every definition gets its node and Go type name first so that $ref (including cycles)
  // resolves to it: io.k8s.api.core.v1.Container is the Go type v1.Container.
  for (const auto& [name, schema] : defs.items()) {
    Node* node = make();
    const std::size_t last = name.rfind('.');
    const std::size_t package =
        last == std::string::npos ? std::string::npos : name.rfind('.', last - 1);
    node->go_type = package == std::string::npos ? name : name.substr(package + 1);
    node->struct_name = last == std::string::npos ? name : name.substr(last + 1);
    definitions.emplace(name, node);
  }
  for (const auto& [name, schema] : defs.items()) {
    compile_into(*definitions.at(name), schema);
  }
  // Go types with their own UnmarshalJSON that the schema shows as strings.
  const std::pair<const char*, ScalarType> own_decoders[] = {
      {"io.k8s.apimachinery.pkg.api.resource.Quantity", ScalarType::Quantity},
      {"io.k8s.apimachinery.pkg.apis.meta.v1.Time", ScalarType::Time},
      {"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", ScalarType::MicroTime},
      {"io.k8s.apimachinery.pkg.util.intstr.IntOrString", ScalarType::IntOrString},
  };
  for (const auto& [name, scalar] : own_decoders) {
    if (auto it = definitions.find(name); it != definitions.end()) {
      it->second->kind = NodeKind::Scalar;
      it->second->scalar = scalar;
    }
  }
  for (const char* name : kEmptyStructs) {
    if (auto it = definitions.find(name); it != definitions.end()) {
      it->second->kind = NodeKind::Struct;
      it->second->fields.clear();
    }
  }
  for (const auto& [name, schema] : defs.items()) {
    auto gvks = schema.find("x-kubernetes-group-version-kind");
    if (gvks == schema.end() || !gvks->is_array()) {
      continue;
    }
    Node* node = definitions.at(name);
    if (node->kind != NodeKind::Struct) {
      continue;
    }
    // Top-level kinds embed TypeMeta: apiVersion and kind are always known.
    for (const char* type_meta : {"apiVersion", "kind"}) {
      if (node->fields.find(type_meta) == node->fields.end()) {
        node->fields.emplace(type_meta,
                             std::make_pair(static_cast<std::uint32_t>(node->fields.size()),
                                            static_cast<const Node*>(&opaque)));
      }
    }
    for (const auto& gvk : *gvks) {
      by_gvk.emplace(
          gvk_key(gvk.value("group", ""), gvk.value("version", ""), gvk.value("kind", "")), node);
    }
  }
}

}  // namespace apiserver::registry
