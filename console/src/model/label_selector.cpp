#include "console/model/label_selector.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

namespace console::model {

namespace {

// ---- Lexer ----------------------------------------------------------------------------------

enum class TokenKind {
  Identifier,
  Not,           // !
  Equals,        // =
  DoubleEquals,  // ==
  NotEquals,     // !=
  Greater,       // >
  Less,          // <
  In,            // in
  NotIn,         // notin
  Open,          // (
  Close,         // )
  Comma,         // ,
  End,
};

struct Token {
  TokenKind kind;
  std::string_view text;  // empty for End
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_symbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

TokenKind symbol_kind(char c) {
  switch (c) {
    case '!':
      return TokenKind::Not;
    case '=':
      return TokenKind::Equals;
    case '>':
      return TokenKind::Greater;
    case '<':
      return TokenKind::Less;
    case '(':
      return TokenKind::Open;
    case ')':
      return TokenKind::Close;
    default:
      return TokenKind::Comma;
  }
}

// Splits into tokens; always ends with End. Symbols take the longest match ("!=" before "!"), and
// a word runs until whitespace or a symbol, so "a=b" is three tokens.
std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (true) {
    while (i < text.size() && is_space(text[i])) {
      ++i;
    }
    if (i == text.size()) {
      tokens.push_back({TokenKind::End, {}});
      return tokens;
    }
    if (is_symbol(text[i])) {
      const std::string_view two = text.substr(i, 2);
      if (two == "!=" || two == "==") {
        tokens.push_back({two == "!=" ? TokenKind::NotEquals : TokenKind::DoubleEquals, two});
        i += 2;
      } else {
        tokens.push_back({symbol_kind(text[i]), text.substr(i, 1)});
        ++i;
      }
      continue;
    }
    const size_t start = i;
    while (i < text.size() && !is_space(text[i]) && !is_symbol(text[i])) {
      ++i;
    }
    const std::string_view word = text.substr(start, i - start);
    TokenKind kind = TokenKind::Identifier;
    if (word == "in") {
      kind = TokenKind::In;
    } else if (word == "notin") {
      kind = TokenKind::NotIn;
    }
    tokens.push_back({kind, word});
  }
}

// ---- Validation of keys and values ----------------------------------------------------------

constexpr size_t kMaxNameLength = 63;
constexpr size_t kMaxPrefixLength = 253;

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?
bool is_name_text(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// A lowercase RFC 1123 subdomain: dot-separated labels of [a-z0-9]([-a-z0-9]*[a-z0-9])?.
bool is_subdomain(std::string_view s) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back()) ||
        !std::all_of(label.begin(), label.end(),
                     [&](char c) { return lower_alnum(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

const char kNameRule[] =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

// Empty when `key` is a valid qualified name, else why not.
std::string key_problem(std::string_view key) {
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (name.find('/') != std::string_view::npos) {
      return "a qualified name is a name part with an optional prefix and one '/'";
    }
    if (prefix.empty()) {
      return "prefix part must be non-empty";
    }
    if (prefix.size() > kMaxPrefixLength) {
      return "prefix part must be no more than 253 characters";
    }
    if (!is_subdomain(prefix)) {
      return "prefix part must be a lowercase RFC 1123 subdomain";
    }
  }
  if (name.empty()) {
    return "name part must be non-empty";
  }
  if (name.size() > kMaxNameLength) {
    return "name part must be no more than 63 characters";
  }
  if (!is_name_text(name)) {
    return std::string("name part ") + kNameRule;
  }
  return {};
}

std::string value_problem(std::string_view value) {
  if (value.size() > kMaxNameLength) {
    return "must be no more than 63 characters";
  }
  if (!value.empty() && !is_name_text(value)) {
    return std::string("must be empty or ") + kNameRule;
  }
  return {};
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return value;
}

// ---- Parser ---------------------------------------------------------------------------------

std::string found(const Token& token, std::string_view expected) {
  return "found '" + std::string(token.text) + "', expected: " + std::string(expected);
}

// Recursive descent over the token list. Methods return false with error_ set on failure.
class Parser {
 public:
  explicit Parser(std::string_view text) : tokens_(tokenize(text)) {}

  bool parse(std::vector<LabelRequirement>& out) {
    while (true) {
      const TokenKind kind = peek_value();
      if (kind == TokenKind::End) {
        return true;
      }
      if (kind != TokenKind::Identifier && kind != TokenKind::Not) {
        return fail(found(tokens_[pos_], "!, identifier, or 'end of string'"));
      }
      LabelRequirement requirement;
      if (!parse_requirement(requirement)) {
        error_ = "unable to parse requirement: " + error_;
        return false;
      }
      out.push_back(std::move(requirement));
      const Token& after = tokens_[pos_++];
      if (after.kind == TokenKind::End) {
        return true;
      }
      if (after.kind != TokenKind::Comma) {
        return fail(found(after, "',' or 'end of string'"));
      }
      const TokenKind next = peek_value();
      if (next != TokenKind::Identifier && next != TokenKind::Not) {
        return fail(found(tokens_[pos_], "identifier after ','"));
      }
    }
  }

  const std::string& error() const { return error_; }

 private:
  // Where a key or value may stand, the keywords are plain words.
  static TokenKind as_value(TokenKind kind) {
    return kind == TokenKind::In || kind == TokenKind::NotIn ? TokenKind::Identifier : kind;
  }
  TokenKind peek_value() const { return as_value(tokens_[pos_].kind); }
  // Never moves past End, so callers may keep reading after it.
  const Token& take() {
    const Token& token = tokens_[pos_];
    if (token.kind != TokenKind::End) {
      ++pos_;
    }
    return token;
  }

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool parse_requirement(LabelRequirement& r) {
    bool negated = false;
    const Token* key = &take();
    if (key->kind == TokenKind::Not) {
      negated = true;
      key = &take();
    }
    if (as_value(key->kind) != TokenKind::Identifier) {
      return fail(found(*key, "identifier"));
    }
    if (std::string problem = key_problem(key->text); !problem.empty()) {
      return fail("invalid label key \"" + std::string(key->text) + "\": " + problem);
    }
    r.key = std::string(key->text);
    if (negated) {
      r.op = LabelOperator::DoesNotExist;
      return true;
    }
    if (peek_value() == TokenKind::End || peek_value() == TokenKind::Comma) {
      r.op = LabelOperator::Exists;
      return true;
    }
    const Token& op = take();
    switch (op.kind) {
      case TokenKind::Equals:
      case TokenKind::DoubleEquals:
        r.op = LabelOperator::Equals;
        break;
      case TokenKind::NotEquals:
        r.op = LabelOperator::NotEquals;
        break;
      case TokenKind::Greater:
        r.op = LabelOperator::GreaterThan;
        break;
      case TokenKind::Less:
        r.op = LabelOperator::LessThan;
        break;
      case TokenKind::In:
        r.op = LabelOperator::In;
        break;
      case TokenKind::NotIn:
        r.op = LabelOperator::NotIn;
        break;
      default:
        return fail(found(op, "=, ==, !=, in, notin, >, <"));
    }
    const bool set_operator = r.op == LabelOperator::In || r.op == LabelOperator::NotIn;
    if (!(set_operator ? parse_value_set(r.values) : parse_exact_value(r.values))) {
      return false;
    }
    if (r.op == LabelOperator::GreaterThan || r.op == LabelOperator::LessThan) {
      if (!parse_int(r.values.front())) {
        return fail("for '>' and '<' the value must be an integer, found '" + r.values.front() +
                    "'");
      }
    }
    for (const std::string& value : r.values) {
      if (std::string problem = value_problem(value); !problem.empty()) {
        return fail("invalid label value \"" + value + "\": " + problem);
      }
    }
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
    return true;
  }

  // After =, ==, !=, > or <: one word, or nothing (the empty value) before ',' or the end.
  bool parse_exact_value(std::vector<std::string>& values) {
    if (peek_value() == TokenKind::End || peek_value() == TokenKind::Comma) {
      values.emplace_back();
      return true;
    }
    const Token& value = take();
    if (as_value(value.kind) != TokenKind::Identifier) {
      return fail(found(value, "identifier"));
    }
    values.emplace_back(value.text);
    return true;
  }

  // After in or notin: "(" then words separated by commas, where a missing word is the empty
  // value, so "()" and "(a,)" both hold "".
  bool parse_value_set(std::vector<std::string>& values) {
    const Token& open = take();
    if (open.kind != TokenKind::Open) {
      return fail(found(open, "'('"));
    }
    bool expect_value = true;
    while (true) {
      const Token& token = take();
      const TokenKind kind = as_value(token.kind);
      if (kind == TokenKind::Identifier && expect_value) {
        values.emplace_back(token.text);
        expect_value = false;
      } else if (kind == TokenKind::Comma) {
        if (expect_value) {
          values.emplace_back();
        }
        expect_value = true;
      } else if (kind == TokenKind::Close) {
        if (expect_value) {
          values.emplace_back();
        }
        return true;
      } else {
        return fail(found(token, expect_value ? "',', ')' or identifier" : "',' or ')'"));
      }
    }
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string error_;
};

const std::string* label_value(const nlohmann::json& labels, const std::string& key) {
  if (!labels.is_object()) {
    return nullptr;
  }
  const auto it = labels.find(key);
  if (it == labels.end() || !it->is_string()) {
    return nullptr;
  }
  return it->get_ptr<const std::string*>();
}

bool contains(const std::vector<std::string>& sorted, const std::string& value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

}  // namespace

bool LabelRequirement::matches(const nlohmann::json& labels) const {
  const std::string* value = label_value(labels, key);
  switch (op) {
    case LabelOperator::Exists:
      return value != nullptr;
    case LabelOperator::DoesNotExist:
      return value == nullptr;
    case LabelOperator::Equals:
    case LabelOperator::In:
      return value != nullptr && contains(values, *value);
    case LabelOperator::NotEquals:
    case LabelOperator::NotIn:
      return value == nullptr || !contains(values, *value);
    case LabelOperator::GreaterThan:
    case LabelOperator::LessThan: {
      if (value == nullptr || values.size() != 1) {
        return false;
      }
      const std::optional<int64_t> have = parse_int(*value);
      const std::optional<int64_t> bound = parse_int(values.front());
      if (!have || !bound) {
        return false;
      }
      return op == LabelOperator::GreaterThan ? *have > *bound : *have < *bound;
    }
  }
  return false;
}

common::Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  Parser parser(text);
  LabelSelector selector;
  if (!parser.parse(selector.requirements_)) {
    return parser.error();
  }
  return selector;
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const LabelRequirement& r) { return r.matches(labels); });
}

bool LabelSelector::has_operator() const {
  return std::any_of(requirements_.begin(), requirements_.end(),
                     [](const LabelRequirement& r) { return r.op != LabelOperator::Exists; });
}

}  // namespace console::model
