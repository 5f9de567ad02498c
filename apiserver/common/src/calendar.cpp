// Years are counted from March 1st, so that the leap day is the last day of a year and a 400-year
// era has a fixed length (146097 days): both ways are then plain arithmetic, with no table and no
// loop.
#include "common/calendar.h"

namespace common {
namespace {

constexpr int64_t kDaysPerEra = 146097;
constexpr int64_t kEpochShift = 719468;  // days from 0000-03-01 to 1970-01-01

}  // namespace

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0 && a < 0) ? 1 : 0);
}

int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = floor_div(year, 400);
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * kDaysPerEra + day_of_era - kEpochShift;
}

CivilDate civil_from_days(int64_t days) {
  const int64_t shifted = days + kEpochShift;
  const int64_t era = floor_div(shifted, kDaysPerEra);
  const int64_t day_of_era = shifted - era * kDaysPerEra;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t shifted_month = (5 * day_of_year + 2) / 153;  // 0 is March
  CivilDate date;
  date.month = static_cast<int>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  date.year = year_of_era + era * 400 + (date.month <= 2 ? 1 : 0);
  date.day = static_cast<int>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  date.weekday = static_cast<int>(((days % 7) + 11) % 7);
  return date;
}

bool leap_year(int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int days_in_month(int64_t year, int64_t month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap_year(year) ? 29 : kDays[month - 1];
}

}  // namespace common
