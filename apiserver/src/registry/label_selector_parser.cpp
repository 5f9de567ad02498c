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

  common::Result<std::vector<LabelRequirement>> parse() {
    std::vector<LabelRequirement> requirements;
    while (true) {
      const auto [token, literal] = lookahead(kValues);
      if (token == Token::EndOfString) {
        return requirements;
      }
      if (token != Token::Identifier && token != Token::DoesNotExist) {
        return "found '" + literal + "', expected: !, identifier, or 'end of string'";
      }
      auto requirement = parse_requirement();
      if (!requirement) {
        return "unable to parse requirement: " + requirement.error();
      }
      requirements.push_back(std::move(*requirement));
      const auto [next, next_literal] = consume(kValues);
      if (next == Token::EndOfString) {
        return requirements;
      }
      if (next != Token::Comma) {
        return "found '" + next_literal + "', expected: ',' or 'end of string'";
      }
      const auto [after, after_literal] = lookahead(kValues);
      if (after != Token::Identifier && after != Token::DoesNotExist) {
        return "found '" + after_literal + "', expected: identifier after ','";
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

  common::Result<LabelRequirement> parse_requirement() {
    LabelRequirement r;
    std::optional<LabelOperator> op;
    auto [token, literal] = consume(kValues);
    if (token == Token::DoesNotExist) {
      op = LabelOperator::DoesNotExist;
      std::tie(token, literal) = consume(kValues);
    }
    if (token != Token::Identifier) {
      return "found '" + literal + "', expected: identifier";
    }
    if (auto e = validate_label_key(literal, "<nil>"); !e.empty()) {
      return e;
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
      return finish(std::move(r), {});
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
        return "found '" + op_literal + "', expected: in, notin, =, ==, !=, gt, lt";
    }
    auto values = (r.op == LabelOperator::In || r.op == LabelOperator::NotIn) ? parse_values()
                                                                              : parse_exact_value();
    if (!values) {
      return values.error();
    }
    return finish(std::move(r), std::vector<std::string>(values->begin(), values->end()));
  }

  static common::Result<LabelRequirement> finish(LabelRequirement r,
                                                 std::vector<std::string> values) {
    if (auto e = check_requirement(r.key, r.op, values); !e.empty()) {
      return e;
    }
    r.values = std::move(values);
    return r;
  }

  // "(a, b, ...)": empty members count as the empty value.
  common::Result<std::set<std::string>> parse_values() {
    const auto [open, open_literal] = consume(kValues);
    if (open != Token::OpenPar) {
      return "found '" + open_literal + "' expected: '('";
    }
    std::set<std::string> values;
    const auto [first, first_literal] = lookahead(kValues);
    if (first == Token::ClosedPar) {
      consume(kValues);
      values.insert("");
      return values;
    }
    if (first != Token::Identifier && first != Token::Comma) {
      return "found '" + first_literal + "', expected: ',', ')' or identifier";
    }
    if (auto error = parse_identifiers(values)) {
      return std::move(*error);
    }
    if (consume(kValues).first != Token::ClosedPar) {
      return "found '" + first_literal + "', expected: ')'";
    }
    return values;
  }

  // Adds the identifiers up to the closing parenthesis to `values`; the error on anything else.
  std::optional<std::string> parse_identifiers(std::set<std::string>& values) {
    while (true) {
      const auto [token, literal] = consume(kValues);
      if (token == Token::Identifier) {
        values.insert(literal);
        const auto [next, next_literal] = lookahead(kValues);
        if (next == Token::Comma) {
          continue;
        }
        if (next == Token::ClosedPar) {
          return std::nullopt;
        }
        return "found '" + next_literal + "', expected: ',' or ')'";
      }
      if (token == Token::Comma) {
        if (values.empty()) {
          values.insert("");  // "(,"
        }
        const Token next = lookahead(kValues).first;
        if (next == Token::ClosedPar) {
          values.insert("");  // ",)"
          return std::nullopt;
        }
        if (next == Token::Comma) {
          consume(kValues);
          values.insert("");  // ",,"
        }
        continue;
      }
      return "found '" + literal + "', expected: ',', or identifier";
    }
  }

  // The one value after =, ==, !=, gt or lt (empty when there is none).
  common::Result<std::set<std::string>> parse_exact_value() {
    const Token next = lookahead(kValues).first;
    if (next == Token::EndOfString || next == Token::Comma) {
      return std::set<std::string>{""};
    }
    const auto [token, literal] = consume(kValues);
    if (token == Token::Identifier) {
      return std::set<std::string>{literal};
    }
    return "found '" + literal + "', expected: identifier";
  }

  std::vector<Scanned> items_;
  size_t position_ = 0;
};

}  // namespace

common::Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  auto requirements = Parser(text).parse();
  if (!requirements) {
    return requirements.error();
  }
  std::stable_sort(requirements->begin(), requirements->end(),
                   [](const auto& a, const auto& b) { return a.key < b.key; });
  LabelSelector selector;
  selector.requirements_ = std::move(*requirements);
  return selector;
}

}  // namespace apiserver::registry
