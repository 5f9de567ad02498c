#include "common/rfc3339.h"

#include <cstdio>

#include "common/calendar.h"

namespace common {
namespace {

constexpr std::int64_t kMinSeconds = -62167219200;  // 0000-01-01T00:00:00Z
constexpr std::int64_t kMaxSeconds = 253402300799;  // 9999-12-31T23:59:59Z

// Reads a field of exactly `width` digits at `pos`.
bool digits(std::string_view s, std::size_t& pos, std::size_t width, std::int64_t& out) {
  if (pos + width > s.size()) {
    return false;
  }
  out = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return false;
    }
    out = out * 10 + (s[i] - '0');
  }
  pos += width;
  return true;
}

bool literal(std::string_view s, std::size_t& pos, char c, bool any_case) {
  if (pos < s.size() && (s[pos] == c || (any_case && s[pos] == c - 'A' + 'a'))) {
    ++pos;
    return true;
  }
  return false;
}

}  // namespace

std::optional<Rfc3339Time> parse_rfc3339(std::string_view s, Rfc3339Syntax syntax) {
  const bool rfc = syntax == Rfc3339Syntax::Rfc;
  std::size_t pos = 0;
  std::int64_t year = 0;
  std::int64_t month = 0;
  std::int64_t day = 0;
  std::int64_t hour = 0;
  std::int64_t minute = 0;
  std::int64_t second = 0;
  if (!digits(s, pos, 4, year) || !literal(s, pos, '-', false) || !digits(s, pos, 2, month) ||
      !literal(s, pos, '-', false) || !digits(s, pos, 2, day) || !literal(s, pos, 'T', rfc) ||
      !digits(s, pos, 2, hour) || !literal(s, pos, ':', false) || !digits(s, pos, 2, minute) ||
      !literal(s, pos, ':', false) || !digits(s, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > (rfc ? 60 : 59)) {
    return std::nullopt;
  }
  std::int64_t nanos = 0;
  if (literal(s, pos, '.', false)) {
    const std::size_t start = pos;
    std::int64_t scale = 100000000;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos) {
      nanos += (s[pos] - '0') * scale;
      scale /= 10;
    }
    if (pos == start) {
      return std::nullopt;
    }
  }
  std::int64_t offset = 0;
  if (!literal(s, pos, 'Z', rfc)) {
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) {
      return std::nullopt;
    }
    const std::int64_t sign = s[pos++] == '-' ? -1 : 1;
    std::int64_t offset_hours = 0;
    std::int64_t offset_minutes = 0;
    if (!digits(s, pos, 2, offset_hours) || !literal(s, pos, ':', false) ||
        !digits(s, pos, 2, offset_minutes) || offset_hours > 23 || offset_minutes > 59) {
      return std::nullopt;
    }
    offset = sign * (offset_hours * 3600 + offset_minutes * 60);
  }
  if (pos != s.size()) {
    return std::nullopt;
  }
  Rfc3339Time t;
  t.seconds =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  t.nanos = static_cast<std::int32_t>(nanos);
  return t;
}

namespace {

// `micros` < 0: no fraction.
std::optional<std::string> format(std::int64_t seconds, std::int32_t micros) {
  if (seconds < kMinSeconds || seconds > kMaxSeconds) {
    return std::nullopt;
  }
  std::int64_t days = seconds / 86400;
  std::int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  const CivilDate date = civil_from_days(days);
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02lld:%02lld:%02lld",
                        static_cast<long long>(date.year), date.month, date.day,
                        static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                        static_cast<long long>(rem % 60));
  std::string out(buf, static_cast<std::size_t>(n));
  if (micros >= 0) {
    n = std::snprintf(buf, sizeof buf, ".%06d", static_cast<int>(micros));
    out.append(buf, static_cast<std::size_t>(n));
  }
  out += 'Z';
  return out;
}

}  // namespace

std::optional<std::string> format_rfc3339(std::int64_t seconds) {
  return format(seconds, -1);
}

std::optional<std::string> format_rfc3339_micro(std::int64_t seconds, std::int32_t micros) {
  return format(seconds, micros);
}

std::string format_rfc3339(std::chrono::system_clock::time_point t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count();
  return format_rfc3339(static_cast<std::int64_t>(seconds)).value_or("");
}

}  // namespace common
