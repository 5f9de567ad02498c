// Read access to the schema facts (facts::schemas_json(), or a CRD's schema later) for the code
// that walks objects by their schema: patch strategies, server-side apply, field ownership.
//
// Nodes are the JSON schema objects of the facts document: a definition, or a property / items /
// additionalProperties schema inside one. `$ref` values are bare definition names. Accessors take
// any node (a reference is followed before looking inside it) and return the child node as it is
// written, unresolved, because extensions such as x-kubernetes-patch-strategy sit next to the
// `$ref` of a property; extension() looks at both places.
//
// Thread-safety: immutable after construction; share one instance (builtin()) freely.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace apiserver::registry {

class SchemaIndex {
 public:
  // The built-in v1.32 schemas, parsed once on first use.
  static const SchemaIndex& builtin();

  // From a {"definitions": {...}} document.
  explicit SchemaIndex(std::string_view schemas_json);
  explicit SchemaIndex(nlohmann::json document);

  // The definition of a kind (by x-kubernetes-group-version-kind), nullptr when unknown.
  const nlohmann::json* kind(const std::string& group, const std::string& version,
                             const std::string& kind) const;
  // A definition by name, nullptr when unknown.
  const nlohmann::json* definition(const std::string& name) const;

  // `node` with its $ref followed (repeatedly); nullptr for nullptr or a dangling reference.
  const nlohmann::json* resolve(const nlohmann::json* node) const;
  // The schema of property `name` of an object schema; nullptr when there is none.
  const nlohmann::json* property(const nlohmann::json* node, const std::string& name) const;
  // The item schema of an array schema; nullptr when `node` is not an array schema.
  const nlohmann::json* items(const nlohmann::json* node) const;
  // The value schema of a map schema (additionalProperties); nullptr if not a map.
  const nlohmann::json* additional_properties(const nlohmann::json* node) const;
  // The resolved node's "type" ("object", "array", "string", ...), or "" when it has none.
  std::string type(const nlohmann::json* node) const;

  // The value of an extension (e.g. "x-kubernetes-list-type") on `node` itself, else on the
  // definition it references; nullptr if absent.
  const nlohmann::json* extension(const nlohmann::json* node, const std::string& name) const;

 private:
  void build_kind_index();

  nlohmann::json definitions_;
  std::map<std::string, const nlohmann::json*> kinds_;  // "group/version/Kind" -> definition
};

}  // namespace apiserver::registry
