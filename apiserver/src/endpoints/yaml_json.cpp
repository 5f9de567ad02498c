#include "endpoints/yaml_json.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "registry/go_text.h"
#include "registry/walk_depth.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

// go-yaml v2's limits: flow nesting deeper than this is refused by its scanner, and alias
// expansion may only be a share of all decoding work, shrinking from 99% to 10% as documents
// grow from 400,000 to 4,000,000 decoded nodes.
constexpr int kMaxDepth = static_cast<int>(registry::kMaxNestingDepth);
constexpr double kAliasRatioRangeLow = 400000;
constexpr double kAliasRatioRangeHigh = 4000000;

const char* kExcessiveAliasing = "yaml: document contains excessive aliasing";

double allowed_alias_ratio(double decode_count) {
  if (decode_count <= kAliasRatioRangeLow) {
    return 0.99;
  }
  if (decode_count >= kAliasRatioRangeHigh) {
    return 0.10;
  }
  return 0.99 - 0.89 * ((decode_count - kAliasRatioRangeLow) /
                        (kAliasRatioRangeHigh - kAliasRatioRangeLow));
}

// ---- YAML text to a node graph, aliases kept as references ----

struct YamlNode {
  enum class Kind { Null, Scalar, Sequence, Map, Alias };
  Kind kind = Kind::Null;
  std::string tag;
  std::string value;
  std::string anchor;            // the anchor's name, when the node defines one
  std::vector<size_t> children;  // a map's keys and values alternate
  size_t target = 0;             // an alias's node
  YAML::Mark mark;
};

// A scalar's text as yaml-cpp gives it, in UTF-8. yaml-cpp writes the escapes \N (U+0085) and
// \_ (U+00A0) of double-quoted scalars as the single bytes 0x85 and 0xA0, which are not UTF-8;
// go-yaml decodes them to those characters. The input was checked to be UTF-8 before parsing, so
// any byte here that does not start a valid sequence came from one of those escapes.
std::string scalar_text(const std::string& value) {
  size_t i = 0;
  while (i < value.size() && static_cast<unsigned char>(value[i]) < 0x80) {
    ++i;
  }
  if (i == value.size()) {
    return value;
  }
  std::string out = value.substr(0, i);
  while (i < value.size()) {
    size_t width = 1;
    const char32_t r = registry::decode_rune(value, i, width);
    const auto byte = static_cast<unsigned char>(value[i]);
    if (r == 0xFFFD && width == 1) {
      registry::append_utf8(out, byte == 0x85 || byte == 0xA0 ? char32_t{byte} : r);
    } else {
      out.append(value, i, width);
    }
    i += width;
  }
  return out;
}

// Builds the first document's nodes from yaml-cpp's parser events; counts the documents.
class GraphBuilder : public YAML::EventHandler {
 public:
  std::vector<YamlNode> nodes;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_anchor_ = name; }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    add(YamlNode::Kind::Null, mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const size_t at = add(YamlNode::Kind::Alias, mark, 0);
    auto it = anchors_.find(anchor);
    nodes[at].target = it == anchors_.end() ? at : it->second;
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    const size_t at = add(YamlNode::Kind::Scalar, mark, anchor);
    nodes[at].tag = tag;
    nodes[at].value = scalar_text(value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open_.push_back(add(YamlNode::Kind::Sequence, mark, anchor));
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open_.push_back(add(YamlNode::Kind::Map, mark, anchor));
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  size_t add(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    const size_t at = nodes.size();
    nodes.push_back({});
    nodes[at].kind = kind;
    nodes[at].mark = mark;
    if (anchor != 0) {
      anchors_[anchor] = at;
      nodes[at].anchor = pending_anchor_;
    }
    pending_anchor_.clear();
    if (!open_.empty()) {
      nodes[open_.back()].children.push_back(at);
    }
    return at;
  }

  std::vector<size_t> open_;
  std::map<YAML::anchor_t, size_t> anchors_;
  std::string pending_anchor_;
};

// go-yaml's flow-level limit, checked before yaml-cpp's recursive parser sees the text: '[' and
// '{' that open a flow collection (inside one, or at the start of a block node), outside quoted
// scalars and comments. Returns the 1-based line of the first excess, or 0. An approximation of
// go-yaml's scanner: text in block scalars (| and >) is looked at too.
int excessive_flow_depth_line(std::string_view text) {
  int depth = 0;
  int line = 1;
  char quote = 0;
  char previous = 0;  // the last non-blank character on this line, outside quotes
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\n') {
        ++line;
      }
      if (quote == '"' && c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
        previous = c;
      }
      continue;
    }
    if (c == '\n') {
      ++line;
      previous = 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      continue;
    }
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
      while (i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
      }
      continue;
    }
    const bool node_start = depth > 0 || previous == 0 || previous == ':' || previous == '-' ||
                            previous == '?' || previous == ',' || previous == '[' ||
                            previous == '{';
    if ((c == '"' || c == '\'') && node_start) {
      quote = c;
    } else if ((c == '[' || c == '{') && node_start) {
      if (++depth > kMaxDepth) {
        return line;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    // Inside a plain scalar, brackets are text.
    previous = (c == '[' || c == '{' || c == '"' || c == '\'') && !node_start ? 'x' : c;
  }
  return 0;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// [-+]?(0|[1-9][0-9]*)
bool is_yaml_int(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    s.remove_prefix(1);
  }
  if (s.empty() || (s[0] == '0' && s.size() > 1)) {
    return false;
  }
  for (char c : s) {
    if (!is_digit(c)) {
      return false;
    }
  }
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_yaml_float(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && is_digit(s[i])) {
      ++i;
    }
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) {
      return false;
    }
  } else {
    if (digits() == 0) {
      return false;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      ++i;
    }
    if (digits() == 0) {
      return false;
    }
  }
  return i == s.size();
}

// A plain scalar with YAML 1.2's core schema; quoted scalars are strings. Numbers that overflow
// stay strings, as Go's ParseFloat failing leaves them.
json scalar(const YamlNode& node) {
  const std::string& text = node.value;
  if (node.tag == "!") {
    return text;
  }
  if (text.empty() || text == "null" || text == "Null" || text == "NULL" || text == "~") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") {
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    return false;
  }
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  if (is_yaml_int(text)) {
    int64_t i = 0;
    if (std::from_chars(first, last, i).ec == std::errc()) {
      return i;
    }
    uint64_t u = 0;
    if (std::from_chars(first, last, u).ec == std::errc()) {
      return u;
    }
  }
  if (is_yaml_float(text)) {
    double d = 0;
    if (std::from_chars(first, last, d).ec == std::errc()) {
      return d;
    }
  }
  return text;
}

std::string error_at(const YAML::Mark& mark, const std::string& message) {
  const std::string where = mark.line >= 0 ? "line " + std::to_string(mark.line + 1) + ": " : "";
  return "error converting YAML to JSON: yaml: " + where + message;
}

// The graph to JSON without recursion, counting work as go-yaml's decoder does: every node
// decoded (the document, map keys and aliases too) is one unit, and units under an alias count as
// alias expansion. An alias never names another alias (YAML gives aliases no anchors).
class Converter {
 public:
  explicit Converter(const std::vector<YamlNode>& nodes)
      : nodes_(nodes), expanding_(nodes.size(), false) {}

  common::Result<json> run() {
    json root;
    decode_count_ = 1;  // the document
    if (auto error = enter(0, root)) {
      return std::move(*error);
    }
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      const YamlNode& n = nodes_[f.node];
      if (f.next == n.children.size()) {
        if (f.alias != kNone) {
          expanding_[f.alias] = false;
          --alias_depth_;
        }
        stack_.pop_back();
        continue;
      }
      json* slot = nullptr;
      size_t child = 0;
      if (n.kind == YamlNode::Kind::Sequence) {
        f.out->push_back(nullptr);
        slot = &f.out->back();
        child = n.children[f.next++];
      } else {
        // A map: the key is decoded (and counted) first, then its value.
        auto key = decode_key(n.children[f.next]);
        if (!key) {
          return key.error();
        }
        slot = &(*f.out)[*key];
        child = n.children[f.next + 1];
        f.next += 2;
      }
      // `f` may dangle from here on: enter() can grow the stack.
      if (auto error = enter(child, *slot)) {
        return std::move(*error);
      }
    }
    return root;
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;

  struct Frame {
    size_t node;
    json* out;
    size_t next;
    size_t alias;  // the alias node this frame expands, or kNone
  };

  // Counts one decoded node; the error once aliases have expanded too much.
  std::optional<std::string> count() {
    ++decode_count_;
    if (alias_depth_ > 0) {
      ++alias_count_;
    }
    if (alias_count_ > 100 && decode_count_ > 1000 &&
        static_cast<double>(alias_count_) / static_cast<double>(decode_count_) >
            allowed_alias_ratio(static_cast<double>(decode_count_))) {
      return std::string("error converting YAML to JSON: ") + kExcessiveAliasing;
    }
    return std::nullopt;
  }

  struct Resolved {
    size_t node;   // the node to decode
    size_t alias;  // the alias that led to it, or kNone
  };

  // Counts the node at `at`, following an alias to its node.
  common::Result<Resolved> resolve(size_t at) {
    if (auto error = count()) {
      return std::move(*error);
    }
    if (nodes_[at].kind != YamlNode::Kind::Alias) {
      return Resolved{at, kNone};
    }
    if (expanding_[at]) {
      return "error converting YAML to JSON: yaml: anchor '" + nodes_[nodes_[at].target].anchor +
             "' value contains itself";
    }
    ++alias_depth_;
    if (auto error = count()) {
      return std::move(*error);
    }
    return Resolved{nodes_[at].target, at};
  }

  // Decodes the node at `at` into `out`: a scalar at once, a collection by pushing its frame.
  std::optional<std::string> enter(size_t at, json& out) {
    auto resolved = resolve(at);
    if (!resolved) {
      return resolved.error();
    }
    const auto [node, alias] = *resolved;
    const YamlNode& n = nodes_[node];
    if (n.kind == YamlNode::Kind::Sequence || n.kind == YamlNode::Kind::Map) {
      out = n.kind == YamlNode::Kind::Map ? json::object() : json::array();
      if (alias != kNone) {
        expanding_[alias] = true;
      }
      stack_.push_back({node, &out, 0, alias});
      return std::nullopt;
    }
    out = n.kind == YamlNode::Kind::Scalar ? scalar(n) : json(nullptr);
    if (alias != kNone) {
      --alias_depth_;
    }
    return std::nullopt;
  }

  // A map key: a scalar's text ("null" for an empty one), as the conversion has always kept it.
  common::Result<std::string> decode_key(size_t at) {
    auto resolved = resolve(at);
    if (!resolved) {
      return common::Result<std::string>::failure(resolved.error());
    }
    if (resolved->alias != kNone) {
      --alias_depth_;
    }
    const YamlNode& n = nodes_[resolved->node];
    if (n.kind == YamlNode::Kind::Scalar) {
      return n.value;
    }
    if (n.kind == YamlNode::Kind::Null) {
      return std::string("null");
    }
    return common::Result<std::string>::failure(error_at(n.mark, "a map key must be a scalar"));
  }

  const std::vector<YamlNode>& nodes_;
  std::vector<bool> expanding_;
  std::vector<Frame> stack_;
  int64_t decode_count_ = 0;
  int64_t alias_count_ = 0;
  int alias_depth_ = 0;
};

// ---- JSON to YAML ----

// go-yaml v2's resolve(): whether a plain scalar with this text would read back as something
// other than a string (null, bool, int, float, timestamp, base 60 float, merge key). A superset
// where exactness is costly (any 4-digit-year prefix counts as a timestamp).
bool reads_as_non_string(std::string_view s) {
  static const std::set<std::string_view> kWords = {
      "",      "~",     "null",  "Null",  "NULL",  "y",     "Y",    "yes",  "Yes",   "YES",
      "n",     "N",     "no",    "No",    "NO",    "true",  "True", "TRUE", "false", "False",
      "FALSE", "on",    "On",    "ON",    "off",   "Off",   "OFF",  ".inf", ".Inf",  ".INF",
      "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN",  "<<"};
  if (kWords.count(s) != 0) {
    return true;
  }
  std::string plain;
  for (char c : s) {
    if (c != '_') {
      plain += c;
    }
  }
  std::string_view p = plain;
  if (is_yaml_float(p)) {
    return true;
  }
  if (!p.empty() && (p[0] == '-' || p[0] == '+')) {
    p.remove_prefix(1);
  }
  // strconv.ParseInt(s, 0, 64) prefixes: 0x, 0o, 0b and a leading 0 for octal.
  auto all_of = [&](std::string_view digits, std::string_view set) {
    return !digits.empty() && digits.find_first_not_of(set) == std::string_view::npos;
  };
  if (p.size() > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    return all_of(p.substr(2), "0123456789abcdefABCDEF");
  }
  if (p.size() > 2 && p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
    return all_of(p.substr(2), "01234567");
  }
  if (p.size() > 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
    return all_of(p.substr(2), "01");
  }
  // Base 60 floats (1:20, -1:20:30.5) and timestamps (2001-12-14...).
  if (!p.empty() && is_digit(p[0]) && p.find(':') != std::string_view::npos &&
      all_of(p, "0123456789:.")) {
    return true;
  }
  return s.size() > 4 && all_of(s.substr(0, 4), "0123456789") && s[4] == '-';
}

// libyaml's is_printable over one UTF-8 sequence at s[i].
bool printable_at(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == 0x0A || (c >= 0x20 && c <= 0x7E)) {
    return true;
  }
  if (c < 0x80) {
    return false;
  }
  // Multi-byte: only C1 controls (U+0080..U+009F other than U+0085), U+FEFF and the
  // surrogates/U+FFFE/U+FFFF are not printable.
  if (c == 0xC2 && i + 1 < s.size()) {
    const auto d = static_cast<unsigned char>(s[i + 1]);
    return d == 0x85 || d >= 0xA0;
  }
  if (c == 0xEF && i + 2 < s.size()) {
    const auto d = static_cast<unsigned char>(s[i + 1]);
    const auto e = static_cast<unsigned char>(s[i + 2]);
    return !((d == 0xBB && e == 0xBF) || (d == 0xBF && (e == 0xBE || e == 0xBF)));
  }
  return true;
}

bool blank(std::string_view s, size_t i) {
  return i >= s.size() || s[i] == ' ' || s[i] == '\t' || s[i] == '\n';
}

// libyaml's analysis of a scalar for the plain style in block context.
bool plain_allowed(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.substr(0, 3) == "---" ||
      s.substr(0, 3) == "...") {
    return false;
  }
  if (std::string_view("#,[]{}&*!|>'\"%@`").find(s[0]) != std::string_view::npos) {
    return false;
  }
  if ((s[0] == '?' || s[0] == ':' || s[0] == '-') && blank(s, 1)) {
    return false;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (!printable_at(s, i) || s[i] == '\n' || s[i] == '\t') {
      return false;
    }
    if (i > 0 && s[i] == ':' && blank(s, i + 1)) {
      return false;
    }
    if (i > 0 && s[i] == '#' && (s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return false;
    }
  }
  return true;
}

// A string as go-yaml v2 writes it: double quoted when it would read back as another type
// (and when it holds line breaks: yaml-cpp's literal blocks do not round-trip every string),
// single quoted when the plain style cannot carry it, else plain. yaml-cpp falls back to double
// quotes itself whenever its own checks refuse the style asked for.
void emit_string(YAML::Emitter& out, const std::string& s) {
  if (reads_as_non_string(s) || s.find('\n') != std::string::npos) {
    out << YAML::DoubleQuoted << s;
  } else if (!plain_allowed(s)) {
    out << YAML::SingleQuoted << s;
  } else {
    out << s;
  }
}

void emit_scalar(YAML::Emitter& out, const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      emit_string(out, value.get_ref<const std::string&>());
      break;
    case json::value_t::null:
      out << YAML::Null;
      break;
    case json::value_t::boolean:
      out << (value.get<bool>() ? "true" : "false");
      break;
    case json::value_t::object:
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      break;
    case json::value_t::array:
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      break;
    default:
      out << value.dump();
      break;
  }
}

// Without recursion: one frame per open object or array.
void emit(YAML::Emitter& out, const json& root) {
  struct Frame {
    const json* value;
    json::const_iterator it;
  };
  auto open = [&](const json& v, std::vector<Frame>& stack) {
    if (v.is_structured() && !v.empty()) {
      out << (v.is_object() ? YAML::BeginMap : YAML::BeginSeq);
      stack.push_back({&v, v.begin()});
    } else {
      emit_scalar(out, v);
    }
  };
  std::vector<Frame> stack;
  open(root, stack);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.it == f.value->end()) {
      out << (f.value->is_object() ? YAML::EndMap : YAML::EndSeq);
      stack.pop_back();
      continue;
    }
    const json& item = *f.it;
    if (f.value->is_object()) {
      out << YAML::Key;
      emit_string(out, f.it.key());
      out << YAML::Value;
    }
    ++f.it;
    open(item, stack);  // may grow the stack: `f` is not used after this
  }
}

// go-yaml v2's reader checks the input's UTF-8, and that every character is one YAML allows,
// before it scans anything; the first problem it finds, in its words, or "" for valid text.
// YAML's printable set: tab, line feed, carriage return, the rest of ASCII but DEL and the C0
// controls, NEL, and every other code point but the C1 controls, surrogates, U+FFFE and U+FFFF.
bool yaml_printable(char32_t c) {
  return c == 0x09 || c == 0x0A || c == 0x0D || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
         (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

std::string utf8_problem(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t width = 0;
    char32_t value = 0;
    if ((lead & 0x80) == 0) {
      if (!yaml_printable(lead)) {
        return "control characters are not allowed";
      }
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      width = 2;
      value = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      width = 3;
      value = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      width = 4;
      value = lead & 0x07;
    } else {
      return "invalid leading UTF-8 octet";
    }
    if (text.size() - i < width) {
      return "incomplete UTF-8 octet sequence";
    }
    for (size_t k = 1; k < width; ++k) {
      const auto trail = static_cast<unsigned char>(text[i + k]);
      if ((trail & 0xC0) != 0x80) {
        return "invalid trailing UTF-8 octet";
      }
      value = (value << 6) | (trail & 0x3F);
    }
    const bool shortest = (width == 2 && value >= 0x80) || (width == 3 && value >= 0x800) ||
                          (width == 4 && value >= 0x10000);
    if (!shortest) {
      return "invalid length of a UTF-8 sequence";
    }
    if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) {
      return "invalid Unicode character";
    }
    if (!yaml_printable(value)) {
      return "control characters are not allowed";
    }
    i += width;
  }
  return {};
}

}  // namespace

common::Result<json> yaml_to_json(const std::string& text) {
  if (std::string problem = utf8_problem(text); !problem.empty()) {
    return "error converting YAML to JSON: yaml: " + problem;
  }
  if (const int line = excessive_flow_depth_line(text); line != 0) {
    return "error converting YAML to JSON: yaml: " +
           (line > 1 ? "line " + std::to_string(line) + ": " : std::string()) +
           "exceeded max depth of " + std::to_string(kMaxDepth);
  }
  GraphBuilder graph;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(graph)) {
      return std::string("the YAML body holds no document");
    }
    GraphBuilder rest;
    if (parser.HandleNextDocument(rest)) {
      return std::string("the YAML body holds more than one document");
    }
  } catch (const YAML::Exception& e) {
    return error_at(e.mark, e.msg);
  }
  if (graph.nodes.empty()) {
    return json(nullptr);
  }
  return Converter(graph.nodes).run();
}

std::string json_to_yaml(const json& doc) {
  YAML::Emitter out;
  emit(out, doc);
  return std::string(out.c_str()) + "\n";
}

}  // namespace apiserver::endpoints
