// A CronJob's spec.schedule as kube-apiserver checks it: robfig/cron v3's ParseStandard (five
// fields, month and weekday names, ranges, steps, @descriptors, @every <duration>, a TZ= or
// CRON_TZ= prefix), returning the parser's error text, which upstream puts after
// `spec.schedule: Invalid value: "<schedule>": `.
#pragma once

#include <string>
#include <string_view>

namespace apiserver::registry {

// Empty when the schedule parses; else robfig/cron's error text, e.g.
// `end of range (99999999999) above maximum (59): 99999999999`.
std::string cron_schedule_error(std::string_view spec);

// Empty when spec.timeZone names a time zone kube-apiserver can load; else the validation
// message: "timeZone must be nil or non-empty string", "unknown time zone <name>" (a malformed
// name, or none in the system's zoneinfo), or that "Local" is not an explicit zone.
std::string time_zone_error(std::string_view zone);

}  // namespace apiserver::registry
