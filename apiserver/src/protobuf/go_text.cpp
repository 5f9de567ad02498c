// Go's text for decoded values: the JSON encoder's UTF-8 repair and time.Duration.String().
#include "protobuf/go_text.h"

#include <cstddef>

namespace apiserver::protobuf::detail {

// Go's JSON encoder writes invalid UTF-8 as U+FFFD; doing the same here also keeps
// nlohmann::json::dump from throwing later.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    std::size_t len = 0;
    std::uint32_t min = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    }
    bool ok = len != 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<std::uint8_t>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = cp << 6 | (cc & 0x3F);
    }
    ok = ok && cp >= min && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

// Go's time.Duration.String().
std::string go_duration(std::int64_t nanos) {
  if (nanos == 0) {
    return "0s";
  }
  const bool negative = nanos < 0;
  std::uint64_t u =
      negative ? 0 - static_cast<std::uint64_t>(nanos) : static_cast<std::uint64_t>(nanos);
  // Fraction digits of v / 10^prec without trailing zeros, then the integer part.
  auto with_fraction = [](std::uint64_t v, int prec) {
    std::string frac;
    bool printed = false;
    for (int i = 0; i < prec; ++i) {
      const auto digit = static_cast<char>('0' + v % 10);
      printed = printed || digit != '0';
      if (printed) {
        frac.insert(frac.begin(), digit);
      }
      v /= 10;
    }
    return std::to_string(v) + (frac.empty() ? "" : "." + frac);
  };
  std::string out;
  if (u < 1000000000ULL) {
    if (u < 1000ULL) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000ULL) {
      out = with_fraction(u, 3) + "\xC2\xB5s";
    } else {
      out = with_fraction(u, 6) + "ms";
    }
  } else {
    out = with_fraction(u % 60000000000ULL, 9) + "s";
    u /= 60000000000ULL;
    if (u > 0) {
      out = std::to_string(u % 60) + "m" + out;
      u /= 60;
      if (u > 0) {
        out = std::to_string(u) + "h" + out;
      }
    }
  }
  return negative ? "-" + out : out;
}

}  // namespace apiserver::protobuf::detail
