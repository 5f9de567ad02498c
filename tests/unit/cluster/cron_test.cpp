// CronJob schedules (workloads/cron_schedule), time zones (workloads/time_zone) and the CronJob
// controller's names and clock (workloads/cron_job_controller).
#include <filesystem>

#include <catch2/catch.hpp>

#include "client/objects.h"
#include "workloads/cron_job_controller.h"
#include "workloads/cron_schedule.h"
#include "workloads/time_zone.h"

using std::chrono::system_clock;

namespace {

system_clock::time_point at(const std::string& rfc3339) {
  auto t = cluster::parse_time(rfc3339);
  REQUIRE(t.has_value());
  return *t;
}

// The next activation after `after`, as RFC 3339 in UTC ("never" when there is none).
std::string next(const std::string& spec, const std::string& after,
                 const cluster::TimeZone& zone = cluster::TimeZone()) {
  auto schedule = cluster::parse_cron_schedule(spec);
  REQUIRE(schedule.ok());
  auto t = cluster::next_activation(*schedule, zone, at(after));
  return t ? cluster::rfc3339(*t) : "never";
}

int64_t unix_of(system_clock::time_point t) {
  return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

bool have_zoneinfo() {
  std::error_code ec;
  return std::filesystem::exists("/usr/share/zoneinfo/America/New_York", ec);
}

}  // namespace

TEST_CASE("schedules parse as robfig/cron's ParseStandard reads them", "[cluster][cron]") {
  auto spec =
      GENERATE(as<std::string>{}, "*/5 * * * *", "0 9-17 * JAN-MAR mon,wed,FRI", "0 0 * * ?",
               "15 3/10 1,15 * *", "@yearly", "@annually", "@monthly", "@weekly", "@daily",
               "@midnight", "@hourly", "@every 1h30m", "  0   0 * * *  ");
  CAPTURE(spec);
  CHECK(cluster::parse_cron_schedule(spec).ok());
}

TEST_CASE("bad schedules fail with robfig/cron's error text", "[cluster][cron]") {
  struct Case {
    std::string spec;
    std::string error;
  };
  auto c = GENERATE(values<Case>({
      {"", "empty spec string"},
      {"60 * * * *", "end of range (60) above maximum (59): 60"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"* * * * 7", "end of range (7) above maximum (6): 7"},
      {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
      {"*/2/3 * * * *", "too many slashes: */2/3"},
      {"x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
      {"0 0 0 * * *", "expected exactly 5 fields, found 6: [0 0 0 * * *]"},
      {"@fortnightly", "unrecognized descriptor: @fortnightly"},
      {"@every 5x",
       "failed to parse duration @every 5x: time: unknown unit \"x\" in duration \"5x\""},
      {"TZ=Mars/Base 0 0 * * *", "provided bad location Mars/Base: unknown time zone Mars/Base"},
  }));
  CAPTURE(c.spec);
  auto parsed = cluster::parse_cron_schedule(c.spec);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error() == c.error);
}

TEST_CASE("next activations skip short months and follow cron's day rule", "[cluster][cron]") {
  struct Case {
    std::string spec;
    std::string after;
    std::string next;
  };
  auto c = GENERATE(values<Case>({
      {"*/5 * * * *", "2024-01-01T00:00:00Z", "2024-01-01T00:05:00Z"},
      {"*/5 * * * *", "2024-01-31T23:58:00Z", "2024-02-01T00:00:00Z"},
      {"0 0 31 * *", "2024-01-31T00:00:00Z", "2024-03-31T00:00:00Z"},
      {"0 0 31 * *", "2024-04-01T00:00:00Z", "2024-05-31T00:00:00Z"},
      {"0 12 29 2 *", "2023-03-01T00:00:00Z", "2024-02-29T12:00:00Z"},
      {"0 0 1 1 *", "2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z"},
      // Both day fields restricted: either matches (2024-09-06 is a Friday).
      {"0 0 13 * FRI", "2024-09-01T00:00:00Z", "2024-09-06T00:00:00Z"},
      // '?' is a star: only the 13th.
      {"0 0 13 * ?", "2024-09-01T00:00:00Z", "2024-09-13T00:00:00Z"},
      {"@weekly", "2024-09-01T00:00:00Z", "2024-09-08T00:00:00Z"},
      {"@monthly", "2024-02-15T10:00:00Z", "2024-03-01T00:00:00Z"},
      {"@every 90s", "2024-01-01T10:00:00Z", "2024-01-01T10:01:30Z"},
      {"59 23 31 2 *", "2024-01-01T00:00:00Z", "never"},
  }));
  CAPTURE(c.spec, c.after);
  CHECK(next(c.spec, c.after) == c.next);
}

TEST_CASE("zone names that could leave the zoneinfo folder are refused", "[cluster][cron]") {
  CHECK(cluster::TimeZone::load("../etc/passwd").error() == "time: invalid location name");
  CHECK(cluster::TimeZone::load("/etc/localtime").error() == "time: invalid location name");
  CHECK(cluster::TimeZone::load("Mars/Base").error() == "unknown time zone Mars/Base");
  CHECK(cluster::TimeZone::load("").ok());
  CHECK(cluster::TimeZone::load("UTC").ok());
}

TEST_CASE("schedules in America/New_York follow its DST changes", "[cluster][cron]") {
  if (!have_zoneinfo()) {
    WARN("no /usr/share/zoneinfo on this machine: skipped");
    return;
  }
  auto ny = cluster::TimeZone::load("America/New_York");
  REQUIRE(ny.ok());
  // 9:00 is 14:00Z in EST and 13:00Z in EDT (from 2024-03-10).
  CHECK(next("0 9 * * *", "2024-03-09T15:00:00Z", *ny) == "2024-03-10T13:00:00Z");
  // 2:30 does not exist on 2024-03-10: that day has no run.
  CHECK(next("30 2 * * *", "2024-03-09T17:00:00Z", *ny) == "2024-03-11T06:30:00Z");
  // 1:30 happens twice on 2024-11-03 (EDT, then EST): both run.
  CHECK(next("30 1 * * *", "2024-11-03T04:00:00Z", *ny) == "2024-11-03T05:30:00Z");
  CHECK(next("30 1 * * *", "2024-11-03T05:30:00Z", *ny) == "2024-11-03T06:30:00Z");
  // Past the file's transitions the footer's rule (EST5EDT,M3.2.0,M11.1.0) applies.
  CHECK(ny->civil(unix_of(at("2100-07-01T12:00:00Z"))).hour == 8);
  CHECK(ny->civil(unix_of(at("2100-12-01T12:00:00Z"))).hour == 7);
  CHECK(cluster::rfc3339_in(*ny, at("2024-03-11T06:30:00Z")) == "2024-03-11T02:30:00-04:00");
  CHECK(cluster::rfc3339_in(*ny, at("2024-01-11T06:30:00Z")) == "2024-01-11T01:30:00-05:00");
}

TEST_CASE("a run's Job is named after its scheduled minute", "[cluster][cron]") {
  CHECK(cluster::cron_job_name("hello", at("2024-01-01T00:05:00Z")) == "hello-28401125");
  CHECK(cluster::rfc3339_in(cluster::TimeZone(), at("2024-01-01T00:05:00Z")) ==
        "2024-01-01T00:05:00Z");
}

TEST_CASE("the CronJob controller's clock runs N times faster from the start", "[cluster][cron]") {
  cluster::CronClock clock{at("2024-01-01T00:00:00Z"), 60};
  CHECK(cluster::rfc3339(clock.virtual_time(at("2024-01-01T00:00:05Z"))) == "2024-01-01T00:05:00Z");
  CHECK(cluster::rfc3339(clock.virtual_time(at("2024-01-01T00:01:00Z"))) == "2024-01-01T01:00:00Z");
  // Before the start, time is what it was.
  CHECK(cluster::rfc3339(clock.virtual_time(at("2023-12-31T23:00:00Z"))) == "2023-12-31T23:00:00Z");
  CHECK(clock.real_delay(std::chrono::minutes(5)) == std::chrono::seconds(5));
  CHECK(clock.real_delay(-std::chrono::seconds(1)) == common::Clock::duration::zero());
  cluster::CronClock real{at("2024-01-01T00:00:00Z"), 1};
  CHECK(real.real_delay(std::chrono::minutes(5)) == std::chrono::minutes(5));
}
