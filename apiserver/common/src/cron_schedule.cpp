#include "common/cron_schedule.h"

#include <array>
#include <vector>

#include "common/go_numbers.h"
#include "common/go_quote.h"

namespace common {
namespace {

using Failure = Result<CronSchedule>;

constexpr uint64_t kStar = uint64_t{1} << 63;

struct Bounds {
  uint64_t min;
  uint64_t max;
  // Lower-case names of the values min, min+1, ... (months and weekdays), or none.
  const std::array<std::string_view, 12>* names;
};

constexpr std::array<std::string_view, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                      "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kWeekdays = {"sun", "mon", "tue", "wed",
                                                        "thu", "fri", "sat"};
constexpr Bounds kMinutes{0, 59, nullptr};
constexpr Bounds kHours{0, 23, nullptr};
constexpr Bounds kDaysOfMonth{1, 31, nullptr};
constexpr Bounds kMonthBounds{1, 12, &kMonths};
constexpr Bounds kDaysOfWeek{0, 6, &kWeekdays};

// unicode.IsSpace, which strings.Fields and strings.TrimSpace split and trim on.
bool go_space(char32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

// The pieces of `s` between runs of separators (strings.Fields / strings.FieldsFunc): never an
// empty one.
template <class IsSeparator>
std::vector<std::string_view> fields(std::string_view s, IsSeparator separator) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t width = 1;
    const char32_t r = decode_rune(s, i, width);
    if (separator(r)) {
      if (i > begin) {
        out.push_back(s.substr(begin, i - begin));
      }
      begin = i + width;
    }
    i += width;
  }
  if (s.size() > begin) {
    out.push_back(s.substr(begin));
  }
  return out;
}

// strings.TrimSpace.
std::string_view trim_space(std::string_view s) {
  while (!s.empty()) {
    size_t width = 1;
    if (!go_space(decode_rune(s, 0, width))) {
      break;
    }
    s.remove_prefix(width);
  }
  // Step back over whole runes: the last space rune starts at a byte that is not a continuation.
  while (!s.empty()) {
    size_t start = s.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 &&
           s.size() - start < 4) {
      --start;
    }
    size_t width = 1;
    const char32_t r = decode_rune(s, start, width);
    if (start + width != s.size() || !go_space(r)) {
      break;
    }
    s.remove_suffix(width);
  }
  return s;
}

std::string text(std::string_view s) {
  return std::string(s);
}

// robfig's mustParseInt: strconv.Atoi, and no negative numbers.
Result<uint64_t> must_parse_int(std::string_view expr) {
  const GoAtoi n = go_atoi(expr);
  if (!n.error.empty()) {
    return "failed to parse int from " + text(expr) + ": " + n.error;
  }
  if (n.value < 0) {
    return "negative number (" + std::to_string(n.value) + ") not allowed: " + text(expr);
  }
  return static_cast<uint64_t>(n.value);
}

Result<uint64_t> int_or_name(std::string_view expr, const Bounds& r) {
  if (r.names != nullptr) {
    std::string lower(expr);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') {
        c = static_cast<char>(c - 'A' + 'a');
      }
    }
    for (size_t i = 0; i < r.names->size(); ++i) {
      if (!(*r.names)[i].empty() && (*r.names)[i] == lower) {
        return r.min + i;
      }
    }
  }
  return must_parse_int(expr);
}

// robfig's getRange: one item of a field's list, `*`, `?`, `n`, `a-b`, each maybe with `/step`,
// checked in robfig's order (so that the first error is robfig's first error).
Result<uint64_t> range_bits(std::string_view expr, const Bounds& r) {
  auto split = [](std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    size_t begin = 0;
    for (size_t at = s.find(sep); at != std::string_view::npos; at = s.find(sep, begin)) {
      parts.push_back(s.substr(begin, at - begin));
      begin = at + 1;
    }
    parts.push_back(s.substr(begin));
    return parts;
  };
  const auto range_and_step = split(expr, '/');
  const auto low_and_high = split(range_and_step[0], '-');
  uint64_t start = 0, end = 0, step = 1, extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = r.min;
    end = r.max;
    extra = kStar;
  } else {
    auto low = int_or_name(low_and_high[0], r);
    if (!low) {
      return low;
    }
    start = end = *low;
    if (low_and_high.size() == 2) {
      auto high = int_or_name(low_and_high[1], r);
      if (!high) {
        return high;
      }
      end = *high;
    } else if (low_and_high.size() > 2) {
      return "too many hyphens: " + text(expr);
    }
  }
  if (range_and_step.size() == 2) {
    auto parsed = must_parse_int(range_and_step[1]);
    if (!parsed) {
      return parsed;
    }
    step = *parsed;
    if (low_and_high.size() == 1) {
      end = r.max;  // "n/step" runs to the end of the field
    }
    if (step > 1) {
      extra = 0;
    }
  } else if (range_and_step.size() > 2) {
    return "too many slashes: " + text(expr);
  }
  const std::string where = ": " + text(expr);
  if (start < r.min) {
    return "beginning of range (" + std::to_string(start) + ") below minimum (" +
           std::to_string(r.min) + ")" + where;
  }
  if (end > r.max) {
    return "end of range (" + std::to_string(end) + ") above maximum (" + std::to_string(r.max) +
           ")" + where;
  }
  if (start > end) {
    return "beginning of range (" + std::to_string(start) + ") beyond end of range (" +
           std::to_string(end) + ")" + where;
  }
  if (step == 0) {
    return "step of range should be a positive number" + where;
  }
  uint64_t bits = extra;
  for (uint64_t v = start; v <= end; v += step) {
    bits |= uint64_t{1} << v;
  }
  return bits;
}

// robfig's getField: the union of the comma-separated items.
Result<uint64_t> field_bits(std::string_view field, const Bounds& r) {
  uint64_t bits = 0;
  for (std::string_view item : fields(field, [](char32_t c) { return c == ','; })) {
    auto b = range_bits(item, r);
    if (!b) {
      return b;
    }
    bits |= *b;
  }
  return bits;
}

uint64_t all(const Bounds& r) {
  uint64_t bits = kStar;
  for (uint64_t v = r.min; v <= r.max; ++v) {
    bits |= uint64_t{1} << v;
  }
  return bits;
}

CronSchedule fixed(uint64_t minute, uint64_t hour, uint64_t dom, uint64_t month, uint64_t dow,
                   const TimeZone& zone) {
  CronSchedule s;
  s.minute = minute;
  s.hour = hour;
  s.day_of_month = dom;
  s.month = month;
  s.day_of_week = dow;
  s.zone = zone;
  return s;
}

// robfig's parseDescriptor.
Failure descriptor(std::string_view spec, const TimeZone& zone) {
  const uint64_t first = 1;  // bit 0: minute 0, hour 0
  const uint64_t first_day = uint64_t{1} << kDaysOfMonth.min;
  const uint64_t january = uint64_t{1} << kMonthBounds.min;
  const uint64_t sunday = uint64_t{1} << kDaysOfWeek.min;
  if (spec == "@yearly" || spec == "@annually") {
    return fixed(first, first, first_day, january, all(kDaysOfWeek), zone);
  }
  if (spec == "@monthly") {
    return fixed(first, first, first_day, all(kMonthBounds), all(kDaysOfWeek), zone);
  }
  if (spec == "@weekly") {
    return fixed(first, first, all(kDaysOfMonth), all(kMonthBounds), sunday, zone);
  }
  if (spec == "@daily" || spec == "@midnight") {
    return fixed(first, first, all(kDaysOfMonth), all(kMonthBounds), all(kDaysOfWeek), zone);
  }
  if (spec == "@hourly") {
    return fixed(first, all(kHours), all(kDaysOfMonth), all(kMonthBounds), all(kDaysOfWeek), zone);
  }
  constexpr std::string_view kEvery = "@every ";
  if (spec.substr(0, kEvery.size()) == kEvery) {
    auto duration = parse_duration(spec.substr(kEvery.size()));
    if (!duration) {
      return Failure::failure("failed to parse duration " + text(spec) + ": " + duration.error());
    }
    // robfig's Every: at least a second, and whole seconds.
    CronSchedule s;
    if (*duration < std::chrono::seconds(1)) {
      s.every = std::chrono::seconds(1);
    } else {
      s.every = std::chrono::duration_cast<std::chrono::seconds>(*duration);
    }
    s.zone = zone;
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

Result<CronSchedule> parse_cron_schedule(std::string_view spec, const std::string& zoneinfo_root) {
  if (spec.empty()) {
    return Failure::failure("empty spec string");
  }
  TimeZone zone;
  if (spec.substr(0, 3) == "TZ=" || spec.substr(0, 8) == "CRON_TZ=") {
    const size_t space = spec.find(' ');
    if (space == std::string_view::npos) {
      return Failure::failure(
          "invalid schedule format: runtime error: slice bounds out of range [:-1]");
    }
    const size_t eq = spec.find('=');
    const std::string_view name = spec.substr(eq + 1, space - eq - 1);
    auto loaded = TimeZone::load(name, zoneinfo_root);
    if (!loaded) {
      return Failure::failure("provided bad location " + text(name) + ": " + loaded.error());
    }
    zone = *loaded;
    spec = trim_space(spec.substr(space));
  }
  if (!spec.empty() && spec[0] == '@') {
    return descriptor(spec, zone);
  }
  const auto words = fields(spec, go_space);
  if (words.size() != 5) {
    std::string list;
    for (std::string_view w : words) {
      list += (list.empty() ? "" : " ") + text(w);
    }
    return Failure::failure("expected exactly 5 fields, found " + std::to_string(words.size()) +
                            ": [" + list + "]");
  }
  const Bounds* bounds[5] = {&kMinutes, &kHours, &kDaysOfMonth, &kMonthBounds, &kDaysOfWeek};
  uint64_t bits[5] = {};
  for (size_t f = 0; f < 5; ++f) {
    auto b = field_bits(words[f], *bounds[f]);
    if (!b) {
      return Failure::failure(b.error());
    }
    bits[f] = *b;
  }
  return fixed(bits[0], bits[1], bits[2], bits[3], bits[4], zone);
}

std::optional<std::chrono::system_clock::time_point> next_activation(
    const CronSchedule& s, std::chrono::system_clock::time_point after) {
  using std::chrono::system_clock;
  const auto whole = std::chrono::floor<std::chrono::seconds>(after.time_since_epoch());
  auto at = [](int64_t unix) {
    return system_clock::time_point(
        std::chrono::duration_cast<system_clock::duration>(std::chrono::seconds(unix)));
  };
  if (s.every.count() > 0) {
    return at((whole + s.every).count());
  }
  // From the next whole second, move month, day, hour, minute forward until each matches; a field
  // that wraps around sends the walk back to the month, as robfig's SpecSchedule.Next does.
  const TimeZone& zone = s.zone;
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
      // A DST change at midnight moves the day's start: back to 0:00 where it can.
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
      return at(t);
    }
  }
}

}  // namespace common
