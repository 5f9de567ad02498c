#include "console/model/yaml_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "common/go_quote.h"

namespace console::model {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Words YAML 1.1 readers (kubectl's among them) take for booleans or null.
bool is_reserved_word(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kWords = {
      "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".inf", ".nan"};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&](std::string_view word) { return equals_ignoring_case(s, word); }) ||
         equals_ignoring_case(s, "-.inf") || equals_ignoring_case(s, "+.inf");
}

// Text a YAML reader could take for a number (ints, floats, hex/octal/binary, sexagesimal) or a
// timestamp (it starts like a date: 2024-6-1). Errs towards quoting.
bool looks_numeric_or_date(std::string_view s) {
  if (s.size() >= 8 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
      s[4] == '-') {
    return true;
  }
  std::string_view body = s;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    body.remove_prefix(1);
  }
  if (body.empty() || !(is_digit(body.front()) || body.front() == '.')) {
    return false;
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
    return std::all_of(body.begin() + 2, body.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  }
  return std::any_of(body.begin(), body.end(), is_digit) &&
         std::all_of(body.begin(), body.end(), [](char c) {
           return is_digit(c) || c == '_' || c == '.' || c == ':' || c == 'e' || c == 'E' ||
                  c == '+' || c == '-';
         });
}

bool has_control_character(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// True when `s` reads back as the same string without quotes.
bool plain_ok(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || has_control_character(s)) {
    return false;
  }
  // A leading '-' is plain when it cannot start a sequence entry or a document marker ("-c").
  const bool dash_ok = s.size() > 1 && s[0] == '-' && s[1] != ' ' && !s.starts_with("---");
  static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (kIndicators.find(s.front()) != std::string_view::npos && !dash_ok) {
    return false;
  }
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos ||
      s.back() == ':' || s.starts_with("...")) {
    return false;  // "..." would end the document when it stands at the start of a line
  }
  return !is_reserved_word(s) && !looks_numeric_or_date(s);
}

// Multi-line text without other control characters reads best as a literal block, unless its
// first non-empty line starts with a space (that needs an explicit indentation indicator) or it
// is nothing but newlines.
bool literal_block_ok(std::string_view s) {
  const size_t first = s.find_first_not_of('\n');
  if (s.find('\n') == std::string_view::npos || first == std::string_view::npos ||
      s[first] == ' ') {
    return false;
  }
  return std::none_of(s.begin(), s.end(), [](char c) {
    return c != '\n' && (static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
  });
}

// "|" keeps one final newline, "|-" none, "|+" all of them. Lines go at `indent`; the text ends
// with a newline.
std::string literal_block(std::string_view s, size_t indent) {
  size_t trailing = 0;
  while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') {
    ++trailing;
  }
  std::string out = trailing == 0 ? "|-" : (trailing == 1 ? "|" : "|+");
  out += '\n';
  const std::string_view body = s.substr(0, s.size() - std::min<size_t>(trailing, 1));
  size_t start = 0;
  while (start <= body.size()) {
    const size_t end = std::min(body.find('\n', start), body.size());
    const std::string_view line = body.substr(start, end - start);
    if (!line.empty()) {
      out.append(indent, ' ');
      out += line;
    }
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string key_text(const std::string& key) {
  return plain_ok(key) ? key : common::c_quote(key);
}

class Writer {
 public:
  Writer(std::string& out, const nlohmann::json* folded_metadata)
      : out_(out), folded_metadata_(folded_metadata) {}

  void value(const nlohmann::json& v, size_t indent) {
    if (is_block(v)) {
      block(v, indent, false);
    } else {
      scalar(v, indent + 2);
    }
  }

 private:
  static bool is_block(const nlohmann::json& v) {
    return (v.is_object() || v.is_array()) && !v.empty();
  }

  // A non-empty object or array whose first line starts at the cursor when `inline_first` (after
  // "- "), otherwise at `indent`.
  void block(const nlohmann::json& v, size_t indent, bool inline_first) {
    bool first = true;
    if (v.is_object()) {
      for (const auto& [key, item] : v.items()) {
        if (!(first && inline_first)) {
          out_.append(indent, ' ');
        }
        first = false;
        if (&v == folded_metadata_ && key == "managedFields") {
          const size_t count = item.is_array() ? item.size() : 1;
          out_ += "# managedFields: " + std::to_string(count) +
                  (count == 1 ? " entry" : " entries") + " (folded)\n";
          continue;
        }
        out_ += key_text(key);
        out_ += ':';
        if (item.is_object() && !item.empty()) {
          out_ += '\n';
          block(item, indent + 2, false);
        } else if (item.is_array() && !item.empty()) {
          out_ += '\n';
          block(item, indent, false);
        } else {
          out_ += ' ';
          scalar(item, indent + 2);
        }
      }
      return;
    }
    for (const nlohmann::json& item : v) {
      if (!(first && inline_first)) {
        out_.append(indent, ' ');
      }
      first = false;
      out_ += "- ";
      if (is_block(item)) {
        block(item, indent + 2, true);
      } else {
        scalar(item, indent + 2);
      }
    }
  }

  // Also {} and []. Continuation lines of a literal block go at `indent`. Ends the line.
  void scalar(const nlohmann::json& v, size_t indent) {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (plain_ok(s)) {
        out_ += s;
      } else if (literal_block_ok(s)) {
        out_ += literal_block(s, indent);
        return;
      } else {
        out_ += common::c_quote(s);
      }
    } else if (v.is_object()) {
      out_ += "{}";
    } else if (v.is_array()) {
      out_ += "[]";
    } else {
      out_ += v.dump();
    }
    out_ += '\n';
  }

  std::string& out_;
  const nlohmann::json* folded_metadata_;
};

}  // namespace

std::string to_yaml(const nlohmann::json& value, ManagedFields managed_fields) {
  const nlohmann::json* folded = nullptr;
  if (managed_fields == ManagedFields::Fold && value.is_object()) {
    const auto metadata = value.find("metadata");
    if (metadata != value.end() && metadata->is_object()) {
      folded = &*metadata;
    }
  }
  std::string out;
  Writer(out, folded).value(value, 0);
  return out;
}

}  // namespace console::model
