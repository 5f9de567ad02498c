#include "apiserver/http.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace apiserver::http {

bool CaseInsensitiveLess::operator()(const std::string& a, const std::string& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string Request::query_value(const std::string& name, const std::string& fallback) const {
  auto it = query.find(name);
  return it == query.end() || it->second.empty() ? fallback : it->second.front();
}

std::string Request::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

void Response::set_header(const std::string& name, const std::string& value) {
  CaseInsensitiveLess less;
  for (auto& [k, v] : headers) {
    if (!less(k, name) && !less(name, k)) {
      v = value;
      return;
    }
  }
  headers.emplace_back(name, value);
}

std::string percent_decode(const std::string& s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::map<std::string, std::vector<std::string>> parse_query(const std::string& query) {
  std::map<std::string, std::vector<std::string>> out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) {
      end = query.size();
    }
    std::string part = query.substr(start, end - start);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string key = percent_decode(part.substr(0, eq), true);
      std::string value = eq == std::string::npos ? "" : percent_decode(part.substr(eq + 1), true);
      out[key].push_back(value);
    }
    start = end + 1;
  }
  return out;
}

std::optional<std::chrono::nanoseconds> parse_duration(const std::string& text) {
  static const std::pair<const char*, double> kUnits[] = {
      {"ns", 1.0},    {"us", 1e3},    {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3},
      {"ms", 1e6},    {"s", 1e9},     {"m", 60e9},        {"h", 3600e9}};
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    if (text[i] == '-' && text != "-0") {
      return std::nullopt;  // negative durations mean nothing here
    }
    ++i;
  }
  if (text.substr(i) == "0") {
    return std::chrono::nanoseconds(0);
  }
  if (i == text.size()) {
    return std::nullopt;
  }
  double total = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
    }
    bool whole = i > start;
    double value = whole ? std::stod(text.substr(start, i - start)) : 0;
    if (i < text.size() && text[i] == '.') {
      size_t frac = ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        ++i;
      }
      if (!whole && i == frac) {
        return std::nullopt;  // "." alone
      }
      if (i > frac) {
        value += std::stod("0." + text.substr(frac, i - frac));
      }
    } else if (!whole) {
      return std::nullopt;
    }
    size_t unit_start = i;
    while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i])) &&
           text[i] != '.') {
      ++i;
    }
    std::string unit = text.substr(unit_start, i - unit_start);
    auto found = std::find_if(std::begin(kUnits), std::end(kUnits),
                              [&](const auto& u) { return unit == u.first; });
    if (found == std::end(kUnits)) {
      return std::nullopt;  // a unit is required, and must be known
    }
    total += value * found->second;
    if (total > 9.2e18) {
      return std::nullopt;  // beyond Go's int64 nanoseconds
    }
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(std::llround(total)));
}

}  // namespace apiserver::http
