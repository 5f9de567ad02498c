#include "endpoints/accept.h"

#include <charconv>
#include <system_error>

namespace apiserver::endpoints {
namespace {

std::string_view trim(std::string_view s) {
  const std::size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) {
    return {};
  }
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// The pieces of `s` between `sep`s, the empty ones included.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) {
      return out;
    }
    start = end + 1;
  }
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

const std::string* AcceptRange::param(std::string_view key) const {
  for (const auto& [name, value] : params) {
    if (name == key) {
      return &value;
    }
  }
  return nullptr;
}

std::vector<AcceptRange> parse_accept(std::string_view header) {
  std::vector<AcceptRange> ranges;
  for (std::string_view part : split(header, ',')) {
    const auto fields = split(part, ';');
    AcceptRange range;
    range.media_type = trim(fields[0]);
    for (std::size_t i = 1; i < fields.size(); ++i) {
      const std::size_t eq = fields[i].find('=');
      const std::string_view key = fields[i].substr(0, eq);
      const std::string_view value =
          eq == std::string_view::npos ? std::string_view() : fields[i].substr(eq + 1);
      range.params.emplace_back(trim(key), trim(value));
    }
    ranges.push_back(std::move(range));
  }
  return ranges;
}

double accept_quality(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
  }
  double q = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, q);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return 0;
  }
  return q;
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
