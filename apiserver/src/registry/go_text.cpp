#include "registry/go_text.h"

namespace apiserver::registry {

char32_t decode_rune(std::string_view s, size_t i, size_t& width) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  width = 1;
  if (b0 < 0x80) {
    return b0;
  }
  int n = 0;
  char32_t r = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 1, r = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 2, r = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 3, r = b0 & 0x07, min = 0x10000;
  } else {
    return 0xFFFD;
  }
  for (int k = 1; k <= n; ++k) {
    if (i + k >= s.size()) {
      return 0xFFFD;
    }
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      return 0xFFFD;
    }
    r = (r << 6) | (b & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) {
    return 0xFFFD;
  }
  width = static_cast<size_t>(n) + 1;
  return r;
}

void append_utf8(std::string& out, char32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

// Approximates Go's unicode.IsPrint for non-ASCII runes: control, space-separator, format,
// line/paragraph-separator, private-use and noncharacter code points are not printable.
// Unassigned code points (printable here, escaped by Go) are the known gap.
namespace {

bool is_print_non_ascii(char32_t r) {
  if (r < 0xA0 || r == 0xAD) {
    return false;
  }
  if (r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
      (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF || r == 0x061C || r == 0x180E ||
      (r >= 0xFFF9 && r <= 0xFFFB)) {
    return false;
  }
  if ((r >= 0xE000 && r <= 0xF8FF) || r >= 0xF0000 || (r & 0xFFFE) == 0xFFFE ||
      (r >= 0xFDD0 && r <= 0xFDEF)) {
    return false;
  }
  return true;
}

}  // namespace

std::string go_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    size_t width = 1;
    const char32_t r = decode_rune(s, i, width);
    if (r == 0xFFFD && width == 1 && static_cast<unsigned char>(s[i]) >= 0x80) {
      const auto b = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
      i += 1;
      continue;
    }
    i += width;
    if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (r >= 0x20 && r < 0x7F) {
      out += static_cast<char>(r);
    } else if (r >= 0x80 && is_print_non_ascii(r)) {
      append_utf8(out, r);
    } else {
      switch (r) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (r < 0x20 || r == 0x7F) {
            out += "\\x";
            out += kHex[(r >> 4) & 0xF];
            out += kHex[r & 0xF];
          } else if (r < 0x10000) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) {
              out += kHex[(r >> shift) & 0xF];
            }
          } else {
            out += "\\U";
            for (int shift = 28; shift >= 0; shift -= 4) {
              out += kHex[(r >> shift) & 0xF];
            }
          }
      }
    }
  }
  out += '"';
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

std::string go_json_string(const std::string& s) {
  std::string out;
  for (char c : nlohmann::json(s).dump()) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string go_json_kind(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "bool";
    case nlohmann::json::value_t::null:
      return "null";
    default:
      return "number";
  }
}

std::string go_print(const nlohmann::json& value, bool sharp) {
  using nlohmann::json;
  // Without recursion (values may nest as deep as a request allows): one frame per open map or
  // slice, written in order.
  struct Frame {
    const json* value;
    json::const_iterator next;
  };
  std::string out;
  std::vector<Frame> stack;
  auto write = [&](const json& v) {
    switch (v.type()) {
      case json::value_t::object:
        // Go prints map keys sorted, as nlohmann::json keeps them.
        out += sharp ? "map[string]interface {}{" : "map[";
        stack.push_back({&v, v.begin()});
        break;
      case json::value_t::array:
        out += sharp ? "[]interface {}{" : "[";
        stack.push_back({&v, v.begin()});
        break;
      case json::value_t::string:
        out += sharp ? go_quote(v.get_ref<const std::string&>()) : v.get_ref<const std::string&>();
        break;
      case json::value_t::null:
        out += sharp ? "interface {}(nil)" : "<nil>";
        break;
      default:
        out += v.dump();
        break;
    }
  };
  write(value);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.value->end()) {
      out += sharp ? "}" : "]";
      stack.pop_back();
      continue;
    }
    if (f.next != f.value->begin()) {
      out += sharp ? ", " : " ";
    }
    if (f.value->is_object()) {
      out += sharp ? go_quote(f.next.key()) : f.next.key();
      out += ':';
    }
    const json& item = *f.next;
    ++f.next;
    write(item);  // may grow the stack: `f` is not used after this
  }
  return out;
}

}  // namespace apiserver::registry
