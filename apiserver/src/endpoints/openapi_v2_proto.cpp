#include "endpoints/openapi_v2_proto.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// ---- protobuf wire writing ----

enum class Wire : std::uint32_t { Varint = 0, Fixed64 = 1, Bytes = 2 };

class Writer {
 public:
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  void tag(std::uint32_t field, Wire wire) {
    varint((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint32_t>(wire));
  }
  // Always written: elements of repeated fields, whose empty values Go still marshals.
  void bytes(std::uint32_t field, std::string_view s) {
    tag(field, Wire::Bytes);
    varint(s.size());
    out_.append(s);
  }
  void fixed64(std::uint32_t field, std::uint64_t bits) {
    tag(field, Wire::Fixed64);
    for (int i = 0; i < 8; ++i) {
      out_ += static_cast<char>((bits >> (8 * i)) & 0xff);
    }
  }

  // A nested message: begin() writes the tag and returns where the body starts; end() puts the
  // body's length in front of it. The body moves once per level, and documents are shallow.
  std::size_t begin(std::uint32_t field) {
    tag(field, Wire::Bytes);
    return out_.size();
  }
  void end(std::size_t start) {
    std::uint64_t n = out_.size() - start;
    char buf[10];
    std::size_t len = 0;
    do {
      buf[len++] = static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      n >>= 7;
    } while (n != 0);
    out_.insert(start, buf, len);
  }

  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// ---- the messages of OpenAPIv2.proto that a document can reach ----

enum class Msg {
  // plain messages: fixed JSON keys, listed in kPlain below
  Document,
  Info,
  Contact,
  License,
  ExternalDocs,
  Tag,
  PathItem,
  Operation,
  BodyParameter,
  HeaderParameter,
  FormDataParameter,
  QueryParameter,
  PathParameter,
  PrimitivesItems,
  Header,
  Response,
  Schema,
  FileSchema,
  Xml,
  JsonReference,
  BasicAuthentication,
  ApiKey,
  Oauth2Implicit,
  Oauth2Password,
  Oauth2Application,
  Oauth2AccessCode,
  // JSON objects as repeated (name = 1, value = 2) pairs in field 1; value type in kMaps below
  Definitions,
  Properties,
  ParameterDefinitions,
  ResponseDefinitions,
  SecurityDefinitions,
  Headers,
  Examples,
  Oauth2Scopes,
  SecurityRequirement,
  // shapes of their own
  Paths,
  Responses,
  ParametersItem,
  Parameter,
  ResponseValue,
  SchemaItem,
  SecurityDefinitionsItem,
  AdditionalPropertiesItem,
  TypeItem,
  ItemsItem,
  StringArray,
  Any,
  String,  // not a message: a string value in a (name, value) pair
};

enum class Kind { String, Bool, Int64, Double, Strings, Any, Anys, Message, Messages };

struct Field {
  std::string_view key;
  std::uint32_t number;
  Kind kind;
  Msg type = Msg::Any;  // Message and Messages only
};

struct Plain {
  Msg msg;
  std::uint32_t extensions;  // field number of vendor_extension; 0: the message has none
  std::vector<Field> fields;
};

// The validation keywords shared by non-body parameters, PrimitivesItems and Header, numbered
// consecutively from `first` in every one of those messages.
std::vector<Field> with_primitive_fields(std::vector<Field> fields, std::uint32_t first) {
  const std::initializer_list<std::pair<std::string_view, Kind>> keys = {
      {"type", Kind::String},           {"format", Kind::String},
      {"items", Kind::Message},         {"collectionFormat", Kind::String},
      {"default", Kind::Any},           {"maximum", Kind::Double},
      {"exclusiveMaximum", Kind::Bool}, {"minimum", Kind::Double},
      {"exclusiveMinimum", Kind::Bool}, {"maxLength", Kind::Int64},
      {"minLength", Kind::Int64},       {"pattern", Kind::String},
      {"maxItems", Kind::Int64},        {"minItems", Kind::Int64},
      {"uniqueItems", Kind::Bool},      {"enum", Kind::Anys},
      {"multipleOf", Kind::Double}};
  std::uint32_t number = first;
  for (const auto& [key, kind] : keys) {
    fields.push_back(
        {key, number++, kind, kind == Kind::Message ? Msg::PrimitivesItems : Msg::Any});
  }
  return fields;
}

std::vector<Plain> plain_messages() {
  using K = Kind;
  const std::vector<Field> non_body_head = {{"required", 1, K::Bool},
                                            {"in", 2, K::String},
                                            {"description", 3, K::String},
                                            {"name", 4, K::String}};
  std::vector<Field> query_head = non_body_head;
  query_head.push_back({"allowEmptyValue", 5, K::Bool});
  std::vector<Field> header = with_primitive_fields({}, 1);
  header.push_back({"description", 18, K::String});

  const Field oauth_type{"type", 1, K::String};
  const Field oauth_flow{"flow", 2, K::String};
  const Field oauth_scopes{"scopes", 3, K::Message, Msg::Oauth2Scopes};

  return {
      {Msg::Document,
       16,
       {{"swagger", 1, K::String},
        {"info", 2, K::Message, Msg::Info},
        {"host", 3, K::String},
        {"basePath", 4, K::String},
        {"schemes", 5, K::Strings},
        {"consumes", 6, K::Strings},
        {"produces", 7, K::Strings},
        {"paths", 8, K::Message, Msg::Paths},
        {"definitions", 9, K::Message, Msg::Definitions},
        {"parameters", 10, K::Message, Msg::ParameterDefinitions},
        {"responses", 11, K::Message, Msg::ResponseDefinitions},
        {"security", 12, K::Messages, Msg::SecurityRequirement},
        {"securityDefinitions", 13, K::Message, Msg::SecurityDefinitions},
        {"tags", 14, K::Messages, Msg::Tag},
        {"externalDocs", 15, K::Message, Msg::ExternalDocs}}},
      {Msg::Info,
       7,
       {{"title", 1, K::String},
        {"version", 2, K::String},
        {"description", 3, K::String},
        {"termsOfService", 4, K::String},
        {"contact", 5, K::Message, Msg::Contact},
        {"license", 6, K::Message, Msg::License}}},
      {Msg::Contact, 4, {{"name", 1, K::String}, {"url", 2, K::String}, {"email", 3, K::String}}},
      {Msg::License, 3, {{"name", 1, K::String}, {"url", 2, K::String}}},
      {Msg::ExternalDocs, 3, {{"description", 1, K::String}, {"url", 2, K::String}}},
      {Msg::Tag,
       4,
       {{"name", 1, K::String},
        {"description", 2, K::String},
        {"externalDocs", 3, K::Message, Msg::ExternalDocs}}},
      {Msg::PathItem,
       10,
       {{"$ref", 1, K::String},
        {"get", 2, K::Message, Msg::Operation},
        {"put", 3, K::Message, Msg::Operation},
        {"post", 4, K::Message, Msg::Operation},
        {"delete", 5, K::Message, Msg::Operation},
        {"options", 6, K::Message, Msg::Operation},
        {"head", 7, K::Message, Msg::Operation},
        {"patch", 8, K::Message, Msg::Operation},
        {"parameters", 9, K::Messages, Msg::ParametersItem}}},
      {Msg::Operation,
       13,
       {{"tags", 1, K::Strings},
        {"summary", 2, K::String},
        {"description", 3, K::String},
        {"externalDocs", 4, K::Message, Msg::ExternalDocs},
        {"operationId", 5, K::String},
        {"produces", 6, K::Strings},
        {"consumes", 7, K::Strings},
        {"parameters", 8, K::Messages, Msg::ParametersItem},
        {"responses", 9, K::Message, Msg::Responses},
        {"schemes", 10, K::Strings},
        {"deprecated", 11, K::Bool},
        {"security", 12, K::Messages, Msg::SecurityRequirement}}},
      {Msg::BodyParameter,
       6,
       {{"description", 1, K::String},
        {"name", 2, K::String},
        {"in", 3, K::String},
        {"required", 4, K::Bool},
        {"schema", 5, K::Message, Msg::Schema}}},
      {Msg::HeaderParameter, 22, with_primitive_fields(non_body_head, 5)},
      {Msg::PathParameter, 22, with_primitive_fields(non_body_head, 5)},
      {Msg::QueryParameter, 23, with_primitive_fields(query_head, 6)},
      {Msg::FormDataParameter, 23, with_primitive_fields(query_head, 6)},
      {Msg::PrimitivesItems, 18, with_primitive_fields({}, 1)},
      {Msg::Header, 19, header},
      {Msg::Response,
       5,
       {{"description", 1, K::String},
        {"schema", 2, K::Message, Msg::SchemaItem},
        {"headers", 3, K::Message, Msg::Headers},
        {"examples", 4, K::Message, Msg::Examples}}},
      {Msg::Schema,
       31,
       {{"$ref", 1, K::String},
        {"format", 2, K::String},
        {"title", 3, K::String},
        {"description", 4, K::String},
        {"default", 5, K::Any},
        {"multipleOf", 6, K::Double},
        {"maximum", 7, K::Double},
        {"exclusiveMaximum", 8, K::Bool},
        {"minimum", 9, K::Double},
        {"exclusiveMinimum", 10, K::Bool},
        {"maxLength", 11, K::Int64},
        {"minLength", 12, K::Int64},
        {"pattern", 13, K::String},
        {"maxItems", 14, K::Int64},
        {"minItems", 15, K::Int64},
        {"uniqueItems", 16, K::Bool},
        {"maxProperties", 17, K::Int64},
        {"minProperties", 18, K::Int64},
        {"required", 19, K::Strings},
        {"enum", 20, K::Anys},
        {"additionalProperties", 21, K::Message, Msg::AdditionalPropertiesItem},
        {"type", 22, K::Message, Msg::TypeItem},
        {"items", 23, K::Message, Msg::ItemsItem},
        {"allOf", 24, K::Messages, Msg::Schema},
        {"properties", 25, K::Message, Msg::Properties},
        {"discriminator", 26, K::String},
        {"readOnly", 27, K::Bool},
        {"xml", 28, K::Message, Msg::Xml},
        {"externalDocs", 29, K::Message, Msg::ExternalDocs},
        {"example", 30, K::Any}}},
      {Msg::FileSchema,
       10,
       {{"format", 1, K::String},
        {"title", 2, K::String},
        {"description", 3, K::String},
        {"default", 4, K::Any},
        {"required", 5, K::Strings},
        {"type", 6, K::String},
        {"readOnly", 7, K::Bool},
        {"externalDocs", 8, K::Message, Msg::ExternalDocs},
        {"example", 9, K::Any}}},
      {Msg::Xml,
       6,
       {{"name", 1, K::String},
        {"namespace", 2, K::String},
        {"prefix", 3, K::String},
        {"attribute", 4, K::Bool},
        {"wrapped", 5, K::Bool}}},
      {Msg::JsonReference, 0, {{"$ref", 1, K::String}, {"description", 2, K::String}}},
      {Msg::BasicAuthentication, 3, {{"type", 1, K::String}, {"description", 2, K::String}}},
      {Msg::ApiKey,
       5,
       {{"type", 1, K::String},
        {"name", 2, K::String},
        {"in", 3, K::String},
        {"description", 4, K::String}}},
      {Msg::Oauth2Implicit,
       6,
       {oauth_type,
        oauth_flow,
        oauth_scopes,
        {"authorizationUrl", 4, K::String},
        {"description", 5, K::String}}},
      {Msg::Oauth2Password,
       6,
       {oauth_type,
        oauth_flow,
        oauth_scopes,
        {"tokenUrl", 4, K::String},
        {"description", 5, K::String}}},
      {Msg::Oauth2Application,
       6,
       {oauth_type,
        oauth_flow,
        oauth_scopes,
        {"tokenUrl", 4, K::String},
        {"description", 5, K::String}}},
      {Msg::Oauth2AccessCode,
       7,
       {oauth_type,
        oauth_flow,
        oauth_scopes,
        {"authorizationUrl", 4, K::String},
        {"tokenUrl", 5, K::String},
        {"description", 6, K::String}}},
  };
}

const Plain* find_plain(Msg msg) {
  static const std::vector<Plain> kPlain = plain_messages();
  for (const auto& p : kPlain) {
    if (p.msg == msg) {
      return &p;
    }
  }
  return nullptr;
}

// The value type of each (name, value) map message.
bool map_value(Msg msg, Msg& value) {
  switch (msg) {
    case Msg::Definitions:
    case Msg::Properties:
      value = Msg::Schema;
      return true;
    case Msg::ParameterDefinitions:
      value = Msg::Parameter;
      return true;
    case Msg::ResponseDefinitions:
      value = Msg::Response;
      return true;
    case Msg::SecurityDefinitions:
      value = Msg::SecurityDefinitionsItem;
      return true;
    case Msg::Headers:
      value = Msg::Header;
      return true;
    case Msg::Examples:
      value = Msg::Any;
      return true;
    case Msg::Oauth2Scopes:
      value = Msg::String;
      return true;
    case Msg::SecurityRequirement:
      value = Msg::StringArray;
      return true;
    default:
      return false;
  }
}

const std::string& string_at(const json& object, const char* key) {
  static const std::string kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

// A branch of a oneof: the field number and its message; number 0 when nothing fits.
struct Choice {
  std::uint32_t number = 0;
  Msg msg = Msg::Any;
};

// Parameter.body_parameter = 1 for "in": "body"; otherwise the NonBodyParameter branch.
Choice parameter_choice(const std::string& in) {
  if (in == "body") {
    return {1, Msg::BodyParameter};
  }
  if (in == "header") {
    return {1, Msg::HeaderParameter};
  }
  if (in == "formData") {
    return {2, Msg::FormDataParameter};
  }
  if (in == "query") {
    return {3, Msg::QueryParameter};
  }
  if (in == "path") {
    return {4, Msg::PathParameter};
  }
  return {};
}

Choice security_choice(const std::string& type, const std::string& flow) {
  if (type == "basic") {
    return {1, Msg::BasicAuthentication};
  }
  if (type == "apiKey") {
    return {2, Msg::ApiKey};
  }
  if (type == "oauth2") {
    if (flow == "implicit") {
      return {3, Msg::Oauth2Implicit};
    }
    if (flow == "password") {
      return {4, Msg::Oauth2Password};
    }
    if (flow == "application") {
      return {5, Msg::Oauth2Application};
    }
    if (flow == "accessCode") {
      return {6, Msg::Oauth2AccessCode};
    }
  }
  return {};
}

// ---- Any: the value as YAML text ----

// Whether a string reads back as the same string when written as a plain YAML scalar, under
// YAML 1.1 (yaml.v2, which client-go's readers use) and 1.2 alike. Deliberately narrow: a
// letter, then letters, digits and "-._/", and none of the words 1.1 reads as bool or null.
bool plain_scalar(const std::string& s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s.front()))) {
    return false;
  }
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '-' && c != '.' && c != '_' && c != '/') {
      return false;
    }
  }
  if (s.size() > 5) {
    return true;
  }
  std::string lower;
  for (char c : s) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const char* word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}) {
    if (lower == word) {
      return false;
    }
  }
  return true;
}

std::string yaml_text(const json& value) {
  if (value.is_string() && plain_scalar(value.get_ref<const std::string&>())) {
    return value.get_ref<const std::string&>() + "\n";
  }
  // JSON is YAML: objects and arrays as flow collections, strings double-quoted. Invalid UTF-8
  // (never in our documents) is replaced rather than thrown on.
  return value.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

// ---- the encoder ----

class Encoder {
 public:
  std::string run(const json& document) {
    if (document.is_object()) {
      body(Msg::Document, document, 0);
    }
    return w_.take();
  }

 private:
  // The fields of `msg` for `value` (already checked to suit it), without tag or length.
  void body(Msg msg, const json& value, int depth) {
    if (const Plain* plain = find_plain(msg)) {
      return plain_body(*plain, value, depth);
    }
    Msg value_type;
    if (map_value(msg, value_type)) {
      for (const auto& [name, v] : value.items()) {
        named(1, name, value_type, v, depth);
      }
      return;
    }
    switch (msg) {
      case Msg::Paths:
        for (const auto& [name, v] : value.items()) {
          if (is_extension(name)) {
            named(1, name, Msg::Any, v, depth);
          } else if (!name.empty() && name.front() == '/') {
            named(2, name, Msg::PathItem, v, depth);
          }
        }
        return;
      case Msg::Responses:
        for (const auto& [name, v] : value.items()) {
          if (is_extension(name)) {
            named(2, name, Msg::Any, v, depth);
          } else if (is_response_code(name)) {
            named(1, name, Msg::ResponseValue, v, depth);
          }
        }
        return;
      case Msg::TypeItem:
      case Msg::StringArray:
        if (value.is_string()) {
          w_.bytes(1, value.get_ref<const std::string&>());
        } else {
          strings(1, value);
        }
        return;
      case Msg::ItemsItem:
        if (value.is_object()) {
          message(1, Msg::Schema, value, depth);
        } else {
          for (const auto& item : value) {
            message(1, Msg::Schema, item, depth);
          }
        }
        return;
      case Msg::Any:
        w_.bytes(2, yaml_text(value));
        return;
      default:
        return oneof_body(msg, value, depth);
    }
  }

  // The oneof wrappers: one field, chosen by the value's shape (suits() has checked that one
  // fits).
  void oneof_body(Msg msg, const json& value, int depth) {
    switch (msg) {
      case Msg::ParametersItem:
        return value.contains("$ref") ? message(2, Msg::JsonReference, value, depth)
                                      : message(1, Msg::Parameter, value, depth);
      case Msg::Parameter: {
        const Choice c = parameter_choice(string_at(value, "in"));
        if (c.msg == Msg::BodyParameter) {
          return message(1, Msg::BodyParameter, value, depth);
        }
        // NonBodyParameter = 2, holding the sub-schema for "in" in its own oneof.
        const std::size_t start = w_.begin(2);
        message(c.number, c.msg, value, depth + 1);
        return w_.end(start);
      }
      case Msg::ResponseValue:
        return value.contains("$ref") ? message(2, Msg::JsonReference, value, depth)
                                      : message(1, Msg::Response, value, depth);
      case Msg::SchemaItem:
        return string_at(value, "type") == "file" ? message(2, Msg::FileSchema, value, depth)
                                                  : message(1, Msg::Schema, value, depth);
      case Msg::AdditionalPropertiesItem:
        if (value.is_boolean()) {
          w_.tag(2, Wire::Varint);
          w_.varint(value.get<bool>() ? 1 : 0);
          return;
        }
        return message(1, Msg::Schema, value, depth);
      case Msg::SecurityDefinitionsItem: {
        const Choice c = security_choice(string_at(value, "type"), string_at(value, "flow"));
        return message(c.number, c.msg, value, depth);
      }
      default:
        return;
    }
  }

  void plain_body(const Plain& plain, const json& value, int depth) {
    for (const Field& f : plain.fields) {
      auto it = value.find(f.key);
      if (it != value.end()) {
        field(f, *it, depth);
      }
    }
    if (plain.extensions != 0) {
      for (const auto& [name, v] : value.items()) {
        if (is_extension(name)) {
          named(plain.extensions, name, Msg::Any, v, depth);
        }
      }
    }
  }

  void field(const Field& f, const json& v, int depth) {
    switch (f.kind) {
      case Kind::String:
        if (v.is_string() && !v.get_ref<const std::string&>().empty()) {
          w_.bytes(f.number, v.get_ref<const std::string&>());
        }
        return;
      case Kind::Bool:
        if (v.is_boolean() && v.get<bool>()) {
          w_.tag(f.number, Wire::Varint);
          w_.varint(1);
        }
        return;
      case Kind::Int64:
        if (v.is_number_integer() && v.get<std::int64_t>() != 0) {
          w_.tag(f.number, Wire::Varint);
          w_.varint(static_cast<std::uint64_t>(v.get<std::int64_t>()));
        }
        return;
      case Kind::Double:
        if (v.is_number()) {
          double d = v.get<double>();
          std::uint64_t bits;
          std::memcpy(&bits, &d, sizeof bits);
          if (bits != 0) {
            w_.fixed64(f.number, bits);
          }
        }
        return;
      case Kind::Strings:
        return strings(f.number, v);
      case Kind::Any:
        return message(f.number, Msg::Any, v, depth);
      case Kind::Anys:
        if (v.is_array()) {
          for (const auto& item : v) {
            message(f.number, Msg::Any, item, depth);
          }
        }
        return;
      case Kind::Message:
        return message(f.number, f.type, v, depth);
      case Kind::Messages:
        if (v.is_array()) {
          for (const auto& item : v) {
            message(f.number, f.type, item, depth);
          }
        }
        return;
    }
  }

  void strings(std::uint32_t number, const json& v) {
    if (!v.is_array()) {
      return;
    }
    for (const auto& item : v) {
      if (item.is_string()) {
        w_.bytes(number, item.get_ref<const std::string&>());
      }
    }
  }

  // Field `number` holding message `msg` made from `value`, when the value has the JSON type the
  // message is made from.
  void message(std::uint32_t number, Msg msg, const json& value, int depth) {
    if (!suits(msg, value) || depth >= kMaxOpenApiV2Depth) {
      return;
    }
    const std::size_t start = w_.begin(number);
    body(msg, value, depth + 1);
    w_.end(start);
  }

  // A (name = 1, value = 2) pair in field `number`; the pair is left out with its value.
  void named(std::uint32_t number, const std::string& name, Msg value_type, const json& value,
             int depth) {
    if (!suits(value_type, value) || depth + 1 >= kMaxOpenApiV2Depth) {
      return;
    }
    const std::size_t start = w_.begin(number);
    w_.bytes(1, name);
    if (value_type == Msg::String) {
      const std::string& s = value.get_ref<const std::string&>();
      if (!s.empty()) {
        w_.bytes(2, s);
      }
    } else {
      message(2, value_type, value, depth + 1);
    }
    w_.end(start);
  }

  static bool suits(Msg msg, const json& value) {
    switch (msg) {
      case Msg::Any:
        return true;
      case Msg::String:
        return value.is_string();
      case Msg::TypeItem:
        return value.is_string() || value.is_array();
      case Msg::ItemsItem:
        return value.is_object() || value.is_array();
      case Msg::StringArray:
        return value.is_array();
      case Msg::AdditionalPropertiesItem:
        return value.is_object() || value.is_boolean();
      case Msg::ParametersItem:
        return value.is_object() &&
               (value.contains("$ref") || parameter_choice(string_at(value, "in")).number != 0);
      case Msg::Parameter:
        return value.is_object() && parameter_choice(string_at(value, "in")).number != 0;
      case Msg::SecurityDefinitionsItem:
        return value.is_object() &&
               security_choice(string_at(value, "type"), string_at(value, "flow")).number != 0;
      default:
        return value.is_object();
    }
  }

  static bool is_extension(const std::string& key) { return key.rfind("x-", 0) == 0; }

  static bool is_response_code(const std::string& key) {
    if (key == "default") {
      return true;
    }
    return key.size() == 3 && std::isdigit(static_cast<unsigned char>(key[0])) &&
           std::isdigit(static_cast<unsigned char>(key[1])) &&
           std::isdigit(static_cast<unsigned char>(key[2]));
  }

  Writer w_;
};

}  // namespace

std::string encode_openapi_v2(const json& document) {
  return Encoder().run(document);
}

}  // namespace apiserver::endpoints
