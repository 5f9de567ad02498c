// A CronJob's spec.schedule as Kubernetes reads it: robfig/cron v3's ParseStandard (what
// kube-apiserver validates with and kube-controller-manager schedules with), and its
// SpecSchedule.Next.
//
//   minute hour day-of-month month day-of-week      "*/5 9-17 * JAN-MAR mon,wed,fri"
//
// Each field is a comma-separated list of `*` (or `?`), a number or name, or a range `a-b`, each
// with an optional step `/n` (`3/10` means `3-max/10`). Month names JAN-DEC and weekday names
// SUN-SAT are accepted in any case; weekday 7 is not (0 is Sunday). The descriptors @yearly
// (@annually), @monthly, @weekly, @daily (@midnight) and @hourly stand for their five fields, and
// `@every <Go duration>` runs at a fixed interval (whole seconds, at least one) from the last
// run. A `TZ=<zone> ` or `CRON_TZ=<zone> ` prefix names the zone the fields are read in (UTC
// without one); the API refuses it on new objects, and the controller writes it itself for
// spec.timeZone.
//
// As in cron, when both day fields are restricted (neither starts with `*`), a day matches if
// either does: "0 0 1,15 * MON" runs on the 1st, the 15th and every Monday.
//
// Pure functions of their arguments (parsing reads a TZ= prefix's zone from the zoneinfo files);
// callable from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/time_zone.h"

namespace common {

struct CronSchedule {
  // Bit n set when value n matches; bit 63 when the field's item was a star (a star with a step
  // of 1), which decides how the two day fields combine.
  uint64_t minute = 0;
  uint64_t hour = 0;
  uint64_t day_of_month = 0;
  uint64_t month = 0;
  uint64_t day_of_week = 0;
  // Nonzero for `@every`: the interval.
  std::chrono::seconds every{0};
  // The zone of a TZ= / CRON_TZ= prefix; UTC when there was none.
  TimeZone zone;
};

// Parses `spec`; the error is robfig/cron's text, which kube-apiserver puts after
// `spec.schedule: Invalid value: "<spec>": ` and kube-controller-manager in its
// UnparseableSchedule event, e.g. "end of range (60) above maximum (59): 0-60". A TZ= prefix with
// nothing after it makes v1.32's parser panic; here it fails with the text later releases give.
Result<CronSchedule> parse_cron_schedule(std::string_view spec,
                                         const std::string& zoneinfo_root = kZoneinfoRoot);

// The first activation strictly after `after`, at a whole second (robfig's Next: the fields read
// as wall-clock times in the schedule's zone, DST changes included); nullopt when there is none
// within five years (a schedule such as "0 0 30 2 *"), where robfig returns the zero time.
std::optional<std::chrono::system_clock::time_point> next_activation(
    const CronSchedule& schedule, std::chrono::system_clock::time_point after);

}  // namespace common
