#include "common/go_numbers.h"

#include <charconv>
#include <limits>

#include "common/go_quote.h"

namespace common {
namespace {

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

GoAtoi go_atoi(std::string_view text) {
  GoAtoi out;
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    digits.remove_prefix(1);
  }
  bool syntax = !digits.empty();
  for (char c : digits) {
    syntax = syntax && is_digit(c);
  }
  if (!syntax) {
    out.error = "strconv.Atoi: parsing " + go_quote(text) + ": invalid syntax";
    return out;
  }
  // from_chars takes the '-' but not a '+'.
  const char* first = negative ? text.data() : digits.data();
  const auto parsed = std::from_chars(first, text.data() + text.size(), out.value);
  if (parsed.ec == std::errc::result_out_of_range) {
    out.value =
        negative ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    out.error = "strconv.Atoi: parsing " + go_quote(text) + ": value out of range";
  }
  return out;
}

// Go's time.ParseDuration, step by step: every number is checked against int64 nanoseconds
// before it grows, so no input overflows or throws.
Result<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  auto invalid = [&]() -> Result<std::chrono::nanoseconds> {
    return "time: invalid duration " + go_time_quote(text);
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
      return "time: missing unit in duration " + go_time_quote(text);
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
      return "time: unknown unit " + go_time_quote(unit_name) + " in duration " +
             go_time_quote(text);
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

}  // namespace common
