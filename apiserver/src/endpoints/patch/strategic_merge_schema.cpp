// Patch metadata as upstream's PatchMetaFromStruct reads it from a kind's Go struct, here from
// the OpenAPI facts: the Go type of a field, its patch strategies and merge key.
#include "endpoints/patch/strategic_merge_internal.h"

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "registry/go_text.h"

namespace apiserver::endpoints::patch::strategic_merge_detail {
namespace {

bool ascii_equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> split_strategies(const json* extension) {
  std::vector<std::string> out;
  if (extension == nullptr || !extension->is_string()) {
    return out;
  }
  const std::string& s = extension->get_ref<const std::string&>();
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) {
      return out;
    }
    start = comma + 1;
  }
}

// extractRetainKeysPatchStrategy: the strategy other than retainKeys.
}  // namespace

std::string name_of(const json* node) {
  if (node == nullptr || !node->is_object()) {
    return "";
  }
  if (auto ref = node->find("$ref"); ref != node->end() && ref->is_string()) {
    const std::string& s = ref->get_ref<const std::string&>();
    return s.substr(s.rfind('.') + 1);
  }
  if (auto gvk = node->find("x-kubernetes-group-version-kind");
      gvk != node->end() && gvk->is_array() && !gvk->empty() && (*gvk)[0].is_object()) {
    return (*gvk)[0].value("kind", std::string());
  }
  return "";
}

std::variant<std::string, SmpError> patch_strategy(const PatchMeta& meta) {
  const auto& s = meta.strategies;
  switch (s.size()) {
    case 0:
      return std::string();
    case 1:
      return s[0] == kRetainKeysStrategy ? std::string() : s[0];
    case 2:
      if (s[0] == kRetainKeysStrategy) {
        return s[1];
      }
      if (s[1] == kRetainKeysStrategy) {
        return s[0];
      }
      break;
    default:
      break;
  }
  std::string list = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    list += (i == 0 ? "" : " ") + s[i];
  }
  return internal("unexpected patch strategy: " + list + "]");
}

// ---- Schema lookups (forkedjson.LookupPatchMetadataForStruct and PatchMetaFromStruct) ----

SchemaKind Merger::classify(const GoSchema& s) const {
  const json* r = index_.resolve(s.node);
  if (r == nullptr || !r->is_object()) {
    return SchemaKind::Unknown;
  }
  if (r->contains("properties")) {
    return SchemaKind::Struct;
  }
  if (auto ap = r->find("additionalProperties"); ap != r->end() && ap->is_object()) {
    return SchemaKind::Map;
  }
  std::string type = index_.type(s.node);
  if (type == "array") {
    return SchemaKind::Slice;
  }
  if (type == "object" || type.empty()) {
    // A named definition without fields is a Go struct whose fields are all hidden from JSON
    // (RawExtension, FieldsV1, apiextensions JSON): every lookup in it fails.
    return s.node->contains("$ref") ? SchemaKind::OpaqueStruct : SchemaKind::Unknown;
  }
  return SchemaKind::Scalar;
}

// reflect.Kind.String() of the Go type, for "cannot merge lists without merge key for %s".
std::string Merger::kind_name(const GoSchema& s) const {
  switch (classify(s)) {
    case SchemaKind::Struct:
    case SchemaKind::OpaqueStruct:
      return "struct";
    case SchemaKind::Map:
      return "map";
    case SchemaKind::Slice:
      return "slice";
    case SchemaKind::Unknown:
      return "interface";
    case SchemaKind::Scalar:
      break;
  }
  if (s.node->contains("$ref")) {
    return "struct";  // Quantity, Time, IntOrString
  }
  std::string type = index_.type(s.node);
  const json* r = index_.resolve(s.node);
  std::string format = r->value("format", std::string());
  if (type == "integer") {
    return format == "int32" ? "int32" : "int64";
  }
  if (type == "number") {
    return format == "float" ? "float32" : "float64";
  }
  if (type == "boolean") {
    return "bool";
  }
  return "string";
}

// The field `key` of struct or map `parent`. strict: a struct without that field is an error
// (upstream always); otherwise it is "nothing known" — used where upstream's original, a typed
// object, could not hold the key at all.
std::variant<Lookup, SmpError> Merger::lookup_struct(const GoSchema& parent, const std::string& key,
                                                     bool strict) const {
  SchemaKind kind = classify(parent);
  if (kind == SchemaKind::Map) {
    const json* value = index_.additional_properties(parent.node);
    return Lookup{GoSchema{value, name_of(value)}, {}};
  }
  if (kind != SchemaKind::Struct && kind != SchemaKind::OpaqueStruct) {
    return Lookup{};
  }
  const json* field = nullptr;
  if (kind == SchemaKind::Struct) {
    field = index_.property(parent.node, key);
    if (field == nullptr) {
      const json& properties = index_.resolve(parent.node)->at("properties");
      for (auto it = properties.begin(); properties.is_object() && it != properties.end(); ++it) {
        if (ascii_equal_fold(it.key(), key)) {
          field = &it.value();
          break;
        }
      }
    }
  }
  if (field == nullptr) {
    if (!strict && kind == SchemaKind::Struct) {
      return Lookup{};
    }
    return internal("unable to find api field in struct " + parent.name + " for the json field " +
                    registry::go_quote(key));
  }
  Lookup out{GoSchema{field, name_of(field)}, {}};
  out.meta.strategies = split_strategies(index_.extension(field, "x-kubernetes-patch-strategy"));
  if (const json* mk = index_.extension(field, "x-kubernetes-patch-merge-key");
      mk != nullptr && mk->is_string()) {
    out.meta.merge_key = mk->get<std::string>();
  }
  return out;
}

// PatchMetaFromStruct.LookupPatchMetadataForSlice: the field must be a slice; returns its
// element type.
std::variant<Lookup, SmpError> Merger::lookup_slice(const GoSchema& parent, const std::string& key,
                                                    bool strict) const {
  auto field = lookup_struct(parent, key, strict);
  if (std::holds_alternative<SmpError>(field)) {
    return field;
  }
  Lookup l = std::get<Lookup>(std::move(field));
  if (l.sub.node == nullptr) {
    return l;
  }
  if (classify(l.sub) != SchemaKind::Slice) {
    if (!strict) {
      return Lookup{};
    }
    return internal("expected slice or array type, but got: " +
                    std::string(classify(parent) == SchemaKind::Map ? "map" : "struct"));
  }
  const json* item = index_.items(l.sub.node);
  GoSchema elem{item, name_of(item)};
  if (item != nullptr && classify(elem) == SchemaKind::Slice) {
    return internal("unexpected slice of slice");
  }
  l.sub = elem;
  return l;
}

}  // namespace apiserver::endpoints::patch::strategic_merge_detail
