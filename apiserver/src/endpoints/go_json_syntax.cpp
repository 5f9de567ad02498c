#include "endpoints/go_json_syntax.h"

#include <vector>

#include "registry/go_text.h"

namespace apiserver::endpoints {
namespace {

bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_hex(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}

// What an open array or object waits for next.
enum class Open { ObjectKey, ObjectValue, ArrayValue };

enum class State {
  BeginValue,          // a value must start here
  BeginValueOrEmpty,   // after '[': a value or ']'
  BeginStringOrEmpty,  // after '{': a key or '}'
  BeginString,         // after ',' in an object: a key
  EndValue,            // a value just ended
  EndTop,              // the top-level value ended: only white space may follow
  InString,
  InStringEsc,
  InStringEscU,  // `u_count` hex digits seen so far
  Neg,           // after '-'
  Int,           // after a non-zero leading digit
  Zero,          // after a leading '0'
  Dot,           // after '.'
  Fraction,      // after '.' and a digit
  Exp,           // after 'e' or 'E'
  ExpSign,       // after the exponent's sign
  ExpDigits,     // after an exponent digit
  Literal,       // inside true, false or null
};

class Scanner {
 public:
  // Feeds one byte; false once an error is recorded.
  bool step(unsigned char c) {
    while (true) {
      switch (state_) {
        case State::BeginValueOrEmpty:
          if (is_space(c)) {
            return true;
          }
          if (c == ']') {
            state_ = State::EndValue;
            continue;
          }
          state_ = State::BeginValue;
          continue;
        case State::BeginValue:
          return begin_value(c);
        case State::BeginStringOrEmpty:
          if (is_space(c)) {
            return true;
          }
          if (c == '}') {
            stack_.back() = Open::ObjectValue;
            state_ = State::EndValue;
            continue;
          }
          state_ = State::BeginString;
          continue;
        case State::BeginString:
          if (is_space(c)) {
            return true;
          }
          if (c == '"') {
            state_ = State::InString;
            return true;
          }
          return fail(c, "looking for beginning of object key string");
        case State::EndValue:
          return end_value(c);
        case State::EndTop:
          if (!is_space(c)) {
            return fail(c, "after top-level value");
          }
          return true;
        case State::InString:
          if (c == '"') {
            state_ = State::EndValue;
          } else if (c == '\\') {
            state_ = State::InStringEsc;
          } else if (c < 0x20) {
            return fail(c, "in string literal");
          }
          return true;
        case State::InStringEsc:
          if (c == 'u') {
            state_ = State::InStringEscU;
            u_count_ = 0;
            return true;
          }
          if (c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't' || c == '\\' || c == '/' ||
              c == '"') {
            state_ = State::InString;
            return true;
          }
          return fail(c, "in string escape code");
        case State::InStringEscU:
          if (!is_hex(c)) {
            return fail(c, "in \\u hexadecimal character escape");
          }
          if (++u_count_ == 4) {
            state_ = State::InString;
          }
          return true;
        case State::Neg:
          if (c == '0') {
            state_ = State::Zero;
            return true;
          }
          if (c >= '1' && c <= '9') {
            state_ = State::Int;
            return true;
          }
          return fail(c, "in numeric literal");
        case State::Int:
          if (is_digit(c)) {
            return true;
          }
          state_ = State::Zero;
          continue;
        case State::Zero:
          if (c == '.') {
            state_ = State::Dot;
            return true;
          }
          if (c == 'e' || c == 'E') {
            state_ = State::Exp;
            return true;
          }
          state_ = State::EndValue;
          continue;
        case State::Dot:
          if (is_digit(c)) {
            state_ = State::Fraction;
            return true;
          }
          return fail(c, "after decimal point in numeric literal");
        case State::Fraction:
          if (is_digit(c)) {
            return true;
          }
          if (c == 'e' || c == 'E') {
            state_ = State::Exp;
            return true;
          }
          state_ = State::EndValue;
          continue;
        case State::Exp:
          if (c == '+' || c == '-') {
            state_ = State::ExpSign;
            return true;
          }
          state_ = State::ExpSign;
          continue;
        case State::ExpSign:
          if (is_digit(c)) {
            state_ = State::ExpDigits;
            return true;
          }
          return fail(c, "in exponent of numeric literal");
        case State::ExpDigits:
          if (is_digit(c)) {
            return true;
          }
          state_ = State::EndValue;
          continue;
        case State::Literal:
          if (c != literal_[literal_pos_]) {
            return fail(c, "in literal " + std::string(literal_) + " (expecting " +
                               go_quote_char(static_cast<unsigned char>(literal_[literal_pos_])) +
                               ")");
          }
          if (literal_[++literal_pos_] == '\0') {
            state_ = State::EndValue;
          }
          return true;
      }
    }
  }

  // The end of input: Go feeds one more space, so an unfinished literal or number reports it.
  std::optional<std::string> finish() {
    if (error_) {
      return error_;
    }
    if (state_ == State::EndTop) {
      return std::nullopt;
    }
    step(' ');
    if (error_) {
      return error_;
    }
    if (state_ == State::EndTop) {
      return std::nullopt;
    }
    return std::string("unexpected end of JSON input");
  }

  const std::optional<std::string>& error() const { return error_; }

 private:
  bool begin_value(unsigned char c) {
    if (is_space(c)) {
      return true;
    }
    switch (c) {
      case '{':
        state_ = State::BeginStringOrEmpty;
        return push(c, Open::ObjectKey);
      case '[':
        state_ = State::BeginValueOrEmpty;
        return push(c, Open::ArrayValue);
      case '"':
        state_ = State::InString;
        return true;
      case '-':
        state_ = State::Neg;
        return true;
      case '0':
        state_ = State::Zero;
        return true;
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        break;
    }
    if (c >= '1' && c <= '9') {
      state_ = State::Int;
      return true;
    }
    return fail(c, "looking for beginning of value");
  }

  bool end_value(unsigned char c) {
    if (stack_.empty()) {
      state_ = State::EndTop;
      return step(c);
    }
    if (is_space(c)) {
      return true;
    }
    Open& open = stack_.back();
    switch (open) {
      case Open::ObjectKey:
        if (c == ':') {
          open = Open::ObjectValue;
          state_ = State::BeginValue;
          return true;
        }
        return fail(c, "after object key");
      case Open::ObjectValue:
        if (c == ',') {
          open = Open::ObjectKey;
          state_ = State::BeginString;
          return true;
        }
        if (c == '}') {
          pop();
          return true;
        }
        return fail(c, "after object key:value pair");
      case Open::ArrayValue:
        if (c == ',') {
          state_ = State::BeginValue;
          return true;
        }
        if (c == ']') {
          pop();
          return true;
        }
        return fail(c, "after array element");
    }
    return fail(c, "");
  }

  bool literal(const char* word) {
    literal_ = word;
    literal_pos_ = 1;
    state_ = State::Literal;
    return true;
  }

  bool push(unsigned char c, Open open) {
    stack_.push_back(open);
    if (stack_.size() > kGoMaxNestingDepth) {
      return fail(c, "exceeded max depth");
    }
    return true;
  }

  void pop() {
    stack_.pop_back();
    state_ = stack_.empty() ? State::EndTop : State::EndValue;
  }

  bool fail(unsigned char c, const std::string& context) {
    if (!error_) {
      error_ = "invalid character " + go_quote_char(c) + " " + context;
    }
    return false;
  }

  State state_ = State::BeginValue;
  std::vector<Open> stack_;
  const char* literal_ = "";
  size_t literal_pos_ = 0;
  int u_count_ = 0;
  std::optional<std::string> error_;
};

}  // namespace

std::string go_quote_char(unsigned char c) {
  if (c == '\'') {
    return "'\\''";
  }
  if (c == '"') {
    return "'\"'";
  }
  std::string rune;
  registry::append_utf8(rune, c);
  std::string quoted = registry::go_quote(rune);
  return "'" + quoted.substr(1, quoted.size() - 2) + "'";
}

std::optional<std::string> go_json_syntax_error(std::string_view data) {
  Scanner scanner;
  for (char c : data) {
    if (!scanner.step(static_cast<unsigned char>(c))) {
      return scanner.error();
    }
  }
  return scanner.finish();
}

}  // namespace apiserver::endpoints
