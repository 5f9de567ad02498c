// Facts followed here (read upstream, release-1.32 line):
// - sigs.k8s.io/json strict decoding: unknown keys of a struct and repeated keys of a struct or map
//   are collected in decode order as `unknown field %q` / `duplicate field %q` of the field path;
//   identical messages once; at most 100. Values handled by their own UnmarshalJSON are opaque.
// - apimachinery's JSON serializer: for YAML bodies the strict YAML->JSON conversion's error
//   comes first, then the strict errors of decoding the (sorted, de-duplicated) converted JSON.
//
// This file holds the walk over a body and FieldValidator's members; the schema graph it follows
// is field_schema_graph.*, YAML duplicate keys are yaml_duplicate_keys.cpp, and the Strict
// message and Warn headers are field_validation_messages.cpp.
#include "registry/field_validation.h"

#include "registry/field_schema_graph.h"
#include "registry/go_text.h"
#include "registry/go_values.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "apiserver/facts.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxStrictErrors = 100;  // sigs.k8s.io/json saveStrictError

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
  return type != ScalarType::Int32 || (n >= std::numeric_limits<std::int32_t>::min() &&
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
    const std::string bare =
        "json: cannot unmarshal " + value + " into Go value of type " + go_type;
    if (struct_name.empty() && fields_.empty()) {
      fail(target, bare, fatal, bare);
    } else {
      fail(target,
           "json: cannot unmarshal " + value + " into Go struct field " + std::string(struct_name) +
               "." + fields_ + " of type " + go_type,
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
      error.pointer +=
          frame.is_array ? std::to_string(frame.next_index - 1) : pointer_token(frame.key);
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

}  // namespace apiserver::registry
