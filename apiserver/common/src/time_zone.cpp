#include "common/time_zone.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/calendar.h"
#include "common/read_file.h"

namespace common {
namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kAlpha = std::numeric_limits<int64_t>::min();
constexpr int64_t kOmega = std::numeric_limits<int64_t>::max();
// Go refuses zoneinfo files larger than this.
constexpr size_t kMostZoneBytes = size_t{10} << 20;
const char* const kMalformed = "malformed time zone information";

// Reads a TZif file front to back; any read past the end fails the whole file.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  std::string_view take(uint64_t n) {
    if (n > data_.size() - at_) {
      failed_ = true;
      at_ = data_.size();
      return {};
    }
    std::string_view out = data_.substr(at_, n);
    at_ += n;
    return out;
  }
  uint32_t be32() {
    std::string_view b = take(4);
    uint32_t v = 0;
    for (char c : b) {
      v = (v << 8) | static_cast<uint8_t>(c);
    }
    return v;
  }
  std::string_view rest() const { return data_.substr(at_); }
  bool failed() const { return failed_; }

 private:
  std::string_view data_;
  size_t at_ = 0;
  bool failed_ = false;
};

int64_t big_endian(std::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) {
    v = (v << 8) | static_cast<uint8_t>(c);
  }
  if (bytes.size() == 4) {
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  }
  return static_cast<int64_t>(v);
}

// Go's tzsetNum: a decimal in [lo, hi] at the front of `s` (consumed).
bool take_number(std::string_view& s, int lo, int hi, int& out) {
  size_t i = 0;
  int n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    n = n * 10 + (s[i] - '0');
    if (n > hi) {
      return false;
    }
    ++i;
  }
  if (i == 0 || n < lo) {
    return false;
  }
  s.remove_prefix(i);
  out = n;
  return true;
}

// Go's tzsetOffset: [+-]hh[:mm[:ss]], hours up to a week.
bool take_offset(std::string_view& s, int32_t& out) {
  if (s.empty()) {
    return false;
  }
  const bool negative = s[0] == '-';
  if (s[0] == '+' || s[0] == '-') {
    s.remove_prefix(1);
  }
  int part = 0;
  if (!take_number(s, 0, 24 * 7, part)) {
    return false;
  }
  int32_t seconds = part * 3600;
  for (int scale : {60, 1}) {
    if (s.empty() || s[0] != ':') {
      break;
    }
    s.remove_prefix(1);
    if (!take_number(s, 0, 59, part)) {
      return false;
    }
    seconds += part * scale;
  }
  out = negative ? -seconds : seconds;
  return true;
}

// Go's tzsetName: three or more characters up to a digit, ',', '-' or '+', or anything in <...>.
bool take_name(std::string_view& s) {
  if (s.empty()) {
    return false;
  }
  if (s[0] == '<') {
    const size_t close = s.find('>');
    if (close == std::string_view::npos) {
      return false;
    }
    s.remove_prefix(close + 1);
    return true;
  }
  size_t i = 0;
  while (i < s.size() &&
         !((s[i] >= '0' && s[i] <= '9') || s[i] == ',' || s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  if (i < 3) {
    return false;
  }
  s.remove_prefix(i);
  return true;
}

std::string errno_text(int code) {
  std::string text = std::strerror(code);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');  // Go's errno texts start in lower case
  }
  return text;
}

}  // namespace

TimeZone::TimeZone() = default;

Result<TimeZone> TimeZone::load(std::string_view name, const std::string& zoneinfo_root) {
  using Failure = Result<TimeZone>;
  if (name.empty() || name == "UTC" || name == "Local") {
    return TimeZone();
  }
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    return Failure::failure("time: invalid location name");
  }
  const std::string path = zoneinfo_root + "/" + std::string(name);
  auto data = read_file(path);
  if (!data) {
    if (data.error().missing()) {
      return Failure::failure("unknown time zone " + std::string(name));
    }
    return Failure::failure(errno_text(data.error().code));
  }
  if (data->size() > kMostZoneBytes) {
    return Failure::failure("file " + path + " is too large");
  }
  return from_tzif(name, *data);
}

Result<TimeZone> TimeZone::from_tzif(std::string_view name, std::string_view data) {
  using Failure = Result<TimeZone>;
  Reader in(data);
  if (in.take(4) != "TZif") {
    return Failure::failure(kMalformed);
  }
  const std::string_view version = in.take(16);
  if (in.failed() || !(version[0] == 0 || (version[0] >= '2' && version[0] <= '4'))) {
    return Failure::failure(kMalformed);
  }
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
  uint64_t n[6];
  for (uint64_t& count : n) {
    count = in.be32();
  }
  size_t time_size = 4;
  if (version[0] != 0) {
    // Version 2 and later repeat everything with 64-bit times: skip the 32-bit block.
    in.take(n[3] * 5 + n[4] * 6 + n[5] + n[2] * 8 + n[1] + n[0] + 20);
    for (uint64_t& count : n) {
      count = in.be32();
    }
    time_size = 8;
  }
  const std::string_view times = in.take(n[3] * time_size);
  const std::string_view indexes = in.take(n[3]);
  const std::string_view types = in.take(n[4] * 6);
  const std::string_view abbreviations = in.take(n[5]);
  in.take(n[2] * (time_size + 4) + n[1] + n[0]);
  if (in.failed() || n[4] == 0) {
    return Failure::failure(kMalformed);
  }
  TimeZone zone;
  zone.name_ = std::string(name);
  for (size_t i = 0; i < n[4]; ++i) {
    const std::string_view t = types.substr(i * 6, 6);
    if (static_cast<uint8_t>(t[5]) >= abbreviations.size()) {
      return Failure::failure(kMalformed);
    }
    zone.types_.push_back(
        {static_cast<int32_t>(big_endian(t.substr(0, 4))), static_cast<uint8_t>(t[4]) != 0});
  }
  for (size_t i = 0; i < n[3]; ++i) {
    const auto type = static_cast<uint8_t>(indexes[i]);
    if (type >= zone.types_.size()) {
      return Failure::failure(kMalformed);
    }
    zone.transitions_.push_back(big_endian(times.substr(i * time_size, time_size)));
    zone.transition_types_.push_back(type);
  }
  if (zone.transitions_.empty()) {
    // As Go: one transition at the beginning of time to the first type (fixed zones).
    zone.transitions_.push_back(kAlpha);
    zone.transition_types_.push_back(0);
  }
  // The footer, "\n<POSIX TZ string>\n", ends the file.
  const std::string_view rest = in.rest();
  if (rest.size() > 2 && rest.front() == '\n' && rest.back() == '\n') {
    zone.rule_.valid = parse_rule(rest.substr(1, rest.size() - 2), zone.rule_);
  }
  return zone;
}

bool TimeZone::parse_rule(std::string_view s, Rule& rule) {
  int32_t offset = 0;
  if (!take_name(s) || !take_offset(s, offset)) {
    return false;
  }
  // POSIX offsets count west of Greenwich; ours count east.
  rule.std_offset = -offset;
  if (s.empty() || s[0] == ',') {
    return true;  // no daylight saving time
  }
  if (!take_name(s)) {
    return false;
  }
  rule.has_dst = true;
  rule.dst_offset = rule.std_offset + 3600;
  if (!s.empty() && s[0] != ',') {
    if (!take_offset(s, offset)) {
      return false;
    }
    rule.dst_offset = -offset;
  }
  if (s.empty()) {
    s = ",M3.2.0,M11.1.0";  // tzcode's default rule
  }
  for (RuleDate* date : {&rule.start, &rule.end}) {
    // ';' is not POSIX, but tzcode (and Go) take it before the first date.
    if (s.empty() || (s[0] != ',' && !(s[0] == ';' && date == &rule.start))) {
      return false;
    }
    s.remove_prefix(1);
    if (s.empty()) {
      return false;
    }
    if (s[0] == 'J') {
      s.remove_prefix(1);
      date->kind = RuleDate::Kind::Julian;
      if (!take_number(s, 1, 365, date->day)) {
        return false;
      }
    } else if (s[0] == 'M') {
      s.remove_prefix(1);
      date->kind = RuleDate::Kind::MonthWeekDay;
      if (!take_number(s, 1, 12, date->month) || s.empty() || s[0] != '.') {
        return false;
      }
      s.remove_prefix(1);
      if (!take_number(s, 1, 5, date->week) || s.empty() || s[0] != '.') {
        return false;
      }
      s.remove_prefix(1);
      if (!take_number(s, 0, 6, date->day)) {
        return false;
      }
    } else {
      date->kind = RuleDate::Kind::DayOfYear;
      if (!take_number(s, 0, 365, date->day)) {
        return false;
      }
    }
    if (!s.empty() && s[0] == '/') {
      s.remove_prefix(1);
      if (!take_offset(s, date->time)) {
        return false;
      }
    }
  }
  return s.empty();
}

// Go's tzruleTime: the second of `year` (counted in UTC from its first day) at which `date` falls
// in a zone `offset` seconds east of UTC.
int64_t TimeZone::rule_time(int64_t year, const RuleDate& date, int32_t offset) {
  int64_t day = 0;
  switch (date.kind) {
    case RuleDate::Kind::Julian:
      // February 29 is never counted: day 60 is March 1st in every year.
      day = date.day - 1 + ((leap_year(year) && date.day >= 60) ? 1 : 0);
      break;
    case RuleDate::Kind::DayOfYear:
      day = date.day;
      break;
    case RuleDate::Kind::MonthWeekDay: {
      const int64_t first = days_from_civil(year, date.month, 1);
      int64_t d = (date.day - civil_from_days(first).weekday + 7) % 7;
      // Week 5 means the last such weekday of the month.
      for (int i = 1; i < date.week && d + 7 < days_in_month(year, date.month); ++i) {
        d += 7;
      }
      day = first - days_from_civil(year, 1, 1) + d;
      break;
    }
  }
  return day * kDay + date.time - offset;
}

// Go's tzset: the offset at `unix` by the footer's rule, and the span Go reports for it (the year
// around `unix`, cut at its two changes; the year is read in UTC, as Go reads it).
TimeZone::Period TimeZone::rule_lookup(int64_t last_transition, int64_t unix) const {
  if (!rule_.has_dst) {
    return {rule_.std_offset, last_transition, kOmega};
  }
  const int64_t days = floor_div(unix, kDay);
  const int64_t year = civil_from_days(days).year;
  const int64_t year_start = days_from_civil(year, 1, 1) * kDay;
  const int64_t second_of_year = unix - year_start;
  int64_t start = rule_time(year, rule_.start, rule_.std_offset);
  int64_t end = rule_time(year, rule_.end, rule_.dst_offset);
  int32_t standard = rule_.std_offset;
  int32_t daylight = rule_.dst_offset;
  if (end < start) {
    // Southern hemisphere: the year starts and ends in daylight saving time.
    std::swap(start, end);
    std::swap(standard, daylight);
  }
  if (second_of_year < start) {
    return {standard, year_start, year_start + start};
  }
  if (second_of_year >= end) {
    return {standard, year_start + end, year_start + 365 * kDay};
  }
  return {daylight, year_start + start, year_start + end};
}

// Go's lookupFirstZone: the type in effect before the first transition.
size_t TimeZone::first_type() const {
  if (std::find(transition_types_.begin(), transition_types_.end(), 0) == transition_types_.end()) {
    return 0;
  }
  if (types_[transition_types_.front()].dst) {
    for (size_t i = transition_types_.front(); i-- > 0;) {
      if (!types_[i].dst) {
        return i;
      }
    }
  }
  for (size_t i = 0; i < types_.size(); ++i) {
    if (!types_[i].dst) {
      return i;
    }
  }
  return 0;
}

TimeZone::Period TimeZone::lookup(int64_t unix) const {
  if (types_.empty()) {
    return {};  // UTC
  }
  if (unix < transitions_.front()) {
    return {types_[first_type()].offset, kAlpha, transitions_.front()};
  }
  const auto next = std::upper_bound(transitions_.begin(), transitions_.end(), unix);
  const auto index = static_cast<size_t>(next - transitions_.begin() - 1);
  if (next == transitions_.end() && rule_.valid) {
    return rule_lookup(transitions_[index], unix);
  }
  return {types_[transition_types_[index]].offset, transitions_[index],
          next == transitions_.end() ? kOmega : *next};
}

CivilTime TimeZone::civil(int64_t unix) const {
  const int64_t local = unix + lookup(unix).offset;
  const int64_t days = floor_div(local, kDay);
  const int64_t seconds = local - days * kDay;
  const CivilDate date = civil_from_days(days);
  CivilTime c;
  c.year = date.year;
  c.month = date.month;
  c.day = date.day;
  c.weekday = date.weekday;
  c.hour = static_cast<int>(seconds / 3600);
  c.minute = static_cast<int>(seconds % 3600 / 60);
  c.second = static_cast<int>(seconds % 60);
  return c;
}

int64_t TimeZone::instant(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                          int64_t second) const {
  // Months first (carrying into years), then everything else as a count of local seconds.
  const int64_t carry = floor_div(month - 1, 12);
  year += carry;
  const int64_t m = month - 1 - carry * 12 + 1;
  const int64_t local =
      (days_from_civil(year, m, 1) + day - 1) * kDay + hour * 3600 + minute * 60 + second;
  // Go's choice: guess with the offset at `local` read as UTC; if the result falls outside that
  // offset's span, take the offset at the result instead.
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

std::string TimeZone::rfc3339(int64_t unix) const {
  const CivilTime c = civil(unix);
  const int32_t offset = lookup(unix).offset;
  char out[64];
  int n = std::snprintf(out, sizeof out, "%04lld-%02d-%02dT%02d:%02d:%02d",
                        static_cast<long long>(c.year), c.month, c.day, c.hour, c.minute, c.second);
  std::string text(out, static_cast<size_t>(n));
  if (offset == 0) {
    return text + "Z";
  }
  const int32_t minutes = (offset < 0 ? -offset : offset) / 60;
  n = std::snprintf(out, sizeof out, "%c%02d:%02d", offset < 0 ? '-' : '+', minutes / 60,
                    minutes % 60);
  return text + std::string(out, static_cast<size_t>(n));
}

}  // namespace common
