// allOf, anyOf, oneOf and not in a CRD's structural schema, parsed with the rules of
// apiextensions-apiserver v1.32's structural check (pkg/apiserver/schema validation.go and
// complete.go): a schema under a junctor only adds value checks, so it may not set a type (but in
// the int-or-string pattern), additionalProperties, default, title, description, nullable, the
// x-kubernetes-* extensions or metadata; and every field or items schema the root's junctors name
// must be declared outside them too. Upstream reports all such errors sorted by their text; this
// reports the first one found, with upstream's field path and words, e.g.
//   spec.versions[0].schema.openAPIV3Schema.properties[spec].oneOf[0].type: Forbidden: must be
//   empty to be structural
#include <cstddef>

#include "registry/crd_schema.h"
#include "registry/crd_schema_node.h"
#include "registry/objects.h"
#include "registry/walk_depth.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;
using Node = CrdSchema::Node;
using Error = CrdSchema::Error;

Error field_error(FieldError e) {
  std::string message = e.field + ": " + e.message;
  return Error{std::move(message), std::move(e)};
}

Error forbidden_error(const std::string& field, const std::string& detail) {
  return field_error(forbidden(field, detail));
}

// Upstream lets x-kubernetes-int-or-string be written out as anyOf: [{type: integer},
// {type: string}] (also as the first allOf's anyOf); those two schemas keep their type.
bool is_int_or_string_any_of(const json& any_of) {
  return any_of.is_array() && any_of.size() == 2 && any_of[0] == json{{"type", "integer"}} &&
         any_of[1] == json{{"type", "string"}};
}

bool set_flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

bool present(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && !it->is_null();
}

bool non_empty(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && ((it->is_array() && !it->empty()) || it->is_string());
}

common::Result<std::unique_ptr<Node>, Error> parse_nested(const json& j, const std::string& where,
                                                          bool checked, bool skip_any_of);

// The junctors of `j` into `node`; with `skip_any_of` the anyOf schemas are the int-or-string
// pattern and go unchecked; with `skip_first_all_of_any_of` the first allOf's are.
std::optional<Error> parse_junctors_of(const json& j, const std::string& where, Node& node,
                                       bool skip_any_of, bool skip_first_all_of_any_of) {
  const WalkDepth depth;
  if (depth.exceeded()) {
    return Error{where + ": nests deeper than " + std::to_string(kMaxWalkDepth) + " levels", {}};
  }
  struct List {
    const char* key;
    std::vector<std::unique_ptr<Node>>* out;
  };
  for (const List& list :
       {List{"anyOf", &node.any_of}, List{"allOf", &node.all_of}, List{"oneOf", &node.one_of}}) {
    auto it = j.find(list.key);
    if (it == j.end() || it->is_null()) {
      continue;
    }
    if (!it->is_array()) {
      return Error{where + "." + list.key + ": must be an array of schemas", {}};
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string at = where + "." + list.key + "[" + std::to_string(i) + "]";
      const bool is_any_of = std::string(list.key) == "anyOf";
      const bool first_all_of = std::string(list.key) == "allOf" && i == 0;
      auto sub = parse_nested((*it)[i], at, !(is_any_of && skip_any_of),
                              first_all_of && skip_first_all_of_any_of);
      if (!sub) {
        return sub.error();
      }
      list.out->push_back(std::move(*sub));
    }
  }
  if (auto it = j.find("not"); it != j.end() && !it->is_null()) {
    auto sub = parse_nested(*it, where + ".not", true, false);
    if (!sub) {
      return sub.error();
    }
    node.not_schema = std::move(*sub);
  }
  return std::nullopt;
}

// A schema under a junctor; with `checked` false (the int-or-string pattern) its type is kept and
// nothing is forbidden; with `skip_any_of` its own anyOf is that pattern, unchecked.
common::Result<std::unique_ptr<Node>, Error> parse_nested(const json& j, const std::string& where,
                                                          bool checked, bool skip_any_of) {
  if (!j.is_object()) {
    return Error{where + ": must be an object", {}};
  }
  if (j.contains("$ref")) {
    return Error{where + ".$ref: not allowed in a structural schema", {}};
  }
  auto node = std::make_unique<Node>();
  if (auto error = parse_value_checks(j, where, *node)) {
    return *error;
  }
  // Upstream passes the int-or-string exception down one level only.
  if (auto error = parse_junctors_of(
          j, where, *node, skip_any_of && is_int_or_string_any_of(j.value("anyOf", json())),
          false)) {
    return *error;
  }
  if (auto it = j.find("items"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      return Error{where + ".items: must be a single schema", {}};
    }
    auto items = parse_nested(*it, where + ".items", checked, false);
    if (!items) {
      return items;
    }
    node->items = std::move(*items);
  }
  if (auto it = j.find("properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) {
      return Error{where + ".properties: must be an object", {}};
    }
    for (const auto& [name, sub] : it->items()) {
      auto child = parse_nested(sub, where + ".properties[" + name + "]", checked, false);
      if (!child) {
        return child;
      }
      node->properties.emplace(name, std::move(*child));
    }
  }
  if (auto it = j.find("type");
      it != j.end() && it->is_string() && !it->get<std::string>().empty()) {
    if (checked) {
      return forbidden_error(where + ".type", "must be empty to be structural");
    }
    node->types = {it->get<std::string>()};
  }
  if (!checked) {
    return node;
  }
  if (present(j, "additionalProperties")) {
    return forbidden_error(where + ".additionalProperties", "must be undefined to be structural");
  }
  if (present(j, "default")) {
    return forbidden_error(where + ".default", "must be undefined to be structural");
  }
  for (const char* key : {"title", "description"}) {
    if (auto it = j.find(key);
        it != j.end() && it->is_string() && !it->get<std::string>().empty()) {
      return forbidden_error(where + "." + key, "must be empty to be structural");
    }
  }
  for (const char* key : {"nullable", "x-kubernetes-preserve-unknown-fields",
                          "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"}) {
    if (set_flag(j, key)) {
      return forbidden_error(where + "." + key, "must be false to be structural");
    }
  }
  if (non_empty(j, "x-kubernetes-list-map-keys")) {
    return forbidden_error(where + ".x-kubernetes-list-map-keys", "must be empty to be structural");
  }
  for (const char* key : {"x-kubernetes-list-type", "x-kubernetes-map-type"}) {
    if (present(j, key)) {
      return forbidden_error(where + "." + key, "must be undefined to be structural");
    }
  }
  if (non_empty(j, "x-kubernetes-validations")) {
    return forbidden_error(where + ".x-kubernetes-validations", "must be empty to be structural");
  }
  if (j.contains("properties") && j["properties"].is_object() &&
      j["properties"].contains("metadata")) {
    return forbidden_error(where + ".properties[metadata]",
                           "must not be specified in a nested context");
  }
  return node;
}

std::optional<Error> nested_completeness(const Node& v, const Node* s, const std::string& s_path,
                                         const std::string& v_path);

// The junctors of `v` checked against the structural node `s` they apply to.
std::optional<Error> junctors_completeness(const Node& v, const Node* s, const std::string& s_path,
                                           const std::string& v_path) {
  const WalkDepth depth;
  if (depth.exceeded()) {
    return Error{v_path + ": nests deeper than " + std::to_string(kMaxWalkDepth) + " levels", {}};
  }
  if (s == nullptr) {
    return field_error(required_value(s_path, "because it is defined in " + v_path));
  }
  if (v.not_schema) {
    if (auto e = nested_completeness(*v.not_schema, s, s_path, v_path + ".not")) {
      return e;
    }
  }
  struct List {
    const char* key;
    const std::vector<std::unique_ptr<Node>>* nodes;
  };
  for (const List& list :
       {List{"allOf", &v.all_of}, List{"anyOf", &v.any_of}, List{"oneOf", &v.one_of}}) {
    for (size_t i = 0; i < list.nodes->size(); ++i) {
      const std::string at = v_path + "." + list.key + "[" + std::to_string(i) + "]";
      if (auto e = nested_completeness(*(*list.nodes)[i], s, s_path, at)) {
        return e;
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> nested_completeness(const Node& v, const Node* s, const std::string& s_path,
                                         const std::string& v_path) {
  if (s == nullptr) {
    return field_error(required_value(s_path, "because it is defined in " + v_path));
  }
  if (auto e = junctors_completeness(v, s, s_path, v_path)) {
    return e;
  }
  if (v.items) {
    if (auto e =
            nested_completeness(*v.items, s->items.get(), s_path + ".items", v_path + ".items")) {
      return e;
    }
  }
  for (const auto& [key, field] : v.properties) {
    const std::string s_at = s_path + ".properties[" + key + "]";
    const std::string v_at = v_path + ".properties[" + key + "]";
    const Node* declared = s->property(key);
    if (declared == nullptr) {
      return field_error(required_value(s_at, "because it is defined in " + v_at));
    }
    if (auto e = nested_completeness(*field, declared, s_at, v_at)) {
      return e;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CrdSchema::Error> parse_junctors(const json& j, const std::string& where,
                                               Node& node) {
  const bool skip_first = j.contains("allOf") && j["allOf"].is_array() && !j["allOf"].empty() &&
                          j["allOf"][0].is_object() &&
                          is_int_or_string_any_of(j["allOf"][0].value("anyOf", json()));
  return parse_junctors_of(j, where, node, is_int_or_string_any_of(j.value("anyOf", json())),
                           skip_first);
}

std::optional<CrdSchema::Error> check_junctor_completeness(const Node& root,
                                                           const std::string& where) {
  // Upstream checks the junctors of the root schema only.
  return junctors_completeness(root, &root, where, where);
}

}  // namespace apiserver::registry
