// Go's strconv.Quote (the %q verb) rests on a few facts (read upstream, Go 1.22 strconv and
// unicode/utf8): a string is walked rune by rune as a range loop does; printable runes stay as they
// are, '\a' '\b' '\f' '\n' '\r' '\t' '\v' get their short escapes, other runes below U+0080 and
// U+007F get \xNN, other unprintable runes \uNNNN or \UNNNNNNNN, and every byte of invalid UTF-8
// \xNN. The time package's errors quote differently (see go_time_quote).
#include "common/go_quote.h"

#include <cstdio>

namespace common {

char32_t decode_rune(std::string_view s, std::size_t i, std::size_t& width) {
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
  width = static_cast<std::size_t>(n) + 1;
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
  if (r <= 0xA0 || r == 0xAD) {  // U+00A0 is a space separator, not printable
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
  for (std::size_t i = 0; i < s.size();) {
    std::size_t width = 1;
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
    } else if (r >= '\a' && r <= '\r') {  // \a \b \t \n \v \f \r, in code order
      out += '\\';
      out += "abtnvfr"[r - '\a'];
    } else if (r < 0x20 || r == 0x7F) {
      out += "\\x";
      out += kHex[(r >> 4) & 0xF];
      out += kHex[r & 0xF];
    } else {
      const int digits = r < 0x10000 ? 4 : 8;
      out += r < 0x10000 ? "\\u" : "\\U";
      for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
        out += kHex[(r >> shift) & 0xF];
      }
    }
  }
  out += '"';
  return out;
}

std::string go_time_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto byte = static_cast<unsigned char>(s[i]);
    if (byte >= 0x80 || byte < 0x20) {
      std::size_t width = 1;
      decode_rune(s, i, width);
      for (std::size_t j = 0; j < width; ++j) {
        const auto b = static_cast<unsigned char>(s[i + j]);
        out += "\\x";
        out += kHex[b >> 4];
        out += kHex[b & 0xF];
      }
      i += width;
      continue;
    }
    if (byte == '"' || byte == '\\') {
      out += '\\';
    }
    out += static_cast<char>(byte);
    ++i;
  }
  out += '"';
  return out;
}

std::string c_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace common
