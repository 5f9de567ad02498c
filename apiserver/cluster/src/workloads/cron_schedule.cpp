#include "workloads/cron_schedule.h"

#include <array>
#include <charconv>
#include <limits>
#include <vector>

namespace cluster {
namespace {

constexpr uint64_t kStar = uint64_t{1} << 63;

struct Field {
  uint64_t lo;
  uint64_t hi;
  // Lower-case names for the values lo, lo+1, ... (months and weekdays), or null.
  const std::array<std::string_view, 12>* names;
};

constexpr std::array<std::string_view, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                      "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kWeekdays = {"sun", "mon", "tue", "wed",
                                                        "thu", "fri", "sat"};
constexpr Field kFields[5] = {
    {0, 59, nullptr}, {0, 23, nullptr}, {1, 31, nullptr}, {1, 12, &kMonths}, {0, 6, &kWeekdays}};

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// The non-empty pieces of `text` between separators.
template <class IsSeparator>
std::vector<std::string_view> pieces(std::string_view text, IsSeparator separator) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || separator(text[i])) {
      if (i > begin) {
        out.push_back(text.substr(begin, i - begin));
      }
      begin = i + 1;
    }
  }
  return out;
}

std::string text(std::string_view s) {
  return std::string(s);
}

// A decimal number (a leading + allowed, as Go's Atoi does), not negative.
common::Result<uint64_t> number(std::string_view s) {
  using Failure = common::Result<uint64_t>;
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || end != digits.data() + digits.size() || digits[0] == '+' ||
      digits[0] == '-') {
    return Failure::failure("failed to parse int from " + text(s) + ": strconv.Atoi: parsing \"" +
                            text(s) + "\": invalid syntax");
  }
  if (ec != std::errc() || value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Failure::failure("failed to parse int from " + text(s) + ": strconv.Atoi: parsing \"" +
                            text(s) + "\": value out of range");
  }
  if (negative && value != 0) {
    return Failure::failure("negative number (-" + std::to_string(value) +
                            ") not allowed: " + text(s));
  }
  return value;
}

common::Result<uint64_t> value_or_name(std::string_view s, const Field& field) {
  if (field.names != nullptr) {
    std::string lower(s);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') {
        c = static_cast<char>(c - 'A' + 'a');
      }
    }
    for (size_t i = 0; i < field.names->size(); ++i) {
      if (!(*field.names)[i].empty() && (*field.names)[i] == lower) {
        return field.lo + i;
      }
    }
  }
  return number(s);
}

// One item of a field's list: `*`, `?`, `n`, `a-b`, each maybe with `/step`.
common::Result<uint64_t> item_bits(std::string_view item, const Field& field) {
  using Failure = common::Result<uint64_t>;
  const size_t first_slash = item.find('/');
  const std::string_view range = item.substr(0, first_slash);
  const bool stepped = first_slash != std::string_view::npos;
  if (stepped && item.find('/', first_slash + 1) != std::string_view::npos) {
    return Failure::failure("too many slashes: " + text(item));
  }
  uint64_t lo = 0, hi = 0, step = 1, star = 0;
  const size_t dash = range.find('-');
  if (range == "*" || range == "?") {
    lo = field.lo;
    hi = field.hi;
    star = kStar;
  } else {
    if (dash != std::string_view::npos && range.find('-', dash + 1) != std::string_view::npos) {
      return Failure::failure("too many hyphens: " + text(item));
    }
    auto a = value_or_name(range.substr(0, dash), field);
    if (!a) {
      return a;
    }
    lo = hi = *a;
    if (dash != std::string_view::npos) {
      auto b = value_or_name(range.substr(dash + 1), field);
      if (!b) {
        return b;
      }
      hi = *b;
    }
  }
  if (stepped) {
    auto s = number(item.substr(first_slash + 1));
    if (!s) {
      return s;
    }
    step = *s;
    if (dash == std::string_view::npos) {
      hi = field.hi;  // "n/step" runs to the end of the field
    }
    if (step > 1) {
      star = 0;
    }
  }
  const std::string where = ": " + text(item);
  if (lo < field.lo) {
    return Failure::failure("beginning of range (" + std::to_string(lo) + ") below minimum (" +
                            std::to_string(field.lo) + ")" + where);
  }
  if (hi > field.hi) {
    return Failure::failure("end of range (" + std::to_string(hi) + ") above maximum (" +
                            std::to_string(field.hi) + ")" + where);
  }
  if (lo > hi) {
    return Failure::failure("beginning of range (" + std::to_string(lo) +
                            ") beyond end of range (" + std::to_string(hi) + ")" + where);
  }
  if (step == 0) {
    return Failure::failure("step of range should be a positive number" + where);
  }
  uint64_t bits = star;
  for (uint64_t v = lo; v <= hi; v += step) {
    bits |= uint64_t{1} << v;
  }
  return bits;
}

// Go's time.ParseDuration, in nanoseconds; the error is its text.
common::Result<int64_t> go_duration(std::string_view original) {
  using Failure = common::Result<int64_t>;
  const std::string invalid = "time: invalid duration \"" + text(original) + "\"";
  std::string_view s = original;
  double sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  if (s == "0") {
    return int64_t{0};
  }
  if (s.empty()) {
    return Failure::failure(invalid);
  }
  struct Unit {
    std::string_view name;
    double nanos;
  };
  static constexpr Unit kUnits[] = {{"ns", 1},          {"us", 1e3},  {"\xC2\xB5s", 1e3},
                                    {"\xCE\xBCs", 1e3}, {"ms", 1e6},  {"s", 1e9},
                                    {"m", 60e9},        {"h", 3600e9}};
  double total = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && digit(s[i])) {
      ++i;
    }
    size_t j = i;
    if (j < s.size() && s[j] == '.') {
      ++j;
      while (j < s.size() && digit(s[j])) {
        ++j;
      }
    }
    if (j == 0 || (i == 0 && j == 1)) {
      return Failure::failure(invalid);
    }
    double value = 0;
    std::from_chars(s.data(), s.data() + j, value);  // digits and one dot: always a number
    s.remove_prefix(j);
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !digit(s[u])) {
      ++u;
    }
    if (u == 0) {
      return Failure::failure("time: missing unit in duration \"" + text(original) + "\"");
    }
    const Unit* unit = nullptr;
    for (const Unit& candidate : kUnits) {
      if (candidate.name == s.substr(0, u)) {
        unit = &candidate;
      }
    }
    if (unit == nullptr) {
      return Failure::failure("time: unknown unit \"" + text(s.substr(0, u)) + "\" in duration \"" +
                              text(original) + "\"");
    }
    total += value * unit->nanos;
    if (total > 9.2e18) {
      return Failure::failure(invalid);
    }
    s.remove_prefix(u);
  }
  return static_cast<int64_t>(sign * total);
}

CronSchedule fixed(uint64_t minute, uint64_t hour, uint64_t dom, uint64_t month, uint64_t dow) {
  return CronSchedule{minute, hour, dom, month, dow, std::chrono::seconds(0), ""};
}

uint64_t every_value(const Field& f) {
  uint64_t bits = kStar;
  for (uint64_t v = f.lo; v <= f.hi; ++v) {
    bits |= uint64_t{1} << v;
  }
  return bits;
}

common::Result<CronSchedule> descriptor(std::string_view spec) {
  using Failure = common::Result<CronSchedule>;
  const uint64_t any_hour = every_value(kFields[1]), any_dom = every_value(kFields[2]),
                 any_month = every_value(kFields[3]), any_dow = every_value(kFields[4]);
  if (spec == "@yearly" || spec == "@annually") {
    return fixed(1, 1, 1 << 1, 1 << 1, any_dow);
  }
  if (spec == "@monthly") {
    return fixed(1, 1, 1 << 1, any_month, any_dow);
  }
  if (spec == "@weekly") {
    return fixed(1, 1, any_dom, any_month, 1);
  }
  if (spec == "@daily" || spec == "@midnight") {
    return fixed(1, 1, any_dom, any_month, any_dow);
  }
  if (spec == "@hourly") {
    return fixed(1, any_hour, any_dom, any_month, any_dow);
  }
  constexpr std::string_view kEvery = "@every ";
  if (spec.substr(0, kEvery.size()) == kEvery) {
    auto nanos = go_duration(spec.substr(kEvery.size()));
    if (!nanos) {
      return Failure::failure("failed to parse duration " + text(spec) + ": " + nanos.error());
    }
    CronSchedule s;
    // At least a second, and whole seconds, as robfig's Every.
    s.every = std::chrono::seconds(std::max<int64_t>(*nanos / 1000000000, 1));
    return s;
  }
  return Failure::failure("unrecognized descriptor: " + text(spec));
}

bool has(uint64_t bits, int64_t value) {
  return ((bits >> value) & 1) != 0;
}

bool day_matches(const CronSchedule& s, const CivilTime& c) {
  const bool dom = has(s.day_of_month, c.day);
  const bool dow = has(s.day_of_week, c.weekday);
  if ((s.day_of_month & kStar) != 0 || (s.day_of_week & kStar) != 0) {
    return dom && dow;
  }
  return dom || dow;
}

}  // namespace

common::Result<CronSchedule> parse_cron_schedule(std::string_view spec) {
  using Failure = common::Result<CronSchedule>;
  if (spec.empty()) {
    return Failure::failure("empty spec string");
  }
  std::string zone;
  if (spec.substr(0, 3) == "TZ=" || spec.substr(0, 8) == "CRON_TZ=") {
    const size_t eq = spec.find('=');
    const size_t space = spec.find(' ');
    if (space == std::string_view::npos) {
      return Failure::failure("provided bad location: missing schedule after the zone");
    }
    zone = text(spec.substr(eq + 1, space - eq - 1));
    if (auto loaded = TimeZone::load(zone); !loaded) {
      return Failure::failure("provided bad location " + zone + ": " + loaded.error());
    }
    spec = spec.substr(space);
    while (!spec.empty() && blank(spec.front())) {
      spec.remove_prefix(1);
    }
    while (!spec.empty() && blank(spec.back())) {
      spec.remove_suffix(1);
    }
  }
  if (!spec.empty() && spec[0] == '@') {
    auto parsed = descriptor(spec);
    if (parsed) {
      parsed->zone = zone;
    }
    return parsed;
  }
  const auto words = pieces(spec, blank);
  if (words.size() != 5) {
    std::string list;
    for (std::string_view w : words) {
      list += (list.empty() ? "" : " ") + text(w);
    }
    return Failure::failure("expected exactly 5 fields, found " + std::to_string(words.size()) +
                            ": [" + list + "]");
  }
  uint64_t bits[5] = {};
  for (size_t f = 0; f < 5; ++f) {
    for (std::string_view item : pieces(words[f], [](char c) { return c == ','; })) {
      auto b = item_bits(item, kFields[f]);
      if (!b) {
        return Failure::failure(b.error());
      }
      bits[f] |= *b;
    }
  }
  CronSchedule s = fixed(bits[0], bits[1], bits[2], bits[3], bits[4]);
  s.zone = zone;
  return s;
}

std::optional<std::chrono::system_clock::time_point> next_activation(
    const CronSchedule& s, const TimeZone& zone, std::chrono::system_clock::time_point after) {
  using std::chrono::system_clock;
  const auto since_epoch = after.time_since_epoch();
  auto whole = std::chrono::floor<std::chrono::seconds>(since_epoch);
  if (s.every.count() > 0) {
    return system_clock::time_point(
        std::chrono::duration_cast<system_clock::duration>(whole + s.every));
  }
  // From the next whole second, walk month, day, hour, minute forward until each matches; a
  // field that wraps around sends the walk back to the month (robfig's SpecSchedule.Next).
  int64_t t = whole.count() + 1;
  const int64_t year_limit = zone.civil(t).year + 5;
  bool moved = false;  // once a field moved, the smaller fields start from their first value
  while (true) {
    CivilTime c = zone.civil(t);
    if (c.year > year_limit) {
      return std::nullopt;
    }
    bool wrapped = false;
    while (!wrapped && !has(s.month, c.month)) {
      if (!moved) {
        moved = true;
        t = zone.instant(c.year, c.month, 1, 0, 0, 0);
        c = zone.civil(t);
      }
      t = zone.instant(c.year, c.month + 1, c.day, c.hour, c.minute, c.second);
      c = zone.civil(t);
      wrapped = c.month == 1;
    }
    while (!wrapped && !day_matches(s, c)) {
      if (!moved) {
        moved = true;
        t = zone.instant(c.year, c.month, c.day, 0, 0, 0);
        c = zone.civil(t);
      }
      t = zone.instant(c.year, c.month, c.day + 1, c.hour, c.minute, c.second);
      c = zone.civil(t);
      // A DST change at midnight moves the day's start: back to 0:00 where possible.
      if (c.hour != 0) {
        t += c.hour > 12 ? (24 - c.hour) * int64_t{3600} : -c.hour * int64_t{3600};
        c = zone.civil(t);
      }
      wrapped = c.day == 1;
    }
    while (!wrapped && !has(s.hour, c.hour)) {
      if (!moved) {
        moved = true;
        t = zone.instant(c.year, c.month, c.day, c.hour, 0, 0);
      }
      t += 3600;
      c = zone.civil(t);
      wrapped = c.hour == 0;
    }
    while (!wrapped && !has(s.minute, c.minute)) {
      if (!moved) {
        moved = true;
        t -= ((t % 60) + 60) % 60;
      }
      t += 60;
      c = zone.civil(t);
      wrapped = c.minute == 0;
    }
    // The standard parser's second field is always 0.
    while (!wrapped && c.second != 0) {
      moved = true;
      t += 1;
      c = zone.civil(t);
      wrapped = c.second == 0;
    }
    if (!wrapped) {
      return system_clock::time_point(
          std::chrono::duration_cast<system_clock::duration>(std::chrono::seconds(t)));
    }
  }
}

}  // namespace cluster
