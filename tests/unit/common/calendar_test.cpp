// The proleptic Gregorian calendar (common/calendar.h) both ways, weekdays, leap years and days
// past a month's end.
#include "common/calendar.h"

#include <catch2/catch.hpp>

TEST_CASE("dates and day counts convert both ways", "[calendar]") {
  struct Case {
    int64_t year;
    int month;
    int day;
    int64_t days;
    int weekday;
  };
  auto c = GENERATE(values<Case>({
      {1970, 1, 1, 0, 4},
      {1969, 12, 31, -1, 3},
      {2000, 2, 29, 11016, 2},
      {2000, 3, 1, 11017, 3},
      {2024, 3, 10, 19792, 0},
      {1600, 1, 1, -135140, 6},
      {-1, 12, 31, -719529, 5},
  }));
  CAPTURE(c.year, c.month, c.day);
  CHECK(common::days_from_civil(c.year, c.month, c.day) == c.days);
  const common::CivilDate date = common::civil_from_days(c.days);
  CHECK(date.year == c.year);
  CHECK(date.month == c.month);
  CHECK(date.day == c.day);
  CHECK(date.weekday == c.weekday);
}

TEST_CASE("a day past the end of its month counts on into the next", "[calendar]") {
  CHECK(common::days_from_civil(2024, 2, 30) == common::days_from_civil(2024, 3, 1));
  CHECK(common::days_from_civil(2023, 2, 29) == common::days_from_civil(2023, 3, 1));
  CHECK(common::days_from_civil(2024, 12, 32) == common::days_from_civil(2025, 1, 1));
}

TEST_CASE("leap years and month lengths", "[calendar]") {
  CHECK(common::leap_year(2024));
  CHECK(common::leap_year(2000));
  CHECK_FALSE(common::leap_year(2100));
  CHECK_FALSE(common::leap_year(2023));
  CHECK(common::days_in_month(2024, 2) == 29);
  CHECK(common::days_in_month(2100, 2) == 28);
  CHECK(common::days_in_month(2023, 4) == 30);
  CHECK(common::days_in_month(2023, 12) == 31);
  CHECK(common::floor_div(-1, 86400) == -1);
  CHECK(common::floor_div(86400, 86400) == 1);
  CHECK(common::floor_div(-86400, 86400) == -1);
}
