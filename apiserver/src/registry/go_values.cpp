// Facts followed here (read upstream: Go's time.Parse and apimachinery's resource.ParseQuantity,
// release lines used by kube-apiserver v1.32; base64 is common::go_base64_decode):
// - Quantity: sign, leading zeros, digits, optional '.' and digits, then a suffix matching
//   [eEinumkKMGTP]*[-+]?[0-9]*; the suffix must be a decimal SI, binary SI or e<int> exponent.
// - time.Parse walks the layout's elements; a literal or element that does not match reports the
//   rest of the value; range errors and trailing text have their own texts.
#include "registry/go_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <utility>

#include "common/base64.h"
#include "registry/go_text.h"

namespace apiserver::registry {
namespace {

bool is_digit(std::string_view s, std::size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

// ---------------------------------------------------------------------------------------------
// time.Parse for the two layouts metav1 uses

constexpr std::string_view kRfc3339 = "2006-01-02T15:04:05Z07:00";
constexpr std::string_view kRfc3339Micro = "2006-01-02T15:04:05.000000Z07:00";

enum class Elem { Literal, Year, Month, Day, Hour, Minute, Second, Micros, Zone };

struct LayoutElem {
  Elem kind;
  std::string_view text;  // as printed in errors
};

constexpr std::array<LayoutElem, 12> kTimeElems = {{
    {Elem::Year, "2006"},
    {Elem::Literal, "-"},
    {Elem::Month, "01"},
    {Elem::Literal, "-"},
    {Elem::Day, "02"},
    {Elem::Literal, "T"},
    {Elem::Hour, "15"},
    {Elem::Literal, ":"},
    {Elem::Minute, "04"},
    {Elem::Literal, ":"},
    {Elem::Second, "05"},
    {Elem::Micros, ".000000"},
}};
constexpr LayoutElem kZoneElem = {Elem::Zone, "Z07:00"};

// Go's getnum: one or two digits; `fixed` demands two.
bool get_number(std::string_view& value, bool fixed, int& out) {
  if (!is_digit(value, 0)) {
    return false;
  }
  if (!is_digit(value, 1)) {
    if (fixed) {
      return false;
    }
    out = value[0] - '0';
    value.remove_prefix(1);
    return true;
  }
  out = (value[0] - '0') * 10 + (value[1] - '0');
  value.remove_prefix(2);
  return true;
}

int days_in(int month, int year) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) {
    return 29;
  }
  return kDays[static_cast<std::size_t>(month - 1)];
}

}  // namespace

std::optional<std::string> go_base64_error(std::string_view src) {
  auto decoded = common::go_base64_decode(src, common::GoBase64::Std);
  if (decoded.error.empty()) {
    return std::nullopt;
  }
  return std::move(decoded.error);
}

std::optional<std::string> go_quantity_error(std::string_view text) {
  static const std::string kFormatWrong =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if (text.empty()) {
    return kFormatWrong;
  }
  std::size_t pos = 0;
  if (text[0] == '-' || text[0] == '+') {
    ++pos;
  }
  while (pos < text.size() && text[pos] == '0') {
    ++pos;
  }
  if (pos == text.size()) {
    return std::nullopt;  // only a sign and zeros: zero
  }
  while (is_digit(text, pos)) {
    ++pos;
  }
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (is_digit(text, pos)) {
      ++pos;
    }
  }
  const std::string_view suffix = text.substr(pos);
  std::size_t s = 0;
  while (s < suffix.size() &&
         std::string_view("eEinumkKMGTP").find(suffix[s]) != std::string_view::npos) {
    ++s;
  }
  if (s < suffix.size() && (suffix[s] == '-' || suffix[s] == '+')) {
    ++s;
  }
  while (is_digit(suffix, s)) {
    ++s;
  }
  if (s != suffix.size()) {
    return kFormatWrong;
  }
  static constexpr std::array<std::string_view, 16> kSuffixes = {
      "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  for (std::string_view known : kSuffixes) {
    if (suffix == known) {
      return std::nullopt;
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view exponent = suffix.substr(1);
    if (exponent.front() == '+') {
      exponent.remove_prefix(1);
    }
    std::int64_t parsed = 0;
    auto [end, ec] = std::from_chars(exponent.data(), exponent.data() + exponent.size(), parsed);
    if (ec == std::errc() && end == exponent.data() + exponent.size() && !exponent.empty()) {
      return std::nullopt;
    }
  }
  return std::string("unable to parse quantity's suffix");
}

std::optional<long double> go_quantity_value(std::string_view text) {
  if (go_quantity_error(text)) {
    return std::nullopt;
  }
  while (std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  const bool negative = text.front() == '-';
  if (text.front() == '-' || text.front() == '+') {
    text.remove_prefix(1);
  }
  std::size_t pos = 0;
  while (pos < text.size() && (is_digit(text, pos) || text[pos] == '.')) {
    ++pos;
  }
  long double number = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + pos, number);
  if (parsed.ec == std::errc::result_out_of_range) {
    number = HUGE_VALL;
  } else if (parsed.ec != std::errc() && pos > 0 && text.substr(0, pos) != ".") {
    return std::nullopt;
  }
  number = negative ? -number : number;
  const std::string_view suffix = text.substr(pos);
  static constexpr std::array<std::pair<std::string_view, long double>, 16> kFactors = {{
      {"", 1},
      {"n", 1e-9L},
      {"u", 1e-6L},
      {"m", 1e-3L},
      {"k", 1e3L},
      {"M", 1e6L},
      {"G", 1e9L},
      {"T", 1e12L},
      {"P", 1e15L},
      {"E", 1e18L},
      {"Ki", 1024.0L},
      {"Mi", 1048576.0L},
      {"Gi", 1073741824.0L},
      {"Ti", 1099511627776.0L},
      {"Pi", 1125899906842624.0L},
      {"Ei", 1152921504606846976.0L},
  }};
  for (const auto& [name, factor] : kFactors) {
    if (suffix == name) {
      return number * factor;
    }
  }
  // An exponent: go_quantity_error checked it is an int64.
  std::string_view exponent = suffix.substr(1);
  if (exponent.front() == '+') {
    exponent.remove_prefix(1);
  }
  std::int64_t e = 0;
  std::from_chars(exponent.data(), exponent.data() + exponent.size(), e);
  const long double clamped =
      static_cast<long double>(std::clamp<std::int64_t>(e, -100000, 100000));
  return number * std::pow(10.0L, clamped);
}

std::optional<long double> go_quantity_value(const nlohmann::json& value) {
  if (value.is_number()) {
    return value.get<long double>();
  }
  if (!value.is_string()) {
    return std::nullopt;
  }
  return go_quantity_value(std::string_view(value.get_ref<const std::string&>()));
}

std::optional<std::string> go_time_error(std::string_view text, bool micro) {
  const std::string_view layout = micro ? kRfc3339Micro : kRfc3339;
  auto cannot_parse = [&](std::string_view rest, std::string_view elem) {
    return "parsing time " + go_quote(text) + " as " + go_quote(layout) + ": cannot parse " +
           go_quote(rest) + " as " + go_quote(elem);
  };
  auto out_of_range = [&](std::string_view what) {
    return "parsing time " + go_quote(text) + ": " + std::string(what) + " out of range";
  };
  std::string_view value = text;
  int year = 0;
  int month = 0;
  int day = 0;
  auto check = [&](const LayoutElem& elem) -> std::optional<std::string> {
    const std::string_view hold = value;
    int number = 0;
    switch (elem.kind) {
      case Elem::Literal:
        if (value.empty() || value[0] != elem.text[0]) {
          return cannot_parse(value, elem.text);
        }
        value.remove_prefix(1);
        return std::nullopt;
      case Elem::Year: {
        if (value.size() < 4 || !is_digit(value, 0)) {
          return cannot_parse(hold, elem.text);
        }
        for (std::size_t i = 1; i < 4; ++i) {
          if (!is_digit(value, i)) {
            return cannot_parse(hold, elem.text);
          }
        }
        year = (value[0] - '0') * 1000 + (value[1] - '0') * 100 + (value[2] - '0') * 10 +
               (value[3] - '0');
        value.remove_prefix(4);
        return std::nullopt;
      }
      case Elem::Month:
        if (!get_number(value, true, month)) {
          return cannot_parse(hold, elem.text);
        }
        return month < 1 || month > 12 ? std::optional(out_of_range("month")) : std::nullopt;
      case Elem::Day:
        if (!get_number(value, true, day)) {
          return cannot_parse(hold, elem.text);
        }
        return std::nullopt;
      case Elem::Hour:
        if (!get_number(value, false, number)) {
          return cannot_parse(hold, elem.text);
        }
        return number >= 24 ? std::optional(out_of_range("hour")) : std::nullopt;
      case Elem::Minute:
        if (!get_number(value, true, number)) {
          return cannot_parse(hold, elem.text);
        }
        return number >= 60 ? std::optional(out_of_range("minute")) : std::nullopt;
      case Elem::Second:
        if (!get_number(value, true, number)) {
          return cannot_parse(hold, elem.text);
        }
        if (number >= 60) {
          return out_of_range("second");
        }
        // A fraction the layout does not name is accepted after the seconds.
        if (!micro && value.size() >= 2 && (value[0] == '.' || value[0] == ',') &&
            is_digit(value, 1)) {
          std::size_t n = 2;
          while (is_digit(value, n)) {
            ++n;
          }
          value.remove_prefix(n);
        }
        return std::nullopt;
      case Elem::Micros:
        if (value.size() < 7 || (value[0] != '.' && value[0] != ',')) {
          return cannot_parse(hold, elem.text);
        }
        for (std::size_t i = 1; i < 7; ++i) {
          if (!is_digit(value, i)) {
            return cannot_parse(hold, elem.text);
          }
        }
        value.remove_prefix(7);
        return std::nullopt;
      case Elem::Zone: {
        if (!value.empty() && value[0] == 'Z') {
          value.remove_prefix(1);
          return std::nullopt;
        }
        if (value.size() < 6 || value[3] != ':') {
          return cannot_parse(hold, elem.text);
        }
        std::string_view hours = value.substr(1, 2);
        std::string_view minutes = value.substr(4, 2);
        int hh = 0;
        int mm = 0;
        if (!get_number(hours, true, hh) || !get_number(minutes, true, mm) ||
            (value[0] != '+' && value[0] != '-')) {
          return cannot_parse(hold, elem.text);
        }
        value.remove_prefix(6);
        if (hh > 24) {
          return out_of_range("time zone offset hour");
        }
        return mm > 60 ? std::optional(out_of_range("time zone offset minute")) : std::nullopt;
      }
    }
    return std::nullopt;
  };
  for (const LayoutElem& elem : kTimeElems) {
    if (elem.kind == Elem::Micros && !micro) {
      continue;
    }
    if (auto error = check(elem)) {
      return error;
    }
  }
  if (auto error = check(kZoneElem)) {
    return error;
  }
  if (!value.empty()) {
    return "parsing time " + go_quote(text) + ": extra text: " + go_quote(value);
  }
  if (day < 1 || day > days_in(month, year)) {
    return out_of_range("day");
  }
  return std::nullopt;
}

}  // namespace apiserver::registry
