#include "apiserver/http.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "common/go_quote.h"

namespace apiserver::http {

bool CaseInsensitiveLess::operator()(const std::string& a, const std::string& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string Request::query_value(const std::string& name, const std::string& fallback) const {
  auto it = query.find(name);
  return it == query.end() || it->second.empty() ? fallback : it->second.front();
}

std::string Request::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

void Response::set_header(const std::string& name, const std::string& value) {
  CaseInsensitiveLess less;
  for (auto& [k, v] : headers) {
    if (!less(k, name) && !less(name, k)) {
      v = value;
      return;
    }
  }
  headers.emplace_back(name, value);
}

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// Decodes into `out`; false at the first malformed escape when `strict`, else it is kept.
bool decode_escapes(std::string_view s, bool plus_is_space, bool strict, std::string& out) {
  out.clear();
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      int high = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
      int low = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
      if (strict) {
        return false;
      }
      out.push_back(c);
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

constexpr uint64_t kMaxDuration = uint64_t{1} << 63;  // one past int64's largest nanoseconds

struct DurationUnit {
  std::string_view name;
  uint64_t nanoseconds;
};
constexpr DurationUnit kUnits[] = {
    {"ns", 1},
    {"us", 1000},
    {"\xc2\xb5s", 1000},  // U+00B5 MICRO SIGN
    {"\xce\xbcs", 1000},  // U+03BC GREEK SMALL LETTER MU
    {"ms", 1000 * 1000},
    {"s", 1000 * 1000 * 1000},
    {"m", uint64_t{60} * 1000 * 1000 * 1000},
    {"h", uint64_t{3600} * 1000 * 1000 * 1000},
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::optional<std::string> unescape(std::string_view s, bool plus_is_space) {
  std::string out;
  if (!decode_escapes(s, plus_is_space, true, out)) {
    return std::nullopt;
  }
  return out;
}

std::string query_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += c;
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

std::string percent_decode(const std::string& s, bool plus_is_space) {
  std::string out;
  decode_escapes(s, plus_is_space, false, out);
  return out;
}

std::map<std::string, std::vector<std::string>> parse_query(const std::string& query) {
  std::map<std::string, std::vector<std::string>> out;
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) {
      end = query.size();
    }
    std::string_view part = std::string_view(query).substr(start, end - start);
    start = end + 1;
    if (part.empty() || part.find(';') != std::string_view::npos) {
      continue;
    }
    size_t eq = part.find('=');
    auto key = unescape(part.substr(0, eq), true);
    auto value =
        unescape(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), true);
    if (key && value) {
      out[*key].push_back(std::move(*value));
    }
  }
  return out;
}

// Go's time.ParseDuration, step by step: every number is checked against int64 nanoseconds
// before it grows, so no input overflows or throws.
common::Result<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  auto invalid = [&]() -> common::Result<std::chrono::nanoseconds> {
    return "time: invalid duration " + common::go_time_quote(text);
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    return std::chrono::nanoseconds(0);
  }
  if (s.empty()) {
    return invalid();
  }
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) {
      return invalid();
    }
    size_t digits = 0;
    while (digits < s.size() && is_digit(s[digits])) {
      ++digits;
    }
    uint64_t whole = 0;
    if (digits > 0) {
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + digits, whole);
      if (ec != std::errc() || whole > kMaxDuration) {
        return invalid();
      }
    }
    s.remove_prefix(digits);
    // The fraction keeps the digits that fit and ignores the rest, as Go does.
    uint64_t fraction = 0;
    double scale = 1;
    bool fraction_digits = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool full = false;
      while (!s.empty() && is_digit(s[0])) {
        fraction_digits = true;
        uint64_t digit = static_cast<uint64_t>(s[0] - '0');
        s.remove_prefix(1);
        if (full || fraction > (kMaxDuration - 1) / 10 || fraction * 10 + digit > kMaxDuration) {
          full = true;
          continue;
        }
        fraction = fraction * 10 + digit;
        scale *= 10;
      }
    }
    if (digits == 0 && !fraction_digits) {
      return invalid();  // ".s", "-.s"
    }
    size_t unit_length = 0;
    while (unit_length < s.size() && s[unit_length] != '.' && !is_digit(s[unit_length])) {
      ++unit_length;
    }
    if (unit_length == 0) {
      return "time: missing unit in duration " + common::go_time_quote(text);
    }
    std::string_view unit_name = s.substr(0, unit_length);
    s.remove_prefix(unit_length);
    const DurationUnit* unit = nullptr;
    for (const auto& u : kUnits) {
      if (u.name == unit_name) {
        unit = &u;
      }
    }
    if (unit == nullptr) {
      return "time: unknown unit " + common::go_time_quote(unit_name) + " in duration " +
             common::go_time_quote(text);
    }
    if (whole > kMaxDuration / unit->nanoseconds) {
      return invalid();
    }
    uint64_t value = whole * unit->nanoseconds;
    if (fraction > 0) {
      // Below one unit, so at most 3.6e12 ns: the conversion cannot overflow.
      value += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(unit->nanoseconds) / scale));
      if (value > kMaxDuration) {
        return invalid();
      }
    }
    total += value;  // both at most 2^63: no wrap in 64 bits
    if (total > kMaxDuration) {
      return invalid();
    }
  }
  if (negative) {
    // -2^63 is int64's smallest value; the rest negate as they are.
    return std::chrono::nanoseconds(total == kMaxDuration ? std::numeric_limits<int64_t>::min()
                                                          : -static_cast<int64_t>(total));
  }
  if (total > kMaxDuration - 1) {
    return invalid();
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

}  // namespace apiserver::http
