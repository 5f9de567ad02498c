// selectableFields as apiextensions-apiserver v1.32 checks them
// (pkg/apis/apiextensions/validation: ValidateCustomResourceSelectableFields, with the field path
// resolution of pkg/apiserver/schema/cel ValidFieldPath) and serves them (the CR converter's
// ConvertFieldLabel and the strategy's selectable field set).
#include "registry/crd_selectable_fields.h"

#include <set>

#include "registry/crd_schema_node.h"
#include "registry/go_text.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;
using Node = CrdSchema::Node;

// Splits a JSON path into tokens: each of '.', '[' and ']' alone, a single-quoted string (to its
// next quote not preceded by a backslash, delimiters inside kept), and the text between.
std::vector<std::string> tokens_of(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '\'') {
      size_t end = i + 1;
      while (end < path.size() && !(path[end] == '\'' && path[end - 1] != '\\')) {
        ++end;
      }
      // An unterminated quote runs to the end of the path.
      end = end < path.size() ? end + 1 : path.size();
      out.push_back(path.substr(i, end - i));
      i = end;
      continue;
    }
    if (path[i] == '.' || path[i] == '[' || path[i] == ']') {
      out.emplace_back(1, path[i]);
      ++i;
      continue;
    }
    size_t end = i;
    while (end < path.size() && path[end] != '.' && path[end] != '[' && path[end] != ']') {
      ++end;
    }
    out.push_back(path.substr(i, end - i));
    i = end;
  }
  return out;
}

// The escapes a single-quoted path string allows: \' and \\.
common::Result<std::string> unescape_quoted(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 1 < s.size() && (s[i + 1] == '\'' || s[i + 1] == '\\')) {
      out += s[++i];
      continue;
    }
    return "invalid string literal: invalid escape char " + s.substr(i, 2);
  }
  return out;
}

}  // namespace

common::Result<ResolvedFieldPath> resolve_field_path(const CrdSchema& schema,
                                                     const std::string& json_path,
                                                     bool allow_array_notation) {
  ResolvedFieldPath out;
  const Node* at = &schema.root();
  // One step down: by property name, or by map key under additionalProperties.
  auto step = [&](const std::string& name) -> std::optional<std::string> {
    if (at == nullptr) {
      return "does not refer to a valid field";
    }
    if (!at->properties.empty()) {
      const Node* child = at->property(name);
      out.printed += (out.printed.empty() ? "" : ".") + name;
      out.segments.push_back(name);
      if (child == nullptr) {
        return "does not refer to a valid field";
      }
      at = child;
    } else if (at->has_additional) {
      out.printed += "[" + name + "]";
      out.segments.push_back(name);
      at = at->additional.get();
    } else {
      return "does not refer to a valid field";
    }
    return std::nullopt;
  };
  const auto tokens = tokens_of(json_path);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    if (tok == "[") {
      if (!allow_array_notation) {
        return std::string("array notation is not allowed");
      }
      if (++i == tokens.size()) {
        return std::string("unexpected end of JSON path");
      }
      const std::string& quoted = tokens[i];
      if (quoted.size() < 2 || quoted.front() != '\'' || quoted.back() != '\'') {
        return "expected single quoted string but got " + quoted;
      }
      auto name = unescape_quoted(quoted.substr(1, quoted.size() - 2));
      if (!name) {
        return name.error();
      }
      if (auto error = step(*name)) {
        return *error;
      }
      if (++i == tokens.size()) {
        return std::string("unexpected end of JSON path");
      }
      if (tokens[i] != "]") {
        return "expected ] but got " + tokens[i];
      }
    } else if (tok == ".") {
      if (++i == tokens.size()) {
        return std::string("unexpected end of JSON path");
      }
      if (auto error = step(tokens[i])) {
        return *error;
      }
    } else {
      return "expected [ or . but got: " + tok;
    }
  }
  out.schema = at;
  return out;
}

std::vector<FieldError> validate_selectable_fields(const json& version, const std::string& path) {
  std::vector<FieldError> out;
  auto fields = version.find("selectableFields");
  if (fields == version.end() || !fields->is_array() || fields->empty()) {
    return out;
  }
  const std::string list_path = path + ".selectableFields";
  const json::json_pointer schema_at("/schema/openAPIV3Schema");
  if (!version.contains(schema_at) || !version.at(schema_at).is_object()) {
    out.push_back(invalid_value(
        list_path, "",
        "selectableFields may only be set when version.schema.openAPIV3Schema is not included"));
    return out;
  }
  auto schema = CrdSchema::parse(version.at(schema_at));
  if (!schema) {
    return out;
  }
  std::set<std::string> unique;
  for (size_t i = 0; i < fields->size(); ++i) {
    const json& f = (*fields)[i];
    const std::string at = list_path + "[" + std::to_string(i) + "].jsonPath";
    auto it = f.is_object() ? f.find("jsonPath") : f.end();
    const std::string json_path =
        f.is_object() && it != f.end() && it->is_string() ? it->get<std::string>() : "";
    if (json_path.empty()) {
      out.push_back(required_value(at, ""));
      continue;
    }
    auto resolved = resolve_field_path(*schema, json_path, false);
    if (!resolved) {
      out.push_back(invalid_value(at, json_path, "is an invalid path: " + resolved.error()));
      continue;
    }
    if (!resolved->segments.empty() && resolved->segments.front() == "metadata") {
      out.push_back(invalid_value(at, json_path, "must not point to fields in metadata"));
    }
    const Node* found = resolved->schema;
    static const std::set<std::string> kAllowed = {"string", "boolean", "integer"};
    if (found == nullptr || found->types.size() != 1 || kAllowed.count(found->types[0]) == 0) {
      out.push_back(invalid_value(at, json_path,
                                  "must point to a field of type string, boolean or integer. Enum "
                                  "string fields and strings with formats are allowed."));
    }
    if (!unique.insert(resolved->printed).second) {
      out.push_back(duplicate(at, go_quote(json_path)));
    }
  }
  if (unique.size() > kMaxSelectableFields) {
    out.push_back({"FieldValueTooMany", list_path,
                   "Too many: " + std::to_string(unique.size()) + ": must have at most " +
                       std::to_string(kMaxSelectableFields) + " items"});
  }
  return out;
}

FieldSelectors custom_field_selectors(const json& version, bool namespaced) {
  FieldSelectors out;
  out.error_style = "core";
  out.labels = {"metadata.name"};
  if (namespaced) {
    out.labels.push_back("metadata.namespace");
  }
  auto fields = version.find("selectableFields");
  const json::json_pointer schema_at("/schema/openAPIV3Schema");
  if (fields == version.end() || !fields->is_array() || !version.contains(schema_at)) {
    return out;
  }
  auto schema = CrdSchema::parse(version.at(schema_at));
  if (!schema) {
    return out;
  }
  for (const auto& f : *fields) {
    auto it = f.is_object() ? f.find("jsonPath") : f.end();
    if (!f.is_object() || it == f.end() || !it->is_string()) {
      continue;
    }
    const std::string json_path = it->get<std::string>();
    auto resolved = resolve_field_path(*schema, json_path, false);
    if (!resolved) {
      continue;  // refused when the CRD was written
    }
    // Without array notation the label (the path without its leading dot) is the dotted path the
    // field selector reads.
    out.labels.push_back(json_path.substr(json_path.front() == '.' ? 1 : 0));
  }
  return out;
}

}  // namespace apiserver::registry
