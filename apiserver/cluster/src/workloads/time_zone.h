// Time zones for CronJobs' spec.timeZone, read from the system's zoneinfo files as Go's
// time.LoadLocation reads them: /usr/share/zoneinfo/<IANA name>, TZif version 2 or later (the
// 64-bit section), with the POSIX TZ string of the file's footer for instants after its last
// transition. Conversions follow Go's time package, so that the schedule arithmetic built on them
// (cron_schedule) lands on the same instants as kube-controller-manager's around DST changes.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cluster {

// A civil (wall-clock) date and time, as Go's Time fields read in a zone.
struct CivilTime {
  int64_t year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int weekday = 4;  // 0 = Sunday; 1970-01-01 was a Thursday
};

// Days since 1970-01-01 of a proleptic Gregorian date, and back.
int64_t days_from_civil(int64_t year, int month, int day);
CivilTime civil_from_days(int64_t days);

class TimeZone {
 public:
  // UTC: what an unset spec.timeZone means (kube-controller-manager's local zone is UTC in its
  // container image, and its clock's instants are read in it).
  TimeZone();

  // Loads `name` from `zoneinfo_root` (default /usr/share/zoneinfo). "" and "UTC" are UTC without
  // a file, as in Go. Errors carry Go's text: "unknown time zone Mars/Base", or "time: invalid
  // location name" for names with "..", a leading '/' or a backslash.
  static common::Result<TimeZone> load(std::string_view name,
                                       const std::string& zoneinfo_root = "/usr/share/zoneinfo");
  // Parses the bytes of a TZif file (tests); the error says what is wrong with them.
  static common::Result<TimeZone> from_tzif(std::string_view name, std::string_view data);

  const std::string& name() const { return name_; }

  // The offset east of UTC in effect at `unix` (seconds since the epoch) and the period
  // [start, end) in which it holds, as Go's Location.lookup.
  struct Period {
    int32_t offset = 0;
    int64_t start = std::numeric_limits<int64_t>::min();
    int64_t end = std::numeric_limits<int64_t>::max();
  };
  Period lookup(int64_t unix) const;

  // The civil time of `unix` in this zone.
  CivilTime civil(int64_t unix) const;
  // The instant of a civil time, normalizing out-of-range months, days, hours... as Go's
  // time.Date does (a time skipped or repeated by a DST change resolves as Go's does).
  int64_t instant(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                  int64_t second) const;

 private:
  struct Type {
    int32_t offset = 0;
    bool dst = false;
  };
  // A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0"): a standard offset and maybe a DST one with the
  // dates it starts and ends each year.
  struct Rule {
    enum class Kind { Julian1, Julian0, MonthWeekDay };
    struct Date {
      Kind kind = Kind::MonthWeekDay;
      int day = 0;  // Jn: 1-365 (no Feb 29); n: 0-365; M: weekday 0-6
      int week = 0;
      int month = 0;
      int32_t time = 2 * 3600;  // local seconds into the day
    };
    bool present = false;
    int32_t std_offset = 0;
    bool has_dst = false;
    int32_t dst_offset = 0;
    Date start;
    Date end;
  };
  static bool parse_rule(std::string_view text, Rule& rule);
  static int64_t rule_date_unix(const Rule::Date& date, int64_t year);
  Period rule_lookup(int64_t unix) const;

  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;  // ascending
  std::vector<uint8_t> transition_types_;
  std::vector<Type> types_;
  Rule rule_;
};

}  // namespace cluster
