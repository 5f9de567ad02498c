#include "registry/cron_schedule.h"

#include <catch2/catch.hpp>
#include <string>

using apiserver::registry::cron_schedule_error;

TEST_CASE("cron schedules get robfig/cron's verdicts", "[cron]") {
  struct Case {
    std::string schedule;
    std::string error;
  };
  auto c = GENERATE(values<Case>({
      {"*/5 * * * *", ""},
      {"0 0 1 jan,JUL mon-fri", ""},
      {"0-59/15 0 1-31 1-12 0-6", ""},
      {"@hourly", ""},
      {"@every 1h30m", ""},
      {"TZ=UTC 0 * * * *", ""},
      {"1,,2 * * * *", ""},
      {"", "empty spec string"},
      {"99999999999 * * * *", "end of range (99999999999) above maximum (59): 99999999999"},
      {"99999999999999999999 * * * *",
       "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
       "\"99999999999999999999\": value out of range"},
      {"* * * * */99999999999999999999",
       "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
       "\"99999999999999999999\": value out of range"},
      {"x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"-1 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
      {"*/1/2 * * * *", "too many slashes: */1/2"},
      {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
      {"@often", "unrecognized descriptor: @often"},
      {"@every 5x",
       "failed to parse duration @every 5x: time: unknown unit \"x\" in duration "
       "\"5x\""},
      {"@every 5", "failed to parse duration @every 5: time: missing unit in duration \"5\""},
      {"@every 99999999999999999999h",
       "failed to parse duration @every 99999999999999999999h: time: invalid duration "
       "\"99999999999999999999h\""},
  }));
  CAPTURE(c.schedule);
  CHECK(cron_schedule_error(c.schedule) == c.error);
}

TEST_CASE("spec.timeZone is an IANA name the server can load", "[registry][cronjob]") {
  using apiserver::registry::time_zone_error;
  CHECK(time_zone_error("UTC").empty());
  CHECK(time_zone_error("").find("non-empty") != std::string::npos);
  CHECK(time_zone_error("Local") ==
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
  CHECK(time_zone_error("../etc/passwd") == "unknown time zone ../etc/passwd");
  CHECK(time_zone_error("-Europe") == "unknown time zone -Europe");
  CHECK(time_zone_error("Mars/Base") == "unknown time zone Mars/Base");
  CHECK(time_zone_error("Europe/ThisNameIsTooLong") ==
        "unknown time zone Europe/ThisNameIsTooLong");
}
