// IANA time zones as Go's time package reads them (time.LoadLocation): a TZif file of the
// system's zoneinfo (/usr/share/zoneinfo/<name>), its transitions, and the POSIX TZ rule of its
// footer for instants after the last one. Lookups and conversions follow Go's own (Location.lookup,
// tzset, time.Date), so that schedule arithmetic built on them (cron_schedule.h) lands on the same
// instants as kube-controller-manager's around DST changes.
//
// A TimeZone is an immutable value once loaded: copy it freely, call it from any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace common {

inline constexpr const char* kZoneinfoRoot = "/usr/share/zoneinfo";

// A wall-clock date and time, as Go's Time fields read in a zone.
struct CivilTime {
  int64_t year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int weekday = 4;  // 0 = Sunday
};

class TimeZone {
 public:
  // UTC.
  TimeZone();

  // time.LoadLocation(name) reading `zoneinfo_root`. "" and "UTC" are UTC without a file, and so
  // is "Local": Kubernetes' control plane runs in UTC. Errors carry Go's text: "time: invalid
  // location name" (a ".." anywhere, a leading '/' or '\'), "unknown time zone Mars/Base" (no such
  // file), "malformed time zone information" (a file that is not TZif), "is a directory".
  static Result<TimeZone> load(std::string_view name,
                               const std::string& zoneinfo_root = kZoneinfoRoot);
  // time.LoadLocationFromTZData: the bytes of a TZif file (version 1 to 4).
  static Result<TimeZone> from_tzif(std::string_view name, std::string_view data);

  const std::string& name() const { return name_; }

  // The offset east of UTC in effect at `unix` (seconds since the epoch) and the span
  // [start, end) Go's Location.lookup reports for it (its time.Date relies on that span).
  struct Period {
    int32_t offset = 0;
    int64_t start = std::numeric_limits<int64_t>::min();
    int64_t end = std::numeric_limits<int64_t>::max();
  };
  Period lookup(int64_t unix) const;

  // The wall-clock time of `unix` in this zone.
  CivilTime civil(int64_t unix) const;
  // time.Date in this zone: the instant of a wall-clock time, months, days, hours, minutes and
  // seconds out of range carried over as Go does (a time a DST change skips or repeats resolves
  // as Go resolves it).
  int64_t instant(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                  int64_t second) const;
  // `unix` as Go's time.RFC3339 layout writes it in this zone: "2024-03-10T03:00:00-04:00", with
  // "Z" for a zero offset.
  std::string rfc3339(int64_t unix) const;

 private:
  struct Type {
    int32_t offset = 0;
    bool dst = false;
  };
  // A POSIX TZ rule's date ("M3.2.0/2", "J60", "59").
  struct RuleDate {
    enum class Kind { Julian, DayOfYear, MonthWeekDay };
    Kind kind = Kind::MonthWeekDay;
    int day = 0;
    int week = 0;
    int month = 0;
    int32_t time = 2 * 3600;  // seconds into the local day
  };
  // A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0"), as Go's tzset reads it.
  struct Rule {
    bool valid = false;  // false: Go's tzset fails and the last transition's type holds
    int32_t std_offset = 0;
    bool has_dst = false;
    int32_t dst_offset = 0;
    RuleDate start;
    RuleDate end;
  };
  static bool parse_rule(std::string_view text, Rule& rule);
  static int64_t rule_time(int64_t year, const RuleDate& date, int32_t offset);
  Period rule_lookup(int64_t last_transition, int64_t unix) const;
  size_t first_type() const;

  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;  // ascending
  std::vector<uint8_t> transition_types_;
  std::vector<Type> types_;  // empty for UTC
  Rule rule_;
};

}  // namespace common
