#include "registry/cron_schedule.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "registry/go_text.h"
#include "registry/go_values.h"

namespace apiserver::registry {
namespace {

struct Bounds {
  uint64_t min;
  uint64_t max;
  const std::map<std::string, uint64_t>* names;
};

const std::map<std::string, uint64_t> kMonthNames = {
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6},
    {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
const std::map<std::string, uint64_t> kDayNames = {{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
                                                   {"thu", 4}, {"fri", 5}, {"sat", 6}};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// strings.Split.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

// strings.Fields over ASCII white space, or strings.FieldsFunc(s, is ',') when sep is ','.
std::vector<std::string_view> fields(std::string_view s, bool commas) {
  std::vector<std::string_view> out;
  size_t i = 0;
  auto is_sep = [&](char c) { return commas ? c == ',' : is_space(c); };
  while (i < s.size()) {
    while (i < s.size() && is_sep(s[i])) {
      ++i;
    }
    size_t j = i;
    while (j < s.size() && !is_sep(s[j])) {
      ++j;
    }
    if (j > i) {
      out.push_back(s.substr(i, j - i));
    }
    i = j;
  }
  return out;
}

std::string u(uint64_t n) {
  return std::to_string(n);
}

// mustParseInt.
std::string must_parse_int(std::string_view expr, uint64_t& out) {
  const GoAtoi n = go_atoi(expr);
  if (!n.error.empty()) {
    return "failed to parse int from " + std::string(expr) + ": " + n.error;
  }
  if (n.value < 0) {
    return "negative number (" + std::to_string(n.value) + ") not allowed: " + std::string(expr);
  }
  out = static_cast<uint64_t>(n.value);
  return "";
}

std::string parse_int_or_name(std::string_view expr, const Bounds& r, uint64_t& out) {
  if (r.names != nullptr) {
    std::string lower(expr);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') {
        c = static_cast<char>(c - 'A' + 'a');
      }
    }
    if (auto it = r.names->find(lower); it != r.names->end()) {
      out = it->second;
      return "";
    }
  }
  return must_parse_int(expr, out);
}

// getRange.
std::string check_range(std::string_view expr, const Bounds& r) {
  const auto range_and_step = split(expr, '/');
  const auto low_and_high = split(range_and_step[0], '-');
  const bool single = low_and_high.size() == 1;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t step = 1;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = r.min;
    end = r.max;
  } else {
    if (auto e = parse_int_or_name(low_and_high[0], r, start); !e.empty()) {
      return e;
    }
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      if (auto e = parse_int_or_name(low_and_high[1], r, end); !e.empty()) {
        return e;
      }
    } else {
      return "too many hyphens: " + std::string(expr);
    }
  }
  if (range_and_step.size() == 2) {
    if (auto e = must_parse_int(range_and_step[1], step); !e.empty()) {
      return e;
    }
    if (single) {
      end = r.max;
    }
  } else if (range_and_step.size() > 2) {
    return "too many slashes: " + std::string(expr);
  }
  if (start < r.min) {
    return "beginning of range (" + u(start) + ") below minimum (" + u(r.min) +
           "): " + std::string(expr);
  }
  if (end > r.max) {
    return "end of range (" + u(end) + ") above maximum (" + u(r.max) + "): " + std::string(expr);
  }
  if (start > end) {
    return "beginning of range (" + u(start) + ") beyond end of range (" + u(end) +
           "): " + std::string(expr);
  }
  if (step == 0) {
    return "step of range should be a positive number: " + std::string(expr);
  }
  return "";
}

// time.ParseDuration's verdict (its error text, or empty).
std::string duration_error(std::string_view orig) {
  static const std::map<std::string, long double, std::less<>> kUnits = {
      {"ns", 1},   {"us", 1e3}, {"\xC2\xB5s", 1e3}, {"\xCE\xBCs", 1e3},
      {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},        {"h", 3600e9}};
  const std::string invalid = "time: invalid duration " + go_quote(orig);
  std::string_view s = orig;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    s.remove_prefix(1);
  }
  if (s == "0") {
    return "";
  }
  if (s.empty()) {
    return invalid;
  }
  long double total = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (!s.empty()) {
    if (!(s[0] == '.' || digit(s[0]))) {
      return invalid;
    }
    long double value = 0;
    size_t i = 0;
    while (i < s.size() && digit(s[i])) {
      value = value * 10 + (s[i] - '0');
      ++i;
    }
    const bool pre = i > 0;
    bool post = false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < s.size() && digit(s[i])) {
        value += (s[i] - '0') * scale;
        scale /= 10;
        post = true;
        ++i;
      }
    }
    if (!pre && !post) {
      return invalid;
    }
    s.remove_prefix(i);
    size_t n = 0;
    while (n < s.size() && s[n] != '.' && !digit(s[n])) {
      ++n;
    }
    if (n == 0) {
      return "time: missing unit in duration " + go_quote(orig);
    }
    const auto unit = kUnits.find(s.substr(0, n));
    if (unit == kUnits.end()) {
      return "time: unknown unit " + go_quote(s.substr(0, n)) + " in duration " + go_quote(orig);
    }
    total += value * unit->second;
    if (total > 9223372036854775807.0L) {
      return invalid;
    }
    s.remove_prefix(n);
  }
  return "";
}

// time.LoadLocation, for the names a TZ= prefix may carry.
std::string location_error(std::string_view name) {
  if (name.empty() || name == "UTC" || name == "Local") {
    return "";
  }
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    return "time: invalid location name";
  }
  static const std::set<std::string, std::less<>> kKnown = {"Etc/UTC", "GMT", "Etc/GMT"};
  if (kKnown.count(name) != 0) {
    return "";
  }
  return "unknown time zone " + std::string(name);
}

}  // namespace

std::string cron_schedule_error(std::string_view spec) {
  if (spec.empty()) {
    return "empty spec string";
  }
  if (spec.substr(0, 3) == "TZ=" || spec.substr(0, 8) == "CRON_TZ=") {
    const size_t space = spec.find(' ');
    const size_t eq = spec.find('=');
    const std::string_view name = spec.substr(
        eq + 1, space == std::string_view::npos ? std::string_view::npos : space - eq - 1);
    if (auto e = location_error(name); !e.empty()) {
      return "provided bad location " + std::string(name) + ": " + e;
    }
    spec = space == std::string_view::npos ? std::string_view() : spec.substr(space);
    while (!spec.empty() && is_space(spec.front())) {
      spec.remove_prefix(1);
    }
    while (!spec.empty() && is_space(spec.back())) {
      spec.remove_suffix(1);
    }
  }
  if (!spec.empty() && spec[0] == '@') {
    static const std::set<std::string, std::less<>> kDescriptors = {
        "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"};
    if (kDescriptors.count(spec) != 0) {
      return "";
    }
    if (spec.substr(0, 7) == "@every ") {
      if (auto e = duration_error(spec.substr(7)); !e.empty()) {
        return "failed to parse duration " + std::string(spec) + ": " + e;
      }
      return "";
    }
    return "unrecognized descriptor: " + std::string(spec);
  }
  const auto parts = fields(spec, false);
  if (parts.size() != 5) {
    std::string list;
    for (const auto& p : parts) {
      list += (list.empty() ? "" : " ") + std::string(p);
    }
    return "expected exactly 5 fields, found " + std::to_string(parts.size()) + ": [" + list + "]";
  }
  const Bounds bounds[5] = {{0, 59, nullptr},
                            {0, 23, nullptr},
                            {1, 31, nullptr},
                            {1, 12, &kMonthNames},
                            {0, 6, &kDayNames}};
  for (size_t k = 0; k < 5; ++k) {
    for (const auto& expr : fields(parts[k], true)) {
      if (auto e = check_range(expr, bounds[k]); !e.empty()) {
        return e;
      }
    }
  }
  return "";
}

std::string time_zone_error(std::string_view zone) {
  if (zone.empty()) {
    return "timeZone must be nil or non-empty string";
  }
  const std::string unknown = "unknown time zone " + std::string(zone);
  // IANA's naming rules, with the digits and '+' of legacy names tolerated: components of 1 to
  // 14 of [A-Za-z0-9._+-], none "." or "..", none starting with '-'.
  size_t start = 0;
  while (true) {
    const size_t end = std::min(zone.find('/', start), zone.size());
    const std::string_view part = zone.substr(start, end - start);
    if (part.empty() || part.size() > 14 || part == "." || part == ".." || part.front() == '-') {
      return unknown;
    }
    for (char c : part) {
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_' || c == '+';
      if (!ok) {
        return unknown;
      }
    }
    if (end == zone.size()) {
      break;
    }
    start = end + 1;
  }
  std::string lower(zone);
  for (char& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (lower == "local") {
    return "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
  }
  if (zone == "UTC") {
    return {};
  }
  // Loadable: a TZif file in the system's zoneinfo.
  std::ifstream file("/usr/share/zoneinfo/" + std::string(zone), std::ios::binary);
  char magic[4] = {};
  if (!file.read(magic, 4) || std::string_view(magic, 4) != "TZif") {
    return unknown;
  }
  return {};
}

}  // namespace apiserver::registry
