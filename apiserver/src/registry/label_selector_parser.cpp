// LabelSelector::parse: the labelSelector lexer and parser (same grammar and error texts as
// labels.Parse).
#include "registry/selectors.h"

#include "registry/label_requirements.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace apiserver::registry {
namespace {

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

}  // namespace

common::Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  Parser parser(text);
  std::string error;
  auto requirements = parser.parse(error);
  if (!requirements) {
    return error;
  }
  std::stable_sort(requirements->begin(), requirements->end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  LabelSelector selector;
  selector.requirements_ = std::move(*requirements);
  return selector;
}

}  // namespace apiserver::registry
