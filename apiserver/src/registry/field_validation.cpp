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

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>

// GCC 12 sees dangling pointers in yaml-cpp's inlined Node accessors that are not there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#include <yaml-cpp/yaml.h>
#pragma GCC diagnostic pop
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

struct Node {
  NodeKind kind = NodeKind::Opaque;
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
      return;
    }
    const std::string type = schema.value("type", std::string());
    if (type == "array") {
      node.kind = NodeKind::Array;
      auto items = schema.find("items");
      node.elem = items != schema.end() ? compile(*items) : &opaque;
    } else if (type == "string" || type == "integer" || type == "number" || type == "boolean") {
      node.kind = NodeKind::Scalar;
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
    // Every definition gets its node first so that $ref (including cycles) resolves to it.
    for (const auto& [name, schema] : defs.items()) {
      definitions.emplace(name, make());
    }
    for (const auto& [name, schema] : defs.items()) {
      compile_into(*definitions.at(name), schema);
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

class Walker final : public nlohmann::json_sax<json> {
 public:
  explicit Walker(const Node* root) : root_(root) {}

  std::vector<std::string> take() { return std::move(problems_); }

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }

  bool start_object(std::size_t) override {
    const Node* target = next_value_target();
    if (target != nullptr && target->kind != NodeKind::Struct && target->kind != NodeKind::Map) {
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
    path_.resize(frame.base_len);
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
    std::size_t next_index = 0;
    const Node* pending = nullptr;  // schema of the value after the last key
    std::vector<bool> seen_fields;
    std::unordered_set<std::string> seen_keys;
  };

  bool scalar() {
    next_value_target();
    return true;
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
    path_ += '[';
    path_ += std::to_string(index);
    path_ += ']';
    return frame.node->elem;
  }

  void push(const Node* node, bool is_array) {
    Frame& frame = frames_.emplace_back();
    frame.node = node;
    frame.is_array = is_array;
    frame.base_len = path_.size();
  }

  void pop() {
    frames_.pop_back();
    if (!frames_.empty()) {
      path_.resize(frames_.back().base_len);
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
  std::vector<Frame> frames_;
  std::vector<std::string> problems_;
  std::unordered_set<std::string> seen_messages_;
};

// Replays a parsed document (objects in sorted key order) into the walker.
void replay(const json& value, Walker& walker) {
  if (value.is_object()) {
    walker.start_object(value.size());
    for (const auto& [name, item] : value.items()) {
      std::string key = name;
      walker.key(key);
      replay(item, walker);
    }
    walker.end_object();
  } else if (value.is_array()) {
    walker.start_array(value.size());
    for (const auto& item : value) {
      replay(item, walker);
    }
    walker.end_array();
  } else {
    walker.null();
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
    return walker.take();
  }
  const bool parsed = json::sax_parse(body.begin(), body.end(), &walker);
  if (!parsed || walker.failed()) {
    return {};
  }
  return walker.take();
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
