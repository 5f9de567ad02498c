// A CronJob's spec.schedule as kube-controller-manager reads it: robfig/cron v3's ParseStandard.
//
//   minute hour day-of-month month day-of-week      "*/5 9-17 * JAN-MAR mon,wed,fri"
//
// Each field is a comma-separated list of `*` (or `?`), a number or name, or a range `a-b`, each
// with an optional step `/n` (`3/10` means `3-max/10`). Month names JAN-DEC and weekday names
// SUN-SAT are accepted in any case; weekday 7 is not (0 is Sunday). The descriptors @yearly
// (@annually), @monthly, @weekly, @daily (@midnight) and @hourly stand for their five fields, and
// `@every <Go duration>` runs at a fixed interval (at least a second) from the last run. A
// `TZ=<zone> ` or `CRON_TZ=<zone> ` prefix names the zone (the API rejects it on new objects).
//
// As in cron, when both day fields are restricted (neither starts with `*`), a day matches if
// either does: "0 0 1,15 * MON" runs on the 1st, the 15th and every Monday.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "workloads/time_zone.h"

namespace cluster {

struct CronSchedule {
  // Bit n set when value n matches; bit 63 when the field's first item was a star.
  uint64_t minute = 0;
  uint64_t hour = 0;
  uint64_t day_of_month = 0;
  uint64_t month = 0;
  uint64_t day_of_week = 0;
  // Nonzero for `@every`: the interval, whole seconds.
  std::chrono::seconds every{0};
  // The zone of a TZ= / CRON_TZ= prefix; empty when there was none.
  std::string zone;
};

// Parses `spec`; the error is robfig/cron's text (kube-controller-manager puts it in its
// UnparseableSchedule event), e.g. "end of range (60) above maximum (59): 0-60".
common::Result<CronSchedule> parse_cron_schedule(std::string_view spec);

// The first activation strictly after `after` (at a whole second), reading the fields as civil
// times in `zone` (robfig's SpecSchedule.Next, DST handling included); nullopt when there is none
// within five years (a schedule such as "0 0 30 2 *").
std::optional<std::chrono::system_clock::time_point> next_activation(
    const CronSchedule& schedule, const TimeZone& zone,
    std::chrono::system_clock::time_point after);

}  // namespace cluster
