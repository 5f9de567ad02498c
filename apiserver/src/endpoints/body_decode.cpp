#include "endpoints/body_decode.h"

#include <algorithm>
#include <map>

#include "endpoints/go_json_syntax.h"
#include "endpoints/status.h"
#include "endpoints/yaml_json.h"
#include "protobuf/decode.h"
#include "registry/go_text.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// The scheme every built-in kind is registered in, as its errors name it.
constexpr const char* kLegacyScheme = "pkg/api/legacyscheme/scheme.go:30";

// How reflect prints the anonymous struct the serializer reads apiVersion and kind into.
constexpr const char* kTypeMetaStruct =
    "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
    "\"json:\\\"kind,omitempty\\\"\" }";

// A JSON string's body from `i` (just after the opening quote) to its closing quote, copied to
// `out` with invalid UTF-8 and unpaired surrogate escapes replaced by U+FFFD. Returns the index
// of the closing quote. The text already passed the syntax check.
size_t repair_string(std::string_view text, size_t i, std::string& out) {
  auto hex4 = [&](size_t at) {
    unsigned value = 0;
    for (size_t k = at; k < at + 4; ++k) {
      const char c = text[k];
      value = value * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return value;
  };
  while (text[i] != '"') {
    if (text[i] == '\\') {
      if (text[i + 1] != 'u') {
        out.append(text.substr(i, 2));
        i += 2;
        continue;
      }
      const unsigned unit = hex4(i + 2);
      const bool high = unit >= 0xD800 && unit <= 0xDBFF;
      const bool low = unit >= 0xDC00 && unit <= 0xDFFF;
      if (high && i + 11 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u') {
        const unsigned next = hex4(i + 8);
        if (next >= 0xDC00 && next <= 0xDFFF) {
          out.append(text.substr(i, 12));
          i += 12;
          continue;
        }
      }
      if (high || low) {
        out += "\\ufffd";
      } else {
        out.append(text.substr(i, 6));
      }
      i += 6;
      continue;
    }
    size_t width = 1;
    const char32_t rune = registry::decode_rune(text, i, width);
    if (rune == 0xFFFD && width == 1) {
      registry::append_utf8(out, 0xFFFD);
    } else {
      out.append(text.substr(i, width));
    }
    i += width;
  }
  return i;
}

// The text with every string repaired (see repair_string); structure is copied as is.
std::string repaired(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      out += '"';
      i = repair_string(text, i + 1, out);
    }
    out += text[i];
  }
  return out;
}

// Go's package name of the internal (hub) types of a group: what a conversion error names.
std::string internal_package(const std::string& group) {
  static const std::map<std::string, std::string> kPackages = {
      {"", "core"},
      {"events.k8s.io", "core"},
      {"internal.apiserver.k8s.io", "apiserverinternal"},
  };
  if (auto it = kPackages.find(group); it != kPackages.end()) {
    return it->second;
  }
  return group.substr(0, group.find('.'));
}

// The body's group/version/kind completed from the endpoint's, as the serializer does.
void default_gvk(GroupVersionKind& actual, const registry::Resource& r) {
  if (actual.kind.empty()) {
    actual.kind = r.kind;
  }
  if (actual.version.empty() && actual.group.empty()) {
    actual.group = r.group;
    actual.version = r.version;
  }
  if (actual.version.empty() && actual.group == r.group) {
    actual.version = r.version;
  }
}

}  // namespace

common::Result<json> parse_client_json(std::string_view text) {
  if (auto error = go_json_syntax_error(text)) {
    return std::move(*error);
  }
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded()) {
    value = json::parse(repaired(text), nullptr, false);
  }
  if (value.is_discarded()) {
    // Valid for Go but not for the parser: a number beyond a double's range.
    return std::string("json: cannot unmarshal number into Go value of type float64");
  }
  return value;
}

std::string summarize_body(std::string_view body) {
  constexpr size_t kMax = 30;
  if (body.empty()) {
    return "<empty>";
  }
  std::string_view head = body.substr(0, kMax);
  std::string out;
  if (body.front() == '{') {
    out = std::string(head);
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : head) {
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return body.size() > kMax ? out + " ..." : out;
}

std::optional<std::string> read_type_meta(const json& document, std::string& api_version,
                                          std::string& kind) {
  api_version.clear();
  kind.clear();
  if (document.is_null()) {
    return std::nullopt;
  }
  if (!document.is_object()) {
    return "json: cannot unmarshal " + registry::go_json_kind(document) +
           " into Go value of type " + kTypeMetaStruct;
  }
  for (const auto& [field, target] :
       {std::pair<const char*, std::string*>{"apiVersion", &api_version}, {"kind", &kind}}) {
    auto it = document.find(field);
    if (it == document.end() || it->is_null()) {
      continue;
    }
    if (!it->is_string()) {
      return "json: cannot unmarshal " + registry::go_json_kind(*it) + " into Go struct field ." +
             field + " of type string";
    }
    *target = it->get<std::string>();
  }
  return std::nullopt;
}

errors::Status unsupported_body_type() {
  return errors::failure(
      415, "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: "
      "application/json, application/yaml, application/vnd.kubernetes.protobuf");
}

std::string media_type(const std::string& value) {
  std::string type = value.substr(0, value.find(';'));
  type.erase(0, type.find_first_not_of(" \t"));
  type.erase(type.find_last_not_of(" \t") + 1);
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type;
}

errors::Result<json> decode_object_body(const http::Request& request, const registry::Resource& r,
                                        const registry::FieldValidator& validator) {
  const std::string type = media_type(request.header("Content-Type"));
  auto unrecognized = [&](const std::string& why) {
    return errors::bad_request("the object provided is unrecognized (must be of type " + r.kind +
                               "): " + why + " (" + summarize_body(request.body) + ")");
  };
  json body;
  std::string text;  // the JSON the serializer reads (YAML bodies are converted first)
  if (type == "application/yaml") {
    auto parsed = yaml_to_json(request.body);
    if (!parsed) {
      return errors::bad_request(parsed.error());
    }
    body = std::move(*parsed);
    text = body.dump();
  } else if (type.empty() || type == "application/json") {
    auto parsed = parse_client_json(request.body);
    if (!parsed) {
      return unrecognized("couldn't get version/kind; json parse error: " + parsed.error());
    }
    body = std::move(*parsed);
  } else if (type == "application/vnd.kubernetes.protobuf") {
    auto decoded = protobuf::decode_k8s_protobuf(request.body);
    if (!decoded) {
      return errors::bad_request(decoded.error());
    }
    body = std::move(*decoded);
    text = body.dump();
  } else {
    return unsupported_body_type();
  }
  std::string api_version;
  std::string kind;
  if (auto error = read_type_meta(body, api_version, kind)) {
    return unrecognized("couldn't get version/kind; json parse error: " + *error);
  }
  auto actual = parse_group_version(api_version);
  if (!actual) {
    return unrecognized("unexpected GroupVersion string: " + api_version);
  }
  actual->kind = kind;
  default_gvk(*actual, r);
  auto cannot_handle = [&](const std::string& why) {
    return errors::bad_request(actual->kind + " in version \"" + actual->version +
                               "\" cannot be handled as a " + r.kind + ": " + why);
  };
  if (body.is_null()) {
    body = json::object();  // Go decodes null into an empty object
  }
  const bool same =
      actual->group == r.group && actual->version == r.version && actual->kind == r.kind;
  if (!same && r.custom) {
    // Custom resources are decoded as unstructured objects: only the version is checked here, and
    // a body of another kind keeps its kind for validation to refuse (custom_type_meta_errors).
  } else if (!same) {
    if (actual->version.empty()) {
      return cannot_handle("Object 'apiVersion' is missing in '" + request.body + "'");
    }
    if (!validator.knows(actual->group, actual->version, actual->kind)) {
      return cannot_handle("no kind \"" + actual->kind + "\" is registered for version \"" +
                           actual->group_version() + "\" in scheme \"" + kLegacyScheme + "\"");
    }
    // The body is decoded as the kind it names, then converted to the endpoint's.
    auto report = validator.inspect(actual->group, actual->version, actual->kind,
                                    text.empty() ? std::string_view(request.body) : text);
    if (report.decode_error) {
      return cannot_handle(report.decode_error->message);
    }
    const std::string hub = internal_package(r.group);
    if (actual->kind != r.kind || internal_package(actual->group) != hub) {
      return cannot_handle("converting (" + actual->version + "." + actual->kind + ") to (" + hub +
                           "." + r.kind + "): unknown conversion");
    }
  }
  if (actual->group != r.group || actual->version != r.version) {
    return errors::bad_request("the API version in the data (" + actual->group_version() +
                               ") does not match the expected API version (" + r.group_version() +
                               ")");
  }
  if (auto meta = body.find("metadata");
      !r.custom && meta != body.end() && !meta->is_null() && !meta->is_object()) {
    return cannot_handle("json: cannot unmarshal " + registry::go_json_kind(*meta) +
                         " into Go struct field " + r.kind + ".metadata of type v1.ObjectMeta");
  }
  body["kind"] = r.custom ? actual->kind : r.kind;
  body["apiVersion"] = r.group_version();
  if (!body.contains("metadata") || !body["metadata"].is_object()) {
    body["metadata"] = json::object();
  }
  return body;
}

std::optional<std::string> json_patch_shape_error(const nlohmann::json& patch) {
  auto cannot = [](const nlohmann::json& value, const std::string& type) {
    return "json: cannot unmarshal " + registry::go_json_kind(value) + " into Go " + type;
  };
  if (patch.is_null()) {
    return std::nullopt;
  }
  if (!patch.is_array()) {
    return cannot(patch, "value of type []handlers.jsonPatchOp");
  }
  // Go's decoder reports the first type error of the whole value, struct fields included.
  for (const auto& op : patch) {
    if (op.is_null()) {
      continue;
    }
    if (!op.is_object()) {
      return cannot(op, "value of type handlers.jsonPatchOp");
    }
    for (const char* field : {"op", "path", "from"}) {
      auto it = op.find(field);
      if (it != op.end() && !it->is_null() && !it->is_string()) {
        return cannot(*it, std::string("struct field jsonPatchOp.") + field + " of type string");
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> merge_patch_shape_error(const nlohmann::json& patch) {
  if (patch.is_null() || patch.is_object()) {
    return std::nullopt;
  }
  return "json: cannot unmarshal " + registry::go_json_kind(patch) +
         " into Go value of type map[string]interface {}";
}

}  // namespace apiserver::endpoints
