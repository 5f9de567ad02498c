// CronJob schedules (common/cron_schedule.h) as robfig/cron v3's ParseStandard reads them, with
// its error texts, and its SpecSchedule.Next, DST changes included (zones written by tzif.h).
#include "common/cron_schedule.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "../temp_dir.h"
#include "common/rfc3339.h"
#include "tzif.h"

using std::chrono::system_clock;

namespace {

system_clock::time_point at(const std::string& rfc3339) {
  auto t = common::parse_rfc3339(rfc3339);
  REQUIRE(t.has_value());
  return system_clock::time_point(std::chrono::seconds(t->seconds)) +
         std::chrono::duration_cast<system_clock::duration>(std::chrono::nanoseconds(t->nanos));
}

// The next activation after `after`, as RFC 3339 in UTC ("never" when there is none).
std::string next(const std::string& spec, const std::string& after,
                 const std::string& root = common::kZoneinfoRoot) {
  auto schedule = common::parse_cron_schedule(spec, root);
  REQUIRE(schedule.ok());
  auto t = common::next_activation(*schedule, at(after));
  return t ? common::format_rfc3339(*t) : "never";
}

}  // namespace

TEST_CASE("schedules parse as robfig/cron's ParseStandard reads them", "[cron]") {
  auto spec = GENERATE(as<std::string>{}, "*/5 * * * *", "0 9-17 * JAN-MAR mon,wed,FRI",
                       "0-59/15 0 1-31 1-12 0-6", "0 0 * * ?", "15 3/10 1,15 * *", "1,,2 * * * *",
                       "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
                       "@hourly", "@every 1h30m", "@every -5s", "  0   0 * * *  ",
                       // A star ignores what follows its hyphen.
                       "*-5 * * * *",
                       // Fields split on Unicode white space too (here U+00A0).
                       "0\xc2\xa0"
                       "0 * * *",
                       // The zone prefix is trimmed off with the white space after it.
                       "TZ=UTC 0 * * * *", "CRON_TZ=UTC   @hourly  ", "TZ= 0 0 * * *");
  CAPTURE(spec);
  CHECK(common::parse_cron_schedule(spec).ok());
}

TEST_CASE("bad schedules fail with robfig/cron's error text", "[cron]") {
  testing_support::TempDir root;
  struct Case {
    std::string spec;
    std::string error;
  };
  auto c = GENERATE(values<Case>({
      {"", "empty spec string"},
      {"   ", "expected exactly 5 fields, found 0: []"},
      {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
      {"0 0 0 * * *", "expected exactly 5 fields, found 6: [0 0 0 * * *]"},
      {"60 * * * *", "end of range (60) above maximum (59): 60"},
      {"99999999999 * * * *", "end of range (99999999999) above maximum (59): 99999999999"},
      {"99999999999999999999 * * * *",
       "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
       "\"99999999999999999999\": value out of range"},
      {"* * * * */99999999999999999999",
       "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
       "\"99999999999999999999\": value out of range"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"* * * * 7", "end of range (7) above maximum (6): 7"},
      {"* * * dec-jan *", "beginning of range (12) beyond end of range (1): dec-jan"},
      {"* * * JANUARY *",
       "failed to parse int from JANUARY: strconv.Atoi: parsing \"JANUARY\": invalid syntax"},
      {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"5/0 * * * *", "step of range should be a positive number: 5/0"},
      {"*/-1 * * * *", "negative number (-1) not allowed: -1"},
      {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
      {"*/2/3 * * * *", "too many slashes: */2/3"},
      // robfig parses before it counts: the bad number is the first error.
      {"x-1-2 * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"x/1/2 * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"-1 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
      {"x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      // The first field in error wins.
      {"0 24 32 * *", "end of range (24) above maximum (23): 24"},
      {"@fortnightly", "unrecognized descriptor: @fortnightly"},
      {"@hourly ", "unrecognized descriptor: @hourly "},
      {"@every", "unrecognized descriptor: @every"},
      {"@every 5x",
       "failed to parse duration @every 5x: time: unknown unit \"x\" in duration \"5x\""},
      {"@every 5", "failed to parse duration @every 5: time: missing unit in duration \"5\""},
      {"@every 99999999999999999999h",
       "failed to parse duration @every 99999999999999999999h: time: invalid duration "
       "\"99999999999999999999h\""},
      {"TZ=Mars/Base 0 0 * * *", "provided bad location Mars/Base: unknown time zone Mars/Base"},
      {"CRON_TZ=../x 0 0 * * *", "provided bad location ../x: time: invalid location name"},
      // v1.32's parser panics on a zone with nothing after it; later releases say this.
      {"TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [:-1]"},
      {"TZ=UTC 0 0 * *", "expected exactly 5 fields, found 4: [0 0 * *]"},
  }));
  CAPTURE(c.spec);
  auto parsed = common::parse_cron_schedule(c.spec, root.str());
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error() == c.error);
}

TEST_CASE("next activations skip short months and follow cron's day rule", "[cron]") {
  struct Case {
    std::string spec;
    std::string after;
    std::string next;
  };
  auto c = GENERATE(values<Case>({
      {"*/5 * * * *", "2024-01-01T00:00:00Z", "2024-01-01T00:05:00Z"},
      {"*/5 * * * *", "2024-01-01T00:04:59.5Z", "2024-01-01T00:05:00Z"},
      {"*/5 * * * *", "2024-01-31T23:58:00Z", "2024-02-01T00:00:00Z"},
      {"0 0 31 * *", "2024-01-31T00:00:00Z", "2024-03-31T00:00:00Z"},
      {"0 0 31 * *", "2024-04-01T00:00:00Z", "2024-05-31T00:00:00Z"},
      {"0 12 29 2 *", "2023-03-01T00:00:00Z", "2024-02-29T12:00:00Z"},
      {"0 0 1 1 *", "2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z"},
      {"30 6-16/4 * * 1-5", "2024-09-06T15:00:00Z", "2024-09-09T06:30:00Z"},
      // Both day fields restricted: either matches (2024-09-06 is a Friday).
      {"0 0 13 * FRI", "2024-09-01T00:00:00Z", "2024-09-06T00:00:00Z"},
      // '?' is a star: only the 13th.
      {"0 0 13 * ?", "2024-09-01T00:00:00Z", "2024-09-13T00:00:00Z"},
      // A star with a step is no star: either day field matches.
      {"0 0 13 * */2", "2024-09-01T00:00:00Z", "2024-09-03T00:00:00Z"},
      {"@yearly", "2024-03-01T00:00:00Z", "2025-01-01T00:00:00Z"},
      {"@monthly", "2024-02-15T10:00:00Z", "2024-03-01T00:00:00Z"},
      {"@weekly", "2024-09-01T00:00:00Z", "2024-09-08T00:00:00Z"},
      {"@daily", "2024-09-01T10:00:00Z", "2024-09-02T00:00:00Z"},
      {"@hourly", "2024-09-01T10:00:00Z", "2024-09-01T11:00:00Z"},
      {"@every 90s", "2024-01-01T10:00:00.7Z", "2024-01-01T10:01:30Z"},
      {"@every 1500ms", "2024-01-01T10:00:00Z", "2024-01-01T10:00:01Z"},
      {"@every 100ms", "2024-01-01T10:00:00Z", "2024-01-01T10:00:01Z"},
      {"59 23 31 2 *", "2024-01-01T00:00:00Z", "never"},
  }));
  CAPTURE(c.spec, c.after);
  CHECK(next(c.spec, c.after) == c.next);
}

TEST_CASE("a TZ= prefix reads the fields in its zone, DST changes included", "[cron]") {
  testing_support::TempDir root;
  std::filesystem::create_directories(root.path() / "Test");
  testing_support::overwrite_file(root.path() / "Test" / "Eastern",
                                  testing_support::eastern_tzif());
  auto in_eastern = [&](const std::string& fields, const std::string& after) {
    return next("TZ=Test/Eastern " + fields, after, root.str());
  };
  // 9:00 is 14:00Z in EST and 13:00Z in EDT (from 2024-03-10).
  CHECK(in_eastern("0 9 * * *", "2024-03-09T15:00:00Z") == "2024-03-10T13:00:00Z");
  // 2:30 does not exist on 2024-03-10: that day has no run.
  CHECK(in_eastern("30 2 * * *", "2024-03-09T17:00:00Z") == "2024-03-11T06:30:00Z");
  // 1:30 happens twice on 2024-11-03 (EDT, then EST): both run.
  CHECK(in_eastern("30 1 * * *", "2024-11-03T04:00:00Z") == "2024-11-03T05:30:00Z");
  CHECK(in_eastern("30 1 * * *", "2024-11-03T05:30:00Z") == "2024-11-03T06:30:00Z");
  CHECK(in_eastern("@daily", "2024-07-01T12:00:00Z") == "2024-07-02T04:00:00Z");
  // @every ignores the zone.
  CHECK(in_eastern("@every 1h", "2024-07-01T12:00:00Z") == "2024-07-01T13:00:00Z");
}
