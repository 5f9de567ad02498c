// The proleptic Gregorian calendar as plain arithmetic on days since 1970-01-01 (negative before
// it), for any year an int64 of days can hold: what RFC 3339 times and time zone conversions are
// built on. Pure functions, callable from any thread.
#pragma once

#include <cstdint>

namespace common {

struct CivilDate {
  int64_t year = 1970;
  int month = 1;    // 1-12
  int day = 1;      // 1-31
  int weekday = 4;  // 0 = Sunday; 1970-01-01 was a Thursday
};

// Days since 1970-01-01 of year-month-day. `month` is 1-12 and `day` 1-31; a day past the month's
// end counts on into the next month (February 30 is March 1 or 2).
int64_t days_from_civil(int64_t year, int64_t month, int64_t day);

// The date `days` after 1970-01-01.
CivilDate civil_from_days(int64_t days);

bool leap_year(int64_t year);
// 28-31; `month` is 1-12.
int days_in_month(int64_t year, int64_t month);

// a / b rounded towards negative infinity (b > 0): the day of a negative second count.
int64_t floor_div(int64_t a, int64_t b);

}  // namespace common
