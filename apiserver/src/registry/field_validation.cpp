// Facts followed here (read upstream, release-1.32 line):
// - sigs.k8s.io/json strict decoding: unknown keys of a struct and repeated keys of a struct or map
//   are collected in decode order as `unknown field %q` / `duplicate field %q` of the field path;
//   identical messages once; at most 100. Values handled by their own UnmarshalJSON are opaque.
// - apimachinery's JSON serializer: for YAML bodies the strict YAML->JSON conversion's error
//   comes first, then the strict errors of decoding the (sorted, de-duplicated) converted JSON.
// - yaml.v2 strict mapping decode: `line %d: key %#v already set in map`, the line of the value.
// - apiserver handlers: transformDecodeError's `%s in version %q cannot be handled as a %s: %v`;
//   Warn splits the YAML error into one warning per line; the warning recorder's dedupe,
//   validity check and truncation (4096 / 256 runes); net.NewWarningHeader's quoting.
#include "registry/field_validation.h"

#include "registry/go_text.h"
#include "registry/go_values.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

// GCC 12 sees dangling pointers in yaml-cpp's inlined Node accessors that are not there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <nlohmann/json.hpp>

#include "apiserver/facts.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxStrictErrors = 100;         // sigs.k8s.io/json saveStrictError
constexpr std::size_t kWarningTotalRunes = 4 * 1024;  // apiserver warning recorder
constexpr std::size_t kWarningItemRunes = 256;

// Definitions that are empty Go structs: no properties in the schema, but decoded as structs, so
// every key is unknown (all other property-less object definitions have their own UnmarshalJSON).
const char* const kEmptyStructs[] = {
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceSubresourceStatus",
    "io.k8s.api.apiserverinternal.v1alpha1.StorageVersionSpec",
};


// ---------------------------------------------------------------------------------------------
// Schema graph

enum class NodeKind { Opaque, Scalar, Struct, Map, Array };

// What a Scalar node's Go type accepts, and how a mismatch is reported.
enum class ScalarType { String, Bytes, Int32, Int64, Float, Bool, Quantity, Time, MicroTime, IntOrString };

struct Node {
  NodeKind kind = NodeKind::Opaque;
  ScalarType scalar = ScalarType::String;
  std::string go_type;      // as Go prints the type: "v1.ObjectMeta", "[]v1.Container", "int32"
  std::string struct_name;  // Struct definitions: the Go type's name, "ObjectMeta"
  // Struct: property name -> (index, schema). Indices give duplicate detection a bitmap.
  std::unordered_map<std::string, std::pair<std::uint32_t, const Node*>> fields;
  const Node* elem = nullptr;  // Map values / Array items; nullptr = opaque
};

}  // namespace

struct FieldValidator::Index {
  std::vector<std::unique_ptr<Node>> nodes;
  std::unordered_map<std::string, Node*> definitions;
  std::unordered_map<std::string, const Node*> by_gvk;  // "group/version/Kind"
  Node opaque;

  static std::string gvk_key(const std::string& g, const std::string& v, const std::string& k) {
    return g + '/' + v + '/' + k;
  }

  Node* make() {
    nodes.push_back(std::make_unique<Node>());
    return nodes.back().get();
  }

  static bool flag(const json& schema, const char* name) {
    auto it = schema.find(name);
    return it != schema.end() && it->is_boolean() && it->get<bool>();
  }

  // Fills `node` from `schema`; inline sub-schemas get nodes of their own.
  void compile_into(Node& node, const json& schema) {
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
        node.go_type = "map[string]" +
                       (node.elem->go_type.empty() ? "interface {}" : node.elem->go_type);
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
            {ScalarType::String, "string"}, {ScalarType::Bytes, "[]uint8"},
            {ScalarType::Int32, "int32"},   {ScalarType::Int64, "int64"},
            {ScalarType::Float, "float64"}, {ScalarType::Bool, "bool"},
            {ScalarType::IntOrString, "intstr.IntOrString"}};
        node.go_type = kGoTypes.at(node.scalar);
      }
    } else {
      node.kind = NodeKind::Opaque;
    }
  }

  const Node* compile(const json& schema) {
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

  explicit Index(std::string_view text) {
    const json doc = json::parse(text);
    const json& defs = doc.at("definitions");
    // Every definition gets its node and Go type name first so that $ref (including cycles)
    // resolves to it: io.k8s.api.core.v1.Container is the Go type v1.Container.
    for (const auto& [name, schema] : defs.items()) {
      Node* node = make();
      const std::size_t last = name.rfind('.');
      const std::size_t package = last == std::string::npos ? std::string::npos
                                                            : name.rfind('.', last - 1);
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
};

namespace {

// ---------------------------------------------------------------------------------------------
// The walk: a SAX consumer that follows the schema and collects problems. Used directly on the
// raw text (document order, duplicates visible) and replayed from a parsed document for
// YAML-converted bodies (sorted keys).
//
// Decode errors follow encoding/json: a value of the wrong JSON type is skipped and the first
// such error is kept ("saved") while decoding goes on; an error from a type with its own decoder
// (Quantity, Time, IntOrString) ends the decode at once and wins over a saved one. The error
// context is the innermost Go struct and the JSON names of the struct fields from the top (map
// keys and list indices are not part of it): ConfigMap.data, Container.spec.containers.ports.

enum class Value { String, Integer, Float, Bool, Object, Array };

const char* go_word(Value value) {
  switch (value) {
    case Value::String:
      return "string";
    case Value::Integer:
    case Value::Float:
      return "number";
    case Value::Bool:
      return "bool";
    case Value::Object:
      return "object";
    case Value::Array:
      return "array";
  }
  return "value";
}

bool fits_integer(std::string_view text, ScalarType type) {
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return false;
  }
  return type != ScalarType::Int32 ||
         (n >= std::numeric_limits<std::int32_t>::min() &&
          n <= std::numeric_limits<std::int32_t>::max());
}

// structured-merge-diff's word for what a node accepts; empty for untyped scalars.
std::string smd_expected(const Node& node) {
  switch (node.kind) {
    case NodeKind::Struct:
    case NodeKind::Map:
      return "map";
    case NodeKind::Array:
      return "list";
    case NodeKind::Opaque:
      return "";
    case NodeKind::Scalar:
      break;
  }
  switch (node.scalar) {
    case ScalarType::String:
    case ScalarType::Bytes:
      return "string";
    case ScalarType::Int32:
    case ScalarType::Int64:
    case ScalarType::Float:
      return "numeric";
    case ScalarType::Bool:
      return "boolean";
    default:
      return "";
  }
}

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

class Walker final : public nlohmann::json_sax<json> {
 public:
  explicit Walker(const Node* root) : root_(root) {}

  std::vector<std::string> take() { return std::move(problems_); }
  std::optional<DecodeError> take_error() { return std::move(error_); }

  bool null() override {
    next_value_target();
    return true;
  }
  bool boolean(bool value) override { return scalar(Value::Bool, value ? "true" : "false"); }
  bool number_integer(number_integer_t value) override {
    return scalar(Value::Integer, std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return scalar(Value::Integer, std::to_string(value));
  }
  bool number_float(number_float_t, const string_t& raw) override {
    return scalar(Value::Float, raw);
  }
  bool string(string_t& value) override { return scalar(Value::String, value); }
  bool binary(binary_t&) override {
    next_value_target();
    return true;
  }

  bool start_object(std::size_t) override {
    const Node* target = next_value_target();
    if (target != nullptr && target->kind != NodeKind::Struct && target->kind != NodeKind::Map) {
      check_composite(*target, Value::Object);
      target = nullptr;
    }
    push(target, false);
    return true;
  }

  bool key(string_t& key) override {
    Frame& frame = frames_.back();
    frame.pending = nullptr;
    if (frame.node == nullptr) {
      return true;
    }
    frame.key = key;
    path_.resize(frame.base_len);
    fields_.resize(frame.fields_len);
    if (!path_.empty()) {
      path_ += '.';
    }
    path_ += key;
    if (frame.node->kind == NodeKind::Struct) {
      auto it = frame.node->fields.find(key);
      if (it == frame.node->fields.end()) {
        report("unknown field ");
        return true;
      }
      if (!fields_.empty()) {
        fields_ += '.';
      }
      fields_ += key;
      const std::uint32_t index = it->second.first;
      if (frame.seen_fields.size() <= index) {
        frame.seen_fields.resize(frame.node->fields.size(), false);
      }
      if (frame.seen_fields[index]) {
        report("duplicate field ");
      } else {
        frame.seen_fields[index] = true;
      }
      frame.pending = it->second.second;
    } else {  // Map
      if (!frame.seen_keys.insert(key).second) {
        report("duplicate field ");
      }
      frame.pending = frame.node->elem;
    }
    return true;
  }

  bool end_object() override {
    pop();
    return true;
  }

  bool start_array(std::size_t) override {
    const Node* target = next_value_target();
    if (target != nullptr && target->kind != NodeKind::Array) {
      // encoding/json fills a []byte from an array of numbers.
      if (!(target->kind == NodeKind::Scalar && target->scalar == ScalarType::Bytes)) {
        check_composite(*target, Value::Array);
      }
      target = nullptr;
    }
    push(target, true);
    return true;
  }

  bool end_array() override {
    pop();
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    failed_ = true;
    return false;
  }

  bool failed() const { return failed_; }

 private:
  struct Frame {
    const Node* node = nullptr;  // nullptr: not looked into
    bool is_array = false;
    std::size_t base_len = 0;
    std::size_t fields_len = 0;
    std::string_view struct_name;  // the innermost Go struct, for decode errors
    std::size_t next_index = 0;
    std::string key;                // the last key (objects)
    const Node* pending = nullptr;  // schema of the value after the last key
    std::vector<bool> seen_fields;
    std::unordered_set<std::string> seen_keys;
  };

  bool scalar(Value value, std::string_view text) {
    const Node* target = next_value_target();
    if (target == nullptr || fatal_) {
      return true;
    }
    if (target->kind != NodeKind::Scalar) {
      if (target->kind != NodeKind::Opaque) {
        mismatch(*target, go_word(value), target->go_type, false);
      }
      return true;
    }
    const bool number = value == Value::Integer || value == Value::Float;
    switch (target->scalar) {
      case ScalarType::String:
        if (value != Value::String) {
          mismatch(*target, go_word(value), target->go_type, false);
        }
        break;
      case ScalarType::Bytes:
        if (value != Value::String) {
          mismatch(*target, go_word(value), target->go_type, false);
        } else if (auto error = go_base64_error(text)) {
          fail(*target, std::move(*error), false);
        }
        break;
      case ScalarType::Int32:
      case ScalarType::Int64:
        if (number && !fits_integer(text, target->scalar)) {
          mismatch(*target, "number " + std::string(text), target->go_type, false);
        } else if (!number) {
          mismatch(*target, go_word(value), target->go_type, false);
        }
        break;
      case ScalarType::Float:
        if (!number) {
          mismatch(*target, go_word(value), target->go_type, false);
        }
        break;
      case ScalarType::Bool:
        if (value != Value::Bool) {
          mismatch(*target, go_word(value), target->go_type, false);
        }
        break;
      case ScalarType::Quantity:
        if (auto error = go_quantity_error(text)) {
          fail(*target, std::move(*error), true);
        }
        break;
      case ScalarType::Time:
      case ScalarType::MicroTime:
        if (value != Value::String) {
          mismatch(*target, go_word(value), "string", true);
        } else if (auto error = go_time_error(text, target->scalar == ScalarType::MicroTime)) {
          fail(*target, std::move(*error), true);
        }
        break;
      case ScalarType::IntOrString:
        if (number && !fits_integer(text, ScalarType::Int32)) {
          mismatch(*target, "number " + std::string(text), "int32", true);
        } else if (value == Value::Bool) {
          mismatch(*target, "bool", "int32", true);
        }
        break;
    }
    return true;
  }

  // An object or array where the node wants something else.
  void check_composite(const Node& target, Value value) {
    if (fatal_ || target.kind == NodeKind::Opaque) {
      return;
    }
    if (target.kind != NodeKind::Scalar) {
      mismatch(target, go_word(value), target.go_type, false);
      return;
    }
    switch (target.scalar) {
      case ScalarType::Quantity:
        fail(target, *go_quantity_error(value == Value::Object ? "{" : "["), true);
        break;
      case ScalarType::Time:
      case ScalarType::MicroTime:
        mismatch(target, go_word(value), "string", true);
        break;
      case ScalarType::IntOrString:
        mismatch(target, go_word(value), "int32", true);
        break;
      default:
        mismatch(target, go_word(value), target.go_type, false);
    }
  }

  // encoding/json's UnmarshalTypeError with the decoder's error context.
  void mismatch(const Node& target, const std::string& value, const std::string& go_type,
                bool fatal) {
    const std::string_view struct_name =
        frames_.empty() ? std::string_view() : frames_.back().struct_name;
    const std::string bare = "json: cannot unmarshal " + value + " into Go value of type " + go_type;
    if (struct_name.empty() && fields_.empty()) {
      fail(target, bare, fatal, bare);
    } else {
      fail(target,
           "json: cannot unmarshal " + value + " into Go struct field " +
               std::string(struct_name) + "." + fields_ + " of type " + go_type,
           fatal, bare);
    }
  }

  void fail(const Node& target, std::string message, bool fatal, std::string bare = {}) {
    if (fatal_ || (error_ && !fatal)) {
      return;
    }
    fatal_ = fatal;
    DecodeError error;
    error.bare_message = bare.empty() ? message : std::move(bare);
    error.message = std::move(message);
    error.path = path_;
    error.expected = smd_expected(target);
    for (const Frame& frame : frames_) {
      error.pointer += '/';
      error.pointer += frame.is_array ? std::to_string(frame.next_index - 1)
                                      : pointer_token(frame.key);
    }
    error_ = std::move(error);
  }

  // The schema the value that starts now must follow; also puts the value's path in path_.
  const Node* next_value_target() {
    if (frames_.empty()) {
      if (root_done_) {
        return nullptr;
      }
      root_done_ = true;
      return root_;
    }
    Frame& frame = frames_.back();
    if (!frame.is_array) {
      return frame.pending;
    }
    const std::size_t index = frame.next_index++;
    if (frame.node == nullptr) {
      return nullptr;
    }
    path_.resize(frame.base_len);
    fields_.resize(frame.fields_len);
    path_ += '[';
    path_ += std::to_string(index);
    path_ += ']';
    return frame.node->elem;
  }

  void push(const Node* node, bool is_array) {
    std::string_view outer = frames_.empty() ? std::string_view() : frames_.back().struct_name;
    Frame& frame = frames_.emplace_back();
    frame.node = node;
    frame.is_array = is_array;
    frame.base_len = path_.size();
    frame.fields_len = fields_.size();
    frame.struct_name =
        node != nullptr && node->kind == NodeKind::Struct ? node->struct_name : outer;
  }

  void pop() {
    frames_.pop_back();
    if (!frames_.empty()) {
      path_.resize(frames_.back().base_len);
      fields_.resize(frames_.back().fields_len);
    }
  }

  void report(const char* what) {
    if (problems_.size() >= kMaxStrictErrors) {
      return;
    }
    std::string message = what + go_quote(path_);
    if (seen_messages_.insert(message).second) {
      problems_.push_back(std::move(message));
    }
  }

  const Node* root_;
  bool root_done_ = false;
  bool failed_ = false;
  std::string path_;
  std::string fields_;  // struct field names from the top, for decode errors
  std::vector<Frame> frames_;
  std::vector<std::string> problems_;
  std::unordered_set<std::string> seen_messages_;
  std::optional<DecodeError> error_;
  bool fatal_ = false;
};

// Replays a parsed document (objects in sorted key order) into the walker, without recursion:
// one frame per open object or array.
void replay(const json& root, Walker& walker) {
  struct Frame {
    const json* value;
    json::const_iterator next;
  };
  std::vector<Frame> stack;
  auto visit = [&](const json& value) {
    if (value.is_object()) {
      walker.start_object(value.size());
      stack.push_back({&value, value.begin()});
    } else if (value.is_array()) {
      walker.start_array(value.size());
      stack.push_back({&value, value.begin()});
    } else if (value.is_string()) {
      std::string text = value.get<std::string>();
      walker.string(text);
    } else if (value.is_boolean()) {
      walker.boolean(value.get<bool>());
    } else if (value.is_number_unsigned()) {
      walker.number_unsigned(value.get<json::number_unsigned_t>());
    } else if (value.is_number_integer()) {
      walker.number_integer(value.get<json::number_integer_t>());
    } else if (value.is_number_float()) {
      walker.number_float(value.get<double>(), value.dump());
    } else {
      walker.null();
    }
  };
  visit(root);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.value->end()) {
      if (f.value->is_object()) {
        walker.end_object();
      } else {
        walker.end_array();
      }
      stack.pop_back();
      continue;
    }
    if (f.value->is_object()) {
      std::string key = f.next.key();
      walker.key(key);
    }
    const json& item = *f.next;
    ++f.next;
    visit(item);  // may grow the stack: `f` is not used after this
  }
}

// ---------------------------------------------------------------------------------------------
// YAML duplicate keys

constexpr int kMaxYamlDepth = 1000;

// How yaml.v2 resolves a map key, as (identity, text printed by %#v).
std::pair<std::string, std::string> yaml_key(const YAML::Node& key) {
  if (!key.IsScalar() && !key.IsNull()) {
    return {"?", "?"};  // yaml.v2 rejects map and list keys; compared by text here
  }
  const std::string text = key.IsNull() ? std::string() : key.Scalar();
  if (key.Tag() != "?") {  // quoted or explicitly tagged: a string
    return {"s" + text, go_quote(text)};
  }
  static const std::unordered_set<std::string> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::unordered_set<std::string> kTrue = {"y",  "Y",  "yes",  "Yes",  "YES", "on",
                                                        "On", "ON", "true", "True", "TRUE"};
  static const std::unordered_set<std::string> kFalse = {
      "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"};
  if (key.IsNull() || kNull.count(text) != 0) {
    return {"n", "<nil>"};
  }
  if (kTrue.count(text) != 0) {
    return {"btrue", "true"};
  }
  if (kFalse.count(text) != 0) {
    return {"bfalse", "false"};
  }
  // Integers as Go's ParseInt(text without '_', 0, 64) reads them.
  std::string digits;
  for (char c : text) {
    if (c != '_') {
      digits += c;
    }
  }
  std::size_t pos = 0;
  bool negative = false;
  if (pos < digits.size() && (digits[pos] == '+' || digits[pos] == '-')) {
    negative = digits[pos] == '-';
    ++pos;
  }
  int base = 10;
  if (digits.size() > pos + 1 && digits[pos] == '0') {
    const char p = digits[pos + 1];
    if (p == 'x' || p == 'X') {
      base = 16;
      pos += 2;
    } else if (p == 'b' || p == 'B') {
      base = 2;
      pos += 2;
    } else if (p == 'o' || p == 'O') {
      base = 8;
      pos += 2;
    } else {
      base = 8;
      pos += 1;
    }
  }
  if (pos < digits.size()) {
    std::uint64_t magnitude = 0;
    bool ok = true;
    for (std::size_t i = pos; i < digits.size() && ok; ++i) {
      const char c = digits[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : 99;
      ok = d < base && magnitude <= (UINT64_MAX - static_cast<std::uint64_t>(d)) / base;
      magnitude = magnitude * base + static_cast<std::uint64_t>(d);
    }
    if (ok && magnitude <= (negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1)) {
      std::string shown = (negative && magnitude != 0 ? "-" : "") + std::to_string(magnitude);
      return {"i" + shown, shown};
    }
  }
  return {"s" + text, go_quote(text)};
}

void find_yaml_duplicates(const YAML::Node& node, int depth, std::vector<std::string>& out) {
  if (depth > kMaxYamlDepth) {
    return;
  }
  if (node.IsSequence()) {
    for (const auto& item : node) {
      find_yaml_duplicates(item, depth + 1, out);
    }
    return;
  }
  if (!node.IsMap()) {
    return;
  }
  std::unordered_set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    // yaml.v2 decodes the value before it stores it under the key.
    find_yaml_duplicates(value, depth + 1, out);
    auto [identity, shown] = yaml_key(key);
    if (seen.insert(identity).second) {
      continue;
    }
    // The value's line; an empty value has no position of its own: it sits on the key's line.
    int line = value.Mark().line;
    if (line < 0 || (value.IsNull() && value.Scalar().empty())) {
      line = key.Mark().line;
    }
    out.push_back("line " + std::to_string(line + 1) + ": key " + shown + " already set in map");
  }
}

bool is_yaml_problem(const std::string& problem) {
  static const std::string kSuffix = " already set in map";
  return problem.rfind("line ", 0) == 0 && problem.size() > kSuffix.size() &&
         problem.compare(problem.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

// ---------------------------------------------------------------------------------------------
// Warning headers

std::size_t rune_count(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) {
    n += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
  }
  return n;
}

std::string first_runes(const std::string& s, std::size_t runes) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      if (seen == runes) {
        return s.substr(0, i);
      }
      ++seen;
    }
  }
  return s;
}

// net.NewWarningHeader refuses text that is not UTF-8 or holds control characters.
bool valid_warning_text(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) {
        return false;
      }
      ++i;
      continue;
    }
    const std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || c > 0xf4 || i + len > s.size()) {
      return false;
    }
    for (std::size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) {
        return false;
      }
    }
    if (len == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {
      return false;  // C1 controls
    }
    i += len;
  }
  return true;
}

std::string warning_header(const std::string& text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

FieldValidator::FieldValidator() : FieldValidator(facts::schemas_json()) {}

FieldValidator::FieldValidator(std::string_view schemas_json)
    : index_(std::make_unique<Index>(schemas_json)) {}

FieldValidator::~FieldValidator() = default;

bool FieldValidator::knows(const std::string& group, const std::string& version,
                           const std::string& kind) const {
  return index_->by_gvk.count(Index::gvk_key(group, version, kind)) != 0;
}

std::vector<std::string> FieldValidator::check(const std::string& group, const std::string& version,
                                               const std::string& kind, std::string_view body,
                                               bool yaml_body_already_converted_json) const {
  return inspect(group, version, kind, body, yaml_body_already_converted_json).problems;
}

FieldReport FieldValidator::inspect(const std::string& group, const std::string& version,
                                    const std::string& kind, std::string_view body,
                                    bool yaml_body_already_converted_json) const {
  auto it = index_->by_gvk.find(Index::gvk_key(group, version, kind));
  if (it == index_->by_gvk.end()) {
    return {};
  }
  Walker walker(it->second);
  if (yaml_body_already_converted_json) {
    // Parsing into nlohmann::json sorts keys byte-wise and keeps the last of repeated keys, as
    // sigs.k8s.io/yaml's conversion does.
    const json doc = json::parse(body.begin(), body.end(), nullptr, false);
    if (doc.is_discarded()) {
      return {};
    }
    replay(doc, walker);
  } else {
    const bool parsed = json::sax_parse(body.begin(), body.end(), &walker);
    if (!parsed || walker.failed()) {
      return {};
    }
  }
  FieldReport report;
  report.decode_error = walker.take_error();
  report.problems = walker.take();
  return report;
}

std::vector<std::string> yaml_duplicate_keys(std::string_view yaml_text) {
  std::vector<std::string> out;
  try {
    const YAML::Node doc = YAML::Load(std::string(yaml_text));
    find_yaml_duplicates(doc, 0, out);
  } catch (const YAML::Exception&) {
    return {};
  }
  return out;
}

std::string strict_error_message(const std::string& kind, const std::string& version,
                                 const std::vector<std::string>& problems) {
  std::vector<std::string> items;
  std::size_t yaml_item = SIZE_MAX;
  for (const auto& problem : problems) {
    if (!is_yaml_problem(problem)) {
      items.push_back(problem);
    } else if (yaml_item == SIZE_MAX) {
      yaml_item = items.size();
      items.push_back("yaml: unmarshal errors:\n  " + problem);
    } else {
      items[yaml_item] += "\n  " + problem;
    }
  }
  std::string message = kind + " in version " + go_quote(version) + " cannot be handled as a " +
                        kind + ": strict decoding error: ";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) {
      message += ", ";
    }
    message += items[i];
  }
  return message;
}

std::vector<std::string> warning_headers(const std::vector<std::string>& problems) {
  std::vector<std::string> headers;
  std::vector<std::string> ordered;
  std::unordered_set<std::string> recorded;
  std::size_t written = 0;
  bool truncating = false;
  for (const auto& problem : problems) {
    if (problem.empty() || (truncating && written >= kWarningTotalRunes)) {
      continue;
    }
    if (!recorded.insert(problem).second) {
      continue;
    }
    ordered.push_back(problem);
    std::string text = problem;
    std::size_t runes = rune_count(text);
    if (truncating && runes > kWarningItemRunes) {
      text = first_runes(text, kWarningItemRunes);
      runes = kWarningItemRunes;
    }
    if (!valid_warning_text(text)) {
      continue;
    }
    if (written + runes <= kWarningTotalRunes || truncating) {
      written += runes;
      headers.push_back(warning_header(text));
      continue;
    }
    // Over the limit: start again with every recorded text cut to kWarningItemRunes.
    truncating = true;
    written = 0;
    headers.clear();
    for (const auto& earlier : ordered) {
      std::string cut = earlier;
      std::size_t cut_runes = rune_count(cut);
      if (cut_runes > kWarningItemRunes) {
        cut = first_runes(cut, kWarningItemRunes);
        cut_runes = kWarningItemRunes;
      }
      if (valid_warning_text(cut)) {
        written += cut_runes;
        headers.push_back(warning_header(cut));
      }
    }
  }
  return headers;
}

}  // namespace apiserver::registry
