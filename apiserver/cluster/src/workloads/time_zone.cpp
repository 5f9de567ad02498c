#include "workloads/time_zone.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <iterator>

namespace cluster {
namespace {

constexpr int64_t kDay = 86400;
// Go refuses zoneinfo files larger than this; so do we (no zone comes near it).
constexpr size_t kMostZoneBytes = 10 << 20;

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0 && ((a < 0) != (b < 0))) ? 1 : 0);
}

bool leap_year(int64_t y) {
  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

uint32_t be32(std::string_view data, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    v = (v << 8) | static_cast<uint8_t>(data[at + i]);
  }
  return v;
}

int64_t be64(std::string_view data, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = (v << 8) | static_cast<uint8_t>(data[at + i]);
  }
  return static_cast<int64_t>(v);
}

// The six counts of a TZif header at `at`: isutcnt, isstdcnt, leapcnt, timecnt, typecnt,
// charcnt.
std::array<size_t, 6> header_counts(std::string_view data, size_t at) {
  std::array<size_t, 6> n{};
  for (size_t i = 0; i < 6; ++i) {
    n[i] = be32(data, at + 20 + 4 * i);
  }
  return n;
}

// [+-]hh[:mm[:ss]] at the front of `s` (consumed); false when there is none.
bool take_clock(std::string_view& s, int32_t& seconds) {
  int sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  int32_t parts[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (s.empty() || s[0] != ':') {
        break;
      }
      s.remove_prefix(1);
    }
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parts[i]);
    if (ec != std::errc() || parts[i] < 0 || parts[i] > 167) {
      return false;
    }
    s.remove_prefix(static_cast<size_t>(end - s.data()));
  }
  seconds = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
  return true;
}

// A zone abbreviation: letters, or anything in <...>.
bool take_abbreviation(std::string_view& s) {
  if (!s.empty() && s[0] == '<') {
    const size_t close = s.find('>');
    if (close == std::string_view::npos) {
      return false;
    }
    s.remove_prefix(close + 1);
    return true;
  }
  size_t n = 0;
  while (n < s.size() && ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'))) {
    ++n;
  }
  s.remove_prefix(n);
  return n >= 3;
}

bool take_int(std::string_view& s, int& value, int lo, int hi) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || value < lo || value > hi) {
    return false;
  }
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return true;
}

}  // namespace

int64_t days_from_civil(int64_t year, int month, int day) {
  // Counted in 400-year eras starting on March 1st, so that Feb 29 is the last day of a year.
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = floor_div(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t mp = (month + 9) % 12;
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilTime civil_from_days(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = floor_div(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  CivilTime c;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2 ? 1 : 0);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);
  return c;
}

TimeZone::TimeZone() = default;

common::Result<TimeZone> TimeZone::load(std::string_view name, const std::string& zoneinfo_root) {
  using Failure = common::Result<TimeZone>;
  if (name.empty() || name == "UTC") {
    return TimeZone();
  }
  if (name.find("..") != std::string_view::npos || name[0] == '/' ||
      name.find('\\') != std::string_view::npos) {
    return Failure::failure("time: invalid location name");
  }
  const std::string unknown = "unknown time zone " + std::string(name);
  std::ifstream in(zoneinfo_root + "/" + std::string(name), std::ios::binary);
  if (!in) {
    return Failure::failure(unknown);
  }
  std::string data;
  char buffer[4096];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    data.append(buffer, static_cast<size_t>(in.gcount()));
    if (data.size() > kMostZoneBytes) {
      return Failure::failure(unknown);
    }
  }
  auto zone = from_tzif(name, data);
  if (!zone) {
    return Failure::failure(unknown);
  }
  return zone;
}

common::Result<TimeZone> TimeZone::from_tzif(std::string_view name, std::string_view data) {
  using Failure = common::Result<TimeZone>;
  if (data.size() < 44 || data.substr(0, 4) != "TZif") {
    return Failure::failure("not a TZif file");
  }
  if (data[4] < '2') {
    return Failure::failure("TZif version 1 has no 64-bit section");
  }
  // Skip the 32-bit section: its header's counts give its size.
  const auto v1 = header_counts(data, 0);
  const size_t v1_size = v1[3] * 5 + v1[4] * 6 + v1[5] + v1[2] * 8 + v1[1] + v1[0];
  const size_t h2 = 44 + v1_size;
  if (data.size() < h2 + 44 || data.substr(h2, 4) != "TZif") {
    return Failure::failure("truncated TZif file");
  }
  const auto n = header_counts(data, h2);
  const size_t timecnt = n[3], typecnt = n[4], charcnt = n[5];
  size_t at = h2 + 44;
  const size_t body = timecnt * 9 + typecnt * 6 + charcnt + n[2] * 12 + n[1] + n[0];
  if (typecnt == 0 || data.size() < at + body) {
    return Failure::failure("truncated TZif file");
  }
  TimeZone zone;
  zone.name_ = std::string(name);
  for (size_t i = 0; i < timecnt; ++i, at += 8) {
    zone.transitions_.push_back(be64(data, at));
  }
  for (size_t i = 0; i < timecnt; ++i, ++at) {
    const auto type = static_cast<uint8_t>(data[at]);
    if (type >= typecnt) {
      return Failure::failure("transition to a type that does not exist");
    }
    zone.transition_types_.push_back(type);
  }
  for (size_t i = 0; i < typecnt; ++i, at += 6) {
    zone.types_.push_back(
        {static_cast<int32_t>(be32(data, at)), static_cast<uint8_t>(data[at + 4]) != 0});
  }
  at = h2 + 44 + body;
  // The footer: "\n<POSIX TZ string>\n".
  if (at < data.size() && data[at] == '\n') {
    const size_t close = data.find('\n', at + 1);
    if (close != std::string_view::npos && close > at + 1 &&
        !parse_rule(data.substr(at + 1, close - at - 1), zone.rule_)) {
      return Failure::failure("bad TZ string in the footer");
    }
  }
  return zone;
}

bool TimeZone::parse_rule(std::string_view s, Rule& rule) {
  int32_t std_west = 0;
  if (!take_abbreviation(s) || !take_clock(s, std_west)) {
    return false;
  }
  rule.std_offset = -std_west;
  rule.present = true;
  if (s.empty()) {
    return true;
  }
  if (!take_abbreviation(s)) {
    return false;
  }
  rule.has_dst = true;
  rule.dst_offset = rule.std_offset + 3600;
  int32_t dst_west = 0;
  if (!s.empty() && s[0] != ',') {
    if (!take_clock(s, dst_west)) {
      return false;
    }
    rule.dst_offset = -dst_west;
  }
  for (Rule::Date* date : {&rule.start, &rule.end}) {
    if (s.empty() || s[0] != ',') {
      return false;
    }
    s.remove_prefix(1);
    if (!s.empty() && s[0] == 'M') {
      s.remove_prefix(1);
      date->kind = Rule::Kind::MonthWeekDay;
      if (!take_int(s, date->month, 1, 12) || s.empty() || s[0] != '.') {
        return false;
      }
      s.remove_prefix(1);
      if (!take_int(s, date->week, 1, 5) || s.empty() || s[0] != '.') {
        return false;
      }
      s.remove_prefix(1);
      if (!take_int(s, date->day, 0, 6)) {
        return false;
      }
    } else if (!s.empty() && s[0] == 'J') {
      s.remove_prefix(1);
      date->kind = Rule::Kind::Julian1;
      if (!take_int(s, date->day, 1, 365)) {
        return false;
      }
    } else {
      date->kind = Rule::Kind::Julian0;
      if (!take_int(s, date->day, 0, 365)) {
        return false;
      }
    }
    if (!s.empty() && s[0] == '/') {
      s.remove_prefix(1);
      if (!take_clock(s, date->time)) {
        return false;
      }
    }
  }
  return s.empty();
}

// The local seconds (offset not applied) at which `date` falls in `year`.
int64_t TimeZone::rule_date_unix(const Rule::Date& date, int64_t year) {
  int64_t days = days_from_civil(year, 1, 1);
  switch (date.kind) {
    case Rule::Kind::Julian1:
      // Feb 29 is never counted: day 60 is March 1st in every year.
      days += date.day - 1 + ((leap_year(year) && date.day >= 60) ? 1 : 0);
      break;
    case Rule::Kind::Julian0:
      days += date.day;
      break;
    case Rule::Kind::MonthWeekDay: {
      const int64_t first = days_from_civil(year, date.month, 1);
      const int first_weekday = civil_from_days(first).weekday;
      int64_t day = first + (date.day - first_weekday + 7) % 7 + 7 * (date.week - 1);
      const int next_month = date.month == 12 ? 1 : date.month + 1;
      const int64_t month_end = days_from_civil(date.month == 12 ? year + 1 : year, next_month, 1);
      while (day >= month_end) {
        day -= 7;  // week 5 means the last such weekday of the month
      }
      days = day;
      break;
    }
  }
  return days * kDay + date.time;
}

TimeZone::Period TimeZone::rule_lookup(int64_t unix) const {
  Period p;
  p.offset = rule_.std_offset;
  if (!rule_.has_dst) {
    return p;
  }
  // The changes of the years around `unix`, as (instant, offset after it).
  std::vector<std::pair<int64_t, int32_t>> changes;
  const int64_t year = civil_from_days(floor_div(unix, kDay)).year;
  for (int64_t y = year - 1; y <= year + 1; ++y) {
    // DST starts at a time of standard time, and ends at a time of DST.
    changes.emplace_back(rule_date_unix(rule_.start, y) - rule_.std_offset, rule_.dst_offset);
    changes.emplace_back(rule_date_unix(rule_.end, y) - rule_.dst_offset, rule_.std_offset);
  }
  std::sort(changes.begin(), changes.end());
  for (size_t i = 0; i < changes.size(); ++i) {
    if (changes[i].first > unix) {
      p.end = changes[i].first;
      break;
    }
    p.start = changes[i].first;
    p.offset = changes[i].second;
  }
  if (p.start == std::numeric_limits<int64_t>::min()) {
    // Before the first change of the window: the offset the last one of the year before set.
    p.offset = changes.back().second == rule_.std_offset ? rule_.dst_offset : rule_.std_offset;
  }
  return p;
}

TimeZone::Period TimeZone::lookup(int64_t unix) const {
  Period p;
  if (types_.empty()) {
    return p;  // UTC
  }
  if (transitions_.empty() || unix < transitions_.front()) {
    // Before the first transition: the first standard-time type, as Go picks it.
    auto first = std::find_if(types_.begin(), types_.end(), [](const Type& t) { return !t.dst; });
    p.offset = (first != types_.end() ? *first : types_.front()).offset;
    if (!transitions_.empty()) {
      p.end = transitions_.front();
    }
    return p;
  }
  const auto next = std::upper_bound(transitions_.begin(), transitions_.end(), unix);
  const auto index = static_cast<size_t>(std::distance(transitions_.begin(), next) - 1);
  if (next == transitions_.end() && rule_.present) {
    Period ruled = rule_lookup(unix);
    ruled.start = std::max(ruled.start, transitions_.back());
    return ruled;
  }
  p.offset = types_[transition_types_[index]].offset;
  p.start = transitions_[index];
  if (next != transitions_.end()) {
    p.end = *next;
  }
  return p;
}

CivilTime TimeZone::civil(int64_t unix) const {
  const int64_t local = unix + lookup(unix).offset;
  const int64_t days = floor_div(local, kDay);
  const int64_t secs = local - days * kDay;
  CivilTime c = civil_from_days(days);
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs % 3600 / 60);
  c.second = static_cast<int>(secs % 60);
  return c;
}

int64_t TimeZone::instant(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                          int64_t second) const {
  // Months first (carrying into years), then everything else as a count of local seconds.
  const int64_t m0 = month - 1;
  year += floor_div(m0, 12);
  const int m = static_cast<int>(m0 - floor_div(m0, 12) * 12 + 1);
  const int64_t local =
      (days_from_civil(year, m, 1) + day - 1) * kDay + hour * 3600 + minute * 60 + second;
  // Go's choice: guess with the offset at `local` read as UTC; if the result falls outside that
  // offset's period, take the offset at the result instead.
  const Period guess = lookup(local);
  int32_t offset = guess.offset;
  if (offset != 0) {
    const int64_t utc = local - offset;
    if (utc < guess.start || utc >= guess.end) {
      offset = lookup(utc).offset;
    }
  }
  return local - offset;
}

}  // namespace cluster
