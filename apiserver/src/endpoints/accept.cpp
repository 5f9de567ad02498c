#include "endpoints/accept.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

#include "common/trim.h"

namespace apiserver::endpoints {
namespace {

using common::trim;  // goautoneg trims spaces only; the scans below, tabs too

std::string_view trim_spaces(std::string_view s) {
  return trim(s, " ");
}

// `s` cut at its first `sep`: the text before it and the text after it, which is empty both when
// there is no `sep` and when `sep` ends `s` (goautoneg tells the two apart nowhere).
std::pair<std::string_view, std::string_view> cut(std::string_view s, char sep) {
  const std::size_t at = s.find(sep);
  if (at == std::string_view::npos) {
    return {s, {}};
  }
  return {s.substr(0, at), s.substr(at + 1)};
}

// One range of an Accept header (between commas, trimmed); nullopt when goautoneg drops it.
std::optional<MediaRange> parse_range(std::string_view part) {
  auto [media_type, params] = cut(part, ';');
  auto [type, after_type] = cut(media_type, '/');
  MediaRange range;
  range.type = trim_spaces(type);
  if (after_type.empty()) {
    if (range.type != "*") {
      return std::nullopt;
    }
    range.subtype = "*";
  } else {
    auto [subtype, extra] = cut(after_type, '/');
    if (!extra.empty()) {
      return std::nullopt;
    }
    range.subtype = trim_spaces(subtype);
  }
  while (!params.empty()) {
    auto [param, rest] = cut(params, ';');
    params = rest;
    auto [key, after_key] = cut(param, '=');
    auto [value, extra] = cut(after_key, '=');
    if (after_key.empty() || !extra.empty()) {
      continue;
    }
    key = trim_spaces(key);
    if (key == "q") {
      range.q = accept_quality(value);
    } else {
      range.params.insert_or_assign(std::string(key), std::string(trim_spaces(value)));
    }
  }
  return range;
}

// Calls visit(media type, parameter text after the first ';') for each range of `header` in
// order, without allocating; true as soon as a visit returns true.
template <typename Visit>
bool any_range(std::string_view header, Visit visit) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = header.find(',', start);
    const std::string_view part =
        header.substr(start, end == std::string_view::npos ? end : end - start);
    const std::size_t semi = part.find(';');
    const std::string_view params =
        semi == std::string_view::npos ? std::string_view() : part.substr(semi + 1);
    if (visit(trim(part.substr(0, semi)), params)) {
      return true;
    }
    if (end == std::string_view::npos) {
      return false;
    }
    start = end + 1;
  }
}

// Whether the first parameter named `key` in "k=v;k2=v2" text has the value `expected`.
bool param_is(std::string_view params, std::string_view key, std::string_view expected) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = params.find(';', start);
    const std::string_view field =
        params.substr(start, end == std::string_view::npos ? end : end - start);
    const std::size_t eq = field.find('=');
    if (trim(field.substr(0, eq)) == key) {
      return eq != std::string_view::npos && trim(field.substr(eq + 1)) == expected;
    }
    if (end == std::string_view::npos) {
      return false;
    }
    start = end + 1;
  }
}

}  // namespace

const std::string* MediaRange::param(std::string_view key) const {
  auto it = params.find(key);
  return it == params.end() ? nullptr : &it->second;
}

std::vector<MediaRange> parse_accept(std::string_view header) {
  std::vector<MediaRange> ranges;
  while (!header.empty()) {
    auto [part, rest] = cut(header, ',');
    header = rest;
    if (auto range = parse_range(trim_spaces(part))) {
      ranges.push_back(std::move(*range));
    }
  }
  std::stable_sort(ranges.begin(), ranges.end(), [](const MediaRange& a, const MediaRange& b) {
    if (a.q != b.q) {
      return a.q > b.q;
    }
    if ((a.type == "*") != (b.type == "*")) {
      return b.type == "*";
    }
    return a.subtype != "*" && b.subtype == "*";
  });
  return ranges;
}

double accept_quality(std::string_view text) {
  std::string_view number = text;
  if (!number.empty() && number.front() == '+') {
    number.remove_prefix(1);  // from_chars takes '-' only
    if (!number.empty() && (number.front() == '+' || number.front() == '-')) {
      return 0;
    }
  }
  double q = 0;
  const char* end = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), end, q);
  if (number.empty() || ec != std::errc() || ptr != end || std::isnan(q)) {
    return 0;
  }
  if (std::fabs(q) > std::numeric_limits<float>::max()) {
    return std::copysign(std::numeric_limits<double>::infinity(), q);
  }
  return static_cast<float>(q);
}

std::string accepted_encoding(std::string_view header) {
  if (header.empty()) {
    return "json";
  }
  bool yaml = false;
  const bool json = any_range(header, [&](std::string_view type, std::string_view) {
    yaml = yaml || type == "application/yaml";
    return type == "application/json" || type == "*/*" || type == "application/*";
  });
  if (json) {
    return "json";
  }
  return yaml ? "yaml" : "";
}

bool wants_table(std::string_view header) {
  return any_range(header, [](std::string_view, std::string_view params) {
    return param_is(params, "as", "Table") && param_is(params, "g", "meta.k8s.io") &&
           param_is(params, "v", "v1");
  });
}

}  // namespace apiserver::endpoints
