#include "registry/schema_formats.h"

#include <set>

#include "registry/go_text.h"
#include "registry/go_values.h"

namespace apiserver::registry {
namespace {

std::string normalized(const std::string& format) {
  std::string out;
  for (char c : format) {
    if (c != '-') {
      out += c;
    }
  }
  return out;
}

bool digit(char c) {
  return c >= '0' && c <= '9';
}

bool hex(char c) {
  return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool all_digits(std::string_view s, size_t from, size_t n) {
  if (from + n > s.size()) {
    return false;
  }
  for (size_t i = from; i < from + n; ++i) {
    if (!digit(s[i])) {
      return false;
    }
  }
  return true;
}

int two_digits(std::string_view s, size_t at) {
  return (s[at] - '0') * 10 + (s[at + 1] - '0');
}

// time.Parse("2006-01-02", s) succeeds.
bool is_full_date(std::string_view s) {
  if (s.size() != 10 || !all_digits(s, 0, 4) || s[4] != '-' || !all_digits(s, 5, 2) ||
      s[7] != '-' || !all_digits(s, 8, 2)) {
    return false;
  }
  const int year = two_digits(s, 0) * 100 + two_digits(s, 2);
  const int month = two_digits(s, 5);
  const int day = two_digits(s, 8);
  if (month < 1 || month > 12 || day < 1) {
    return false;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int max_day = month == 2 && leap ? 29 : kDays[month - 1];
  return day <= max_day;
}

// `z` or [+-][0-9]{2}:[0-9]{2}, the whole of `t`.
bool is_zone(std::string_view t) {
  if (t == "z") {
    return true;
  }
  return t.size() == 6 && (t[0] == '+' || t[0] == '-') && all_digits(t, 1, 2) && t[3] == ':' &&
         all_digits(t, 4, 2);
}

// strfmt's time part: ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$
// with hour <= "23", minute and second <= "59" compared as text.
bool is_time(std::string_view t) {
  if (t.size() < 9 || !all_digits(t, 0, 2) || t[2] != ':' || !all_digits(t, 3, 2) || t[5] != ':' ||
      !all_digits(t, 6, 2)) {
    return false;
  }
  if (two_digits(t, 0) > 23 || two_digits(t, 3) > 59 || two_digits(t, 6) > 59) {
    return false;
  }
  const std::string_view rest = t.substr(8);
  if (is_zone(rest)) {
    return true;
  }
  // The optional fraction: any one character but a newline (a whole UTF-8 sequence, as Go's
  // '.'), then digits; the zone cannot start with a digit, so the digits run to it.
  size_t width = 1;
  if (decode_rune(rest, 0, width) == U'\n') {
    return false;
  }
  size_t end = width;
  while (end < rest.size() && digit(rest[end])) {
    ++end;
  }
  return end > width && is_zone(rest.substr(end));
}

// strfmt.IsDateTime: lower-cased, split at every 't'; a full date before the first one and the
// time on the second part (later parts are not looked at, as upstream).
bool is_date_time(std::string_view s) {
  if (s.size() < 4) {
    return false;
  }
  std::string lower(s);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  const size_t first = lower.find('t');
  if (first == std::string::npos) {
    return false;
  }
  const size_t second = lower.find('t', first + 1);
  const std::string_view view(lower);
  return is_full_date(view.substr(0, first)) &&
         is_time(view.substr(first + 1, second == std::string::npos ? second : second - first - 1));
}

// ^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?W[0-9a-f]{3}-?[0-9a-f]{12}$ case-insensitively, where
// V is the version digit (any hex digit for 0) and W one of [89ab] for versions 4 and 5.
bool matches_uuid(std::string_view s, char version) {
  static constexpr size_t kGroups[] = {8, 4, 4, 4, 12};
  size_t at = 0;
  for (size_t g = 0; g < 5; ++g) {
    if (g > 0 && at < s.size() && s[at] == '-') {
      ++at;
    }
    if (at + kGroups[g] > s.size()) {
      return false;
    }
    for (size_t i = 0; i < kGroups[g]; ++i) {
      if (!hex(s[at + i])) {
        return false;
      }
    }
    const char lead = static_cast<char>(s[at] | 0x20);  // lower case of a hex letter
    if (g == 2 && version != 0 && s[at] != version) {
      return false;
    }
    if (g == 3 && (version == '4' || version == '5') && lead != '8' && lead != '9' && lead != 'a' &&
        lead != 'b') {
      return false;
    }
    at += kGroups[g];
  }
  return at == s.size();
}

}  // namespace

bool is_supported_format(const std::string& format) {
  static const std::set<std::string> kFormats = {
      "bsonobjectid", "uri",    "email",    "hostname",   "ipv4",     "ipv6",
      "cidr",         "mac",    "uuid",     "uuid3",      "uuid4",    "uuid5",
      "isbn",         "isbn10", "isbn13",   "creditcard", "ssn",      "hexcolor",
      "rgbcolor",     "byte",   "password", "date",       "duration", "datetime"};
  return kFormats.count(normalized(format)) != 0;
}

bool format_valid(const std::string& format, std::string_view s) {
  const std::string name = normalized(format);
  if (name == "datetime") {
    return is_date_time(s);
  }
  if (name == "date") {
    return is_full_date(s);
  }
  if (name == "byte") {
    return !go_base64_error(s).has_value();
  }
  if (name == "uuid") {
    return matches_uuid(s, 0);
  }
  if (name == "uuid3" || name == "uuid4" || name == "uuid5") {
    return matches_uuid(s, name.back());
  }
  return true;
}

}  // namespace apiserver::registry
