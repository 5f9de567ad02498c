// Time zones (common/time_zone.h) as Go's time package reads them: loading by name, TZif files,
// the footer's rule, Go's lookups and time.Date around DST changes. The zones are written by the
// tests (tzif.h); one case reads the system's America/New_York when there is one.
#include "common/time_zone.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "../temp_dir.h"
#include "common/rfc3339.h"
#include "tzif.h"

using common::TimeZone;
using testing_support::eastern_tzif;
using testing_support::tzif;

namespace {

int64_t unix_at(const std::string& text) {
  auto t = common::parse_rfc3339(text);
  REQUIRE(t.has_value());
  return t->seconds;
}

TimeZone eastern() {
  auto zone = TimeZone::from_tzif("Test/Eastern", eastern_tzif());
  REQUIRE(zone.ok());
  return *zone;
}

}  // namespace

TEST_CASE("zones load by name as time.LoadLocation loads them", "[time_zone]") {
  testing_support::TempDir root;
  std::filesystem::create_directories(root.path() / "Test");
  testing_support::overwrite_file(root.path() / "Test" / "Eastern", eastern_tzif());
  testing_support::overwrite_file(root.path() / "Test" / "Notes", "not a zone\n");

  auto loaded = TimeZone::load("Test/Eastern", root.str());
  REQUIRE(loaded.ok());
  CHECK(loaded->name() == "Test/Eastern");
  CHECK(loaded->lookup(unix_at("2024-07-01T00:00:00Z")).offset == -4 * 3600);
  for (const char* utc : {"", "UTC", "Local"}) {
    auto zone = TimeZone::load(utc, root.str());
    REQUIRE(zone.ok());
    CHECK(zone->lookup(unix_at("2024-07-01T00:00:00Z")).offset == 0);
  }
  auto error = [&](const char* name) { return TimeZone::load(name, root.str()).error(); };
  CHECK(error("../etc/passwd") == "time: invalid location name");
  CHECK(error("Test/..x") == "time: invalid location name");
  CHECK(error("/etc/localtime") == "time: invalid location name");
  CHECK(error("\\x") == "time: invalid location name");
  CHECK(error("Mars/Base") == "unknown time zone Mars/Base");
  CHECK(error("Test/Eastern/x") == "not a directory");
  CHECK(error("Test") == "is a directory");
  CHECK(error("Test/Notes") == "malformed time zone information");
}

TEST_CASE("TZif files that do not hold together are malformed", "[time_zone]") {
  const std::string good = eastern_tzif();
  CHECK(TimeZone::from_tzif("x", good).ok());
  CHECK(TimeZone::from_tzif("x", good.substr(0, 60)).error() == "malformed time zone information");
  std::string bad_version = good;
  bad_version[4] = '9';
  CHECK_FALSE(TimeZone::from_tzif("x", bad_version).ok());
  // A transition to a type that does not exist.
  CHECK_FALSE(TimeZone::from_tzif("x", tzif({{0, 3}}, {{0, false}}, "")).ok());
  // No types at all.
  CHECK_FALSE(TimeZone::from_tzif("x", tzif({}, {}, "")).ok());
}

TEST_CASE("offsets come from the transitions, then from the footer's rule", "[time_zone]") {
  // Version 1 (32-bit times): -01:00 until the epoch, +02:00 after.
  auto v1 = TimeZone::from_tzif("v1", tzif({{0, 1}}, {{-3600, false}, {7200, false}}, "", 1));
  REQUIRE(v1.ok());
  CHECK(v1->lookup(-1).offset == -3600);
  CHECK(v1->lookup(0).offset == 7200);
  CHECK(v1->lookup(0).start == 0);

  // Before the first transition Go takes a standard type near it (lookupFirstZone): here the
  // first transition goes to daylight time (type 3), so the standard type before it (2).
  auto first = TimeZone::from_tzif(
      "first", tzif({{100, 3}, {200, 0}}, {{10, false}, {20, true}, {30, false}, {40, true}}, ""));
  REQUIRE(first.ok());
  CHECK(first->lookup(50).offset == 30);
  CHECK(first->lookup(150).offset == 40);
  CHECK(first->lookup(250).offset == 10);

  // After the last transition the rule counts: DST from 2024-03-10 07:00Z to 11-03 06:00Z.
  const TimeZone zone = eastern();
  CHECK(zone.lookup(unix_at("2024-03-10T06:59:59Z")).offset == -5 * 3600);
  CHECK(zone.lookup(unix_at("2024-03-10T07:00:00Z")).offset == -4 * 3600);
  CHECK(zone.lookup(unix_at("2024-11-03T05:59:59Z")).offset == -4 * 3600);
  CHECK(zone.lookup(unix_at("2024-11-03T06:00:00Z")).offset == -5 * 3600);
  CHECK(zone.civil(unix_at("2100-07-01T12:00:00Z")).hour == 8);
  CHECK(zone.civil(unix_at("2100-12-01T12:00:00Z")).hour == 7);

  // A southern rule (DST over the new year): AEST-10AEDT,M10.1.0,M4.1.0/3.
  auto south =
      TimeZone::from_tzif("south", tzif({}, {{36000, false}}, "AEST-10AEDT,M10.1.0,M4.1.0/3"));
  REQUIRE(south.ok());
  CHECK(south->lookup(unix_at("2024-01-15T00:00:00Z")).offset == 11 * 3600);
  CHECK(south->lookup(unix_at("2024-07-15T00:00:00Z")).offset == 10 * 3600);
  // A footer Go cannot read leaves the last transition's type in force.
  auto unread = TimeZone::from_tzif("unread", tzif({{0, 0}}, {{3600, false}}, "X1"));
  REQUIRE(unread.ok());
  CHECK(unread->lookup(unix_at("2024-07-15T00:00:00Z")).offset == 3600);
}

TEST_CASE("wall-clock times resolve to instants as time.Date resolves them", "[time_zone]") {
  const TimeZone zone = eastern();
  CHECK(zone.instant(2024, 1, 15, 9, 0, 0) == unix_at("2024-01-15T14:00:00Z"));
  CHECK(zone.instant(2024, 7, 15, 9, 0, 0) == unix_at("2024-07-15T13:00:00Z"));
  // Out-of-range fields carry over: month 13, day 0, hour 25.
  CHECK(zone.instant(2023, 13, 15, 9, 0, 0) == unix_at("2024-01-15T14:00:00Z"));
  CHECK(zone.instant(2024, 2, 0, 9, 0, 0) == unix_at("2024-01-31T14:00:00Z"));
  CHECK(zone.instant(2024, 1, 14, 33, 0, 0) == unix_at("2024-01-15T14:00:00Z"));
  // 2:30 does not exist on 2024-03-10; Go lands on 1:30 EST.
  CHECK(zone.instant(2024, 3, 10, 2, 30, 0) == unix_at("2024-03-10T06:30:00Z"));
  // 1:30 happens twice on 2024-11-03; Go takes the first (EDT).
  CHECK(zone.instant(2024, 11, 3, 1, 30, 0) == unix_at("2024-11-03T05:30:00Z"));
}

TEST_CASE("instants print as Go's RFC 3339 layout in the zone", "[time_zone]") {
  const TimeZone zone = eastern();
  CHECK(zone.rfc3339(unix_at("2024-03-11T06:30:00Z")) == "2024-03-11T02:30:00-04:00");
  CHECK(zone.rfc3339(unix_at("2024-01-11T06:30:00Z")) == "2024-01-11T01:30:00-05:00");
  CHECK(TimeZone().rfc3339(unix_at("2024-01-01T00:05:00Z")) == "2024-01-01T00:05:00Z");
  // An offset with seconds (local mean time) prints its whole minutes.
  auto lmt = TimeZone::from_tzif("lmt", tzif({}, {{-17762, false}}, ""));
  REQUIRE(lmt.ok());
  CHECK(lmt->rfc3339(unix_at("1880-01-01T12:00:00Z")) == "1880-01-01T07:03:58-04:56");
  auto india = TimeZone::from_tzif("india", tzif({}, {{19800, false}}, "IST-5:30"));
  REQUIRE(india.ok());
  CHECK(india->rfc3339(unix_at("2024-01-01T00:00:00Z")) == "2024-01-01T05:30:00+05:30");
}

TEST_CASE("the system's America/New_York reads as the written zone does", "[time_zone]") {
  if (!std::filesystem::exists(std::string(common::kZoneinfoRoot) + "/America/New_York")) {
    WARN("no system zoneinfo on this machine: skipped");
    return;
  }
  auto ny = TimeZone::load("America/New_York");
  REQUIRE(ny.ok());
  const TimeZone zone = eastern();
  for (const char* t : {"2024-03-10T06:59:59Z", "2024-03-10T07:00:00Z", "2024-11-03T05:59:59Z",
                        "2024-11-03T06:00:00Z", "2100-07-01T12:00:00Z"}) {
    CAPTURE(t);
    CHECK(ny->lookup(unix_at(t)).offset == zone.lookup(unix_at(t)).offset);
  }
  CHECK(ny->instant(2024, 3, 10, 2, 30, 0) == zone.instant(2024, 3, 10, 2, 30, 0));
  CHECK(ny->rfc3339(unix_at("1880-01-01T12:00:00Z")) == "1880-01-01T07:03:58-04:56");
}
