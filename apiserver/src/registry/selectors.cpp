#include "registry/selectors.h"

#include "registry/go_text.h"
#include "registry/name_scanners.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>

namespace apiserver::registry {
namespace {

// Go's %#v of a []string: []string(nil), []string{}, []string{"a", "b"}.
std::string go_string_slice(const std::optional<std::vector<std::string>>& values) {
  if (!values) {
    return "[]string(nil)";
  }
  std::string out = "[]string{";
  for (size_t i = 0; i < values->size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += go_quote((*values)[i]);
  }
  return out + "}";
}

// A field.Error of type Invalid rendered as `<path>: Invalid value: <value>: <detail>`;
// `path` is "<nil>" when the parser validates a key without a path, as upstream prints it.
std::string invalid(const std::string& path, const std::string& rendered_value,
                    const std::string& detail) {
  return path + ": Invalid value: " + rendered_value + ": " + detail;
}

// An aggregate of errors: one alone, several as "[a, b]"; repeats dropped.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const auto& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) {
      unique.push_back(e);
    }
  }
  if (unique.size() == 1) {
    return unique.front();
  }
  std::string out = "[";
  for (size_t i = 0; i < unique.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += unique[i];
  }
  return out + "]";
}

// Empty when valid; else the field error for the key at `path`.
std::string validate_label_key(std::string_view key, const std::string& path) {
  const auto errs = label_key_problems(key);
  return errs.empty() ? std::string() : invalid(path, go_quote(key), join(errs, "; "));
}

// strconv.ParseInt(s, 10, 64) succeeds.
bool parse_int64(std::string_view s, int64_t& out) {
  size_t i = 0;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) {
    return false;
  }
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (limit - digit) / 10) {
      return false;
    }
    magnitude = magnitude * 10 + digit;
  }
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// labels.NewRequirement without a path option: returns the aggregated field errors, or "".
// `values` is nullopt for a Go nil slice (it only shows in the rendering of the value).
std::string check_requirement(const std::string& key, LabelOperator op,
                              const std::optional<std::vector<std::string>>& values) {
  std::vector<std::string> errs;
  if (auto e = validate_label_key(key, "key"); !e.empty()) {
    errs.push_back(e);
  }
  const std::vector<std::string> none;
  const auto& vals = values ? *values : none;
  switch (op) {
    case LabelOperator::In:
    case LabelOperator::NotIn:
      if (vals.empty()) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case LabelOperator::Equals:
    case LabelOperator::DoubleEquals:
    case LabelOperator::NotEquals:
      if (vals.size() != 1) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "exact-match compatibility requires one single value"));
      }
      break;
    case LabelOperator::Exists:
    case LabelOperator::DoesNotExist:
      if (!vals.empty()) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "values set must be empty for exists and does not exist"));
      }
      break;
    case LabelOperator::GreaterThan:
    case LabelOperator::LessThan:
      if (vals.size() != 1) {
        errs.push_back(invalid("values", go_string_slice(values),
                               "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < vals.size(); ++i) {
        int64_t ignored = 0;
        if (!parse_int64(vals[i], ignored)) {
          errs.push_back(invalid("values[" + std::to_string(i) + "]", go_quote(vals[i]),
                                 "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < vals.size(); ++i) {
    const auto value_errs = label_value_problems(vals[i]);
    if (!value_errs.empty()) {
      errs.push_back(invalid("values[" + std::to_string(i) + "][" + key + "]", go_quote(vals[i]),
                             join(value_errs, "; ")));
    }
  }
  return errs.empty() ? std::string() : aggregate(errs);
}

// ---------------------------------------------------------------------------------------------
// The labelSelector lexer and parser (same grammar and error texts as labels.Parse).

enum class Token {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
};

std::optional<Token> keyword_token(std::string_view s) {
  static const std::map<std::string_view, Token> kTokens = {
      {")", Token::ClosedPar},     {",", Token::Comma},    {"!", Token::DoesNotExist},
      {"==", Token::DoubleEquals}, {"=", Token::Equals},   {">", Token::GreaterThan},
      {"in", Token::In},           {"<", Token::LessThan}, {"!=", Token::NotEquals},
      {"notin", Token::NotIn},     {"(", Token::OpenPar},
  };
  auto it = kTokens.find(s);
  if (it == kTokens.end()) {
    return std::nullopt;
  }
  return it->second;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_special(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

struct Scanned {
  Token token;
  std::string literal;
};

// Mirrors upstream's byte reader, which returns 0 both at the end and for a NUL byte: a NUL ends
// the current token, and at the start of a token it ends the text.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Scanned lex() {
    char c = read();
    while (is_blank(c)) {
      c = read();
    }
    if (c == 0) {
      return {Token::EndOfString, ""};
    }
    unread();
    return is_special(c) ? scan_special() : scan_identifier();
  }

 private:
  char read() { return pos_ < s_.size() ? s_[pos_++] : 0; }
  void unread() { --pos_; }

  Scanned scan_identifier() {
    std::string buffer;
    while (true) {
      const char c = read();
      if (c == 0) {
        break;
      }
      if (is_special(c) || is_blank(c)) {
        unread();
        break;
      }
      buffer += c;
    }
    if (auto token = keyword_token(buffer)) {
      return {*token, buffer};
    }
    return {Token::Identifier, buffer};
  }

  // Longest run of special characters that is still an operator.
  Scanned scan_special() {
    std::optional<Scanned> last;
    std::string buffer;
    while (true) {
      const char c = read();
      if (c == 0) {
        break;
      }
      if (!is_special(c)) {
        unread();
        break;
      }
      buffer += c;
      if (auto token = keyword_token(buffer)) {
        last = Scanned{*token, buffer};
      } else if (last) {
        unread();
        break;
      }
    }
    if (!last) {
      return {Token::Error, "error expected: keyword found '" + buffer + "'"};
    }
    return *last;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) {
    Lexer lexer(text);
    while (true) {
      items_.push_back(lexer.lex());
      if (items_.back().token == Token::EndOfString) {
        break;
      }
    }
  }

  std::optional<std::vector<LabelRequirement>> parse(std::string& error) {
    std::vector<LabelRequirement> requirements;
    while (true) {
      const auto [token, literal] = lookahead(kValues);
      if (token == Token::EndOfString) {
        return requirements;
      }
      if (token != Token::Identifier && token != Token::DoesNotExist) {
        error = "found '" + literal + "', expected: !, identifier, or 'end of string'";
        return std::nullopt;
      }
      auto requirement = parse_requirement(error);
      if (!requirement) {
        error = "unable to parse requirement: " + error;
        return std::nullopt;
      }
      requirements.push_back(std::move(*requirement));
      const auto [next, next_literal] = consume(kValues);
      if (next == Token::EndOfString) {
        return requirements;
      }
      if (next != Token::Comma) {
        error = "found '" + next_literal + "', expected: ',' or 'end of string'";
        return std::nullopt;
      }
      const auto [after, after_literal] = lookahead(kValues);
      if (after != Token::Identifier && after != Token::DoesNotExist) {
        error = "found '" + after_literal + "', expected: identifier after ','";
        return std::nullopt;
      }
    }
  }

 private:
  // In a values context the keywords `in` and `notin` are plain identifiers.
  static constexpr bool kValues = true;
  static constexpr bool kKeyAndOperator = false;

  std::pair<Token, std::string> lookahead(bool values_context) const {
    return view(items_[position_], values_context);
  }
  std::pair<Token, std::string> consume(bool values_context) {
    return view(items_[position_++], values_context);
  }
  static std::pair<Token, std::string> view(const Scanned& item, bool values_context) {
    Token token = item.token;
    if (values_context && (token == Token::In || token == Token::NotIn)) {
      token = Token::Identifier;
    }
    return {token, item.literal};
  }

  std::optional<LabelRequirement> parse_requirement(std::string& error) {
    LabelRequirement r;
    std::optional<LabelOperator> op;
    auto [token, literal] = consume(kValues);
    if (token == Token::DoesNotExist) {
      op = LabelOperator::DoesNotExist;
      std::tie(token, literal) = consume(kValues);
    }
    if (token != Token::Identifier) {
      error = "found '" + literal + "', expected: identifier";
      return std::nullopt;
    }
    if (auto e = validate_label_key(literal, "<nil>"); !e.empty()) {
      error = e;
      return std::nullopt;
    }
    r.key = literal;
    const Token next = lookahead(kValues).first;
    if (next == Token::EndOfString || next == Token::Comma) {
      if (!op) {
        op = LabelOperator::Exists;
      }
    }
    if (op) {
      // `!key` followed by anything else is left for the caller to reject.
      r.op = *op;
      return finish(std::move(r), std::vector<std::string>{}, error);
    }
    const auto [op_token, op_literal] = consume(kKeyAndOperator);
    switch (op_token) {
      case Token::In:
        r.op = LabelOperator::In;
        break;
      case Token::NotIn:
        r.op = LabelOperator::NotIn;
        break;
      case Token::Equals:
        r.op = LabelOperator::Equals;
        break;
      case Token::DoubleEquals:
        r.op = LabelOperator::DoubleEquals;
        break;
      case Token::NotEquals:
        r.op = LabelOperator::NotEquals;
        break;
      case Token::GreaterThan:
        r.op = LabelOperator::GreaterThan;
        break;
      case Token::LessThan:
        r.op = LabelOperator::LessThan;
        break;
      default:
        error = "found '" + op_literal + "', expected: in, notin, =, ==, !=, gt, lt";
        return std::nullopt;
    }
    std::set<std::string> values;
    const bool ok = (r.op == LabelOperator::In || r.op == LabelOperator::NotIn)
                        ? parse_values(values, error)
                        : parse_exact_value(values, error);
    if (!ok) {
      return std::nullopt;
    }
    return finish(std::move(r), std::vector<std::string>(values.begin(), values.end()), error);
  }

  static std::optional<LabelRequirement> finish(LabelRequirement r, std::vector<std::string> values,
                                                std::string& error) {
    if (auto e = check_requirement(r.key, r.op, values); !e.empty()) {
      error = e;
      return std::nullopt;
    }
    r.values = std::move(values);
    return r;
  }

  // "(a, b, ...)": empty members count as the empty value.
  bool parse_values(std::set<std::string>& values, std::string& error) {
    const auto [open, open_literal] = consume(kValues);
    if (open != Token::OpenPar) {
      error = "found '" + open_literal + "' expected: '('";
      return false;
    }
    const auto [first, first_literal] = lookahead(kValues);
    if (first == Token::ClosedPar) {
      consume(kValues);
      values.insert("");
      return true;
    }
    if (first != Token::Identifier && first != Token::Comma) {
      error = "found '" + first_literal + "', expected: ',', ')' or identifier";
      return false;
    }
    if (!parse_identifiers(values, error)) {
      return false;
    }
    if (consume(kValues).first != Token::ClosedPar) {
      error = "found '" + first_literal + "', expected: ')'";
      return false;
    }
    return true;
  }

  bool parse_identifiers(std::set<std::string>& values, std::string& error) {
    while (true) {
      const auto [token, literal] = consume(kValues);
      if (token == Token::Identifier) {
        values.insert(literal);
        const auto [next, next_literal] = lookahead(kValues);
        if (next == Token::Comma) {
          continue;
        }
        if (next == Token::ClosedPar) {
          return true;
        }
        error = "found '" + next_literal + "', expected: ',' or ')'";
        return false;
      }
      if (token == Token::Comma) {
        if (values.empty()) {
          values.insert("");  // "(,"
        }
        const Token next = lookahead(kValues).first;
        if (next == Token::ClosedPar) {
          values.insert("");  // ",)"
          return true;
        }
        if (next == Token::Comma) {
          consume(kValues);
          values.insert("");  // ",,"
        }
        continue;
      }
      error = "found '" + literal + "', expected: ',', or identifier";
      return false;
    }
  }

  bool parse_exact_value(std::set<std::string>& values, std::string& error) {
    const Token next = lookahead(kValues).first;
    if (next == Token::EndOfString || next == Token::Comma) {
      values.insert("");
      return true;
    }
    const auto [token, literal] = consume(kValues);
    if (token == Token::Identifier) {
      values.insert(literal);
      return true;
    }
    error = "found '" + literal + "', expected: identifier";
    return false;
  }

  std::vector<Scanned> items_;
  size_t position_ = 0;
};

const std::string* label_value(const nlohmann::json& labels, const std::string& key,
                               std::string& scratch) {
  if (!labels.is_object()) {
    return nullptr;
  }
  auto it = labels.find(key);
  if (it == labels.end()) {
    return nullptr;
  }
  if (it->is_string()) {
    return it->get_ptr<const std::string*>();
  }
  scratch.clear();
  return &scratch;
}

bool requirement_matches(const LabelRequirement& r, const nlohmann::json& labels) {
  std::string scratch;
  const std::string* value = label_value(labels, r.key, scratch);
  auto has = [&](const std::string& v) {
    return std::find(r.values.begin(), r.values.end(), v) != r.values.end();
  };
  switch (r.op) {
    case LabelOperator::In:
    case LabelOperator::Equals:
    case LabelOperator::DoubleEquals:
      return value != nullptr && has(*value);
    case LabelOperator::NotIn:
    case LabelOperator::NotEquals:
      return value == nullptr || !has(*value);
    case LabelOperator::Exists:
      return value != nullptr;
    case LabelOperator::DoesNotExist:
      return value == nullptr;
    case LabelOperator::GreaterThan:
    case LabelOperator::LessThan: {
      int64_t have = 0;
      int64_t want = 0;
      if (value == nullptr || r.values.size() != 1 || !parse_int64(*value, have) ||
          !parse_int64(r.values[0], want)) {
        return false;
      }
      return r.op == LabelOperator::GreaterThan ? have > want : have < want;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Field selectors (k8s.io/apimachinery/pkg/fields and the registered field label conversions).

// Splits on commas that are not escaped by a backslash; escapes stay in the terms.
std::vector<std::string> split_terms(std::string_view text) {
  std::vector<std::string> terms;
  if (text.empty()) {
    return terms;
  }
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (text[i] == '\\') {
      escaped = true;
    } else if (text[i] == ',') {
      terms.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.emplace_back(text.substr(start));
  return terms;
}

// Splits at the first operator; "!=" and "==" win over "=" at the same position.
bool split_term(std::string_view term, std::string& lhs, FieldOperator& op, std::string& rhs) {
  for (size_t i = 0; i < term.size(); ++i) {
    const std::string_view rest = term.substr(i);
    size_t width = 0;
    if (rest.starts_with("!=")) {
      op = FieldOperator::NotEquals, width = 2;
    } else if (rest.starts_with("==")) {
      op = FieldOperator::Equals, width = 2;
    } else if (rest.starts_with("=")) {
      op = FieldOperator::Equals, width = 1;
    } else {
      continue;
    }
    lhs = std::string(term.substr(0, i));
    rhs = std::string(term.substr(i + width));
    return true;
  }
  return false;
}

// fields.UnescapeValue. Like upstream, the value is decoded rune by rune when it holds any of
// `\,=`, so invalid UTF-8 then becomes U+FFFD.
bool unescape_value(std::string_view s, std::string& out, std::string& error) {
  if (s.find_first_of("\\,=") == std::string_view::npos) {
    out = std::string(s);
    return true;
  }
  out.clear();
  bool escaped = false;
  for (size_t i = 0; i < s.size();) {
    size_t width = 1;
    const char32_t r = decode_rune(s, i, width);
    i += width;
    if (escaped) {
      if (r == '\\' || r == ',' || r == '=') {
        append_utf8(out, r);
      } else {
        std::string sequence = "\\";
        append_utf8(sequence, r);
        error = "invalid field selector: invalid escape sequence: " + sequence;
        return false;
      }
      escaped = false;
      continue;
    }
    if (r == '\\') {
      escaped = true;
    } else if (r == ',' || r == '=') {
      // Go prints the rune with %v: its code point in decimal.
      error = "invalid field selector: unescaped character in value: " +
              std::to_string(static_cast<uint32_t>(r));
      return false;
    } else {
      append_utf8(out, r);
    }
  }
  if (escaped) {
    error = "invalid field selector: invalid escape sequence: \\";
    return false;
  }
  return true;
}

std::string unknown_label_error(const Resource& resource, const std::string& label) {
  const std::string& style = resource.field_selectors.error_style;
  if (style == "core") {
    return "field label not supported: " + label;
  }
  if (style == "batch") {
    return "field label " + go_quote(label) + " not supported for batchv1.Job";
  }
  return go_quote(label) + " is not a known field selector: only \"metadata.name\", " +
         "\"metadata.namespace\"";
}

std::vector<std::string> split_path(const std::string& label) {
  std::vector<std::string> path;
  size_t start = 0;
  while (true) {
    const size_t dot = label.find('.', start);
    path.push_back(label.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) {
      return path;
    }
    start = dot + 1;
  }
}

// Where kube-apiserver's selectable-field sets (ToSelectableFields / GetAttrs of each registry)
// take a label's value from, in terms of the served JSON. Labels not listed read the dotted path.
void value_source(const Resource& resource, const std::string& label,
                  FieldSelector::ValueKind& kind, std::vector<std::string>& path) {
  using Kind = FieldSelector::ValueKind;
  kind = Kind::Text;
  path = split_path(label);
  const std::string& g = resource.group;
  const std::string& r = resource.resource;
  if (g.empty() && r == "pods") {
    if (label == "spec.hostNetwork") {
      kind = Kind::Bool;
    } else if (label == "status.podIP") {
      kind = Kind::FirstPodIP;
    } else if (label == "status.podIPs") {
      kind = Kind::Absent;  // accepted by the conversion, missing from the field set
    }
  } else if (g.empty() && r == "nodes" && label == "spec.unschedulable") {
    kind = Kind::Bool;
  } else if (g.empty() && r == "replicationcontrollers" && label == "status.replicas") {
    kind = Kind::Integer;
  } else if (g.empty() && r == "events") {
    if (label == "source") {
      path = {"source", "component"};
    } else if (label == "reportingComponent") {
      path = {"reportingComponent"};
    }
  } else if (g == "batch" && r == "jobs" && label == "status.successful") {
    kind = Kind::Integer;
    path = {"status", "succeeded"};
  }
}

const nlohmann::json* find_path(const nlohmann::json& object,
                                const std::vector<std::string>& path) {
  const nlohmann::json* at = &object;
  for (const auto& part : path) {
    if (!at->is_object()) {
      return nullptr;
    }
    auto it = at->find(part);
    if (it == at->end()) {
      return nullptr;
    }
    at = &*it;
  }
  return at;
}

// A string member of an object; "" when absent or of another type.
std::string string_field(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) {
    return v.get<std::string>();
  }
  if (v.is_boolean()) {
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_number_integer()) {
    return v.dump();
  }
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::optional<LabelSelector> LabelSelector::parse(std::string_view text, std::string& error) {
  Parser parser(text);
  auto requirements = parser.parse(error);
  if (!requirements) {
    return std::nullopt;
  }
  std::stable_sort(requirements->begin(), requirements->end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  LabelSelector selector;
  selector.requirements_ = std::move(*requirements);
  return selector;
}

std::optional<LabelSelector> LabelSelector::from_json(const nlohmann::json& selector,
                                                      std::string& error) {
  LabelSelector out;
  if (selector.is_null()) {
    out.nothing_ = true;
    return out;
  }
  if (!selector.is_object()) {
    error = "label selector must be an object";
    return std::nullopt;
  }
  const auto match_labels = selector.value("matchLabels", nlohmann::json());
  const auto match_expressions = selector.value("matchExpressions", nlohmann::json());
  if (!match_labels.is_null() && !match_labels.is_object()) {
    error = "matchLabels must be an object";
    return std::nullopt;
  }
  if (!match_expressions.is_null() && !match_expressions.is_array()) {
    error = "matchExpressions must be an array";
    return std::nullopt;
  }
  if (match_labels.is_object()) {
    for (auto it = match_labels.begin(); it != match_labels.end(); ++it) {
      if (!it.value().is_string()) {
        error = "matchLabels values must be strings";
        return std::nullopt;
      }
      std::vector<std::string> values{it.value().get<std::string>()};
      if (auto e = check_requirement(it.key(), LabelOperator::Equals, values); !e.empty()) {
        error = e;
        return std::nullopt;
      }
      out.requirements_.push_back({it.key(), LabelOperator::Equals, std::move(values)});
    }
  }
  if (match_expressions.is_array()) {
    for (const auto& expr : match_expressions) {
      if (!expr.is_object()) {
        error = "matchExpressions items must be objects";
        return std::nullopt;
      }
      const auto key = string_field(expr, "key");
      const auto op_name = string_field(expr, "operator");
      std::optional<std::vector<std::string>> values;
      if (auto v = expr.find("values"); v != expr.end() && v->is_array() && !v->empty()) {
        values.emplace();
        for (const auto& item : *v) {
          if (!item.is_string()) {
            error = "matchExpressions values must be strings";
            return std::nullopt;
          }
          values->push_back(item.get<std::string>());
        }
      }
      LabelOperator op;
      if (op_name == "In") {
        op = LabelOperator::In;
      } else if (op_name == "NotIn") {
        op = LabelOperator::NotIn;
      } else if (op_name == "Exists") {
        op = LabelOperator::Exists;
      } else if (op_name == "DoesNotExist") {
        op = LabelOperator::DoesNotExist;
      } else {
        error = go_quote(op_name) + " is not a valid label selector operator";
        return std::nullopt;
      }
      if (auto e = check_requirement(key, op, values); !e.empty()) {
        error = e;
        return std::nullopt;
      }
      out.requirements_.push_back({key, op, values.value_or(std::vector<std::string>{})});
    }
  }
  std::stable_sort(out.requirements_.begin(), out.requirements_.end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

std::string LabelSelector::to_string() const {
  std::vector<std::string> parts;
  for (const auto& r : requirements_) {
    auto values = r.values;
    std::sort(values.begin(), values.end());
    const std::string first = values.empty() ? std::string() : values.front();
    switch (r.op) {
      case LabelOperator::Exists:
        parts.push_back(r.key);
        break;
      case LabelOperator::DoesNotExist:
        parts.push_back("!" + r.key);
        break;
      case LabelOperator::In:
        parts.push_back(r.key + " in (" + join(values, ",") + ")");
        break;
      case LabelOperator::NotIn:
        parts.push_back(r.key + " notin (" + join(values, ",") + ")");
        break;
      case LabelOperator::Equals:
        parts.push_back(r.key + "=" + first);
        break;
      case LabelOperator::DoubleEquals:
        parts.push_back(r.key + "==" + first);
        break;
      case LabelOperator::NotEquals:
        parts.push_back(r.key + "!=" + first);
        break;
      case LabelOperator::GreaterThan:
        parts.push_back(r.key + ">" + first);
        break;
      case LabelOperator::LessThan:
        parts.push_back(r.key + "<" + first);
        break;
    }
  }
  return join(parts, ",");
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  if (nothing_) {
    return false;
  }
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const auto& r) { return requirement_matches(r, labels); });
}

std::optional<FieldSelector> FieldSelector::parse(std::string_view text, const Resource& resource,
                                                  std::string& error) {
  auto parts = split_terms(text);
  std::sort(parts.begin(), parts.end());
  std::vector<FieldRequirement> parsed;
  for (const auto& part : parts) {
    if (part.empty()) {
      continue;
    }
    FieldRequirement requirement;
    std::string raw_value;
    if (!split_term(part, requirement.field, requirement.op, raw_value)) {
      error = "invalid selector: '" + std::string(text) + "'; can't understand '" + part + "'";
      return std::nullopt;
    }
    if (!unescape_value(raw_value, requirement.value, error)) {
      return std::nullopt;
    }
    parsed.push_back(std::move(requirement));
  }

  const FieldSelectors& accepted = resource.field_selectors;
  static const std::vector<std::string> kDefaultLabels = {"metadata.name", "metadata.namespace"};
  const auto& labels = accepted.labels.empty() ? kDefaultLabels : accepted.labels;
  FieldSelector selector;
  for (auto& requirement : parsed) {
    if (auto alias = accepted.aliases.find(requirement.field); alias != accepted.aliases.end()) {
      requirement.field = alias->second;
    } else if (std::find(labels.begin(), labels.end(), requirement.field) == labels.end()) {
      error = unknown_label_error(resource, requirement.field);
      return std::nullopt;
    }
    Term term;
    value_source(resource, requirement.field, term.kind, term.path);
    term.requirement = std::move(requirement);
    selector.terms_.push_back(std::move(term));
  }
  return selector;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  for (const auto& term : terms_) {
    std::string value;
    switch (term.kind) {
      case ValueKind::Text:
      case ValueKind::Bool:
      case ValueKind::Integer:
        if (const auto* v = find_path(object, term.path); v != nullptr && !v->is_null()) {
          value = scalar_text(*v);
        } else if (term.kind == ValueKind::Bool) {
          value = "false";
        } else if (term.kind == ValueKind::Integer) {
          value = "0";
        }
        break;
      case ValueKind::FirstPodIP:
        if (const auto* ips = find_path(object, {"status", "podIPs"});
            ips != nullptr && ips->is_array() && !ips->empty()) {
          if (const auto* ip = find_path(ips->front(), {"ip"}); ip != nullptr) {
            value = scalar_text(*ip);
          }
        } else if (const auto* ip = find_path(object, {"status", "podIP"}); ip != nullptr) {
          value = scalar_text(*ip);
        }
        break;
      case ValueKind::Absent:
        break;
    }
    const bool equal = value == term.requirement.value;
    if (equal != (term.requirement.op == FieldOperator::Equals)) {
      return false;
    }
  }
  return true;
}

std::optional<std::string> FieldSelector::exact_name() const {
  for (const auto& term : terms_) {
    if (term.requirement.field == "metadata.name" && term.requirement.op == FieldOperator::Equals) {
      return term.requirement.value;
    }
  }
  return std::nullopt;
}

std::vector<FieldRequirement> FieldSelector::requirements() const {
  std::vector<FieldRequirement> out;
  out.reserve(terms_.size());
  for (const auto& term : terms_) {
    out.push_back(term.requirement);
  }
  return out;
}

}  // namespace apiserver::registry
