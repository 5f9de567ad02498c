#include "apiserver/http.h"

#include <algorithm>
#include <cctype>

#include "common/go_quote.h"

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

std::vector<std::string> Request::header_values(const std::string& name) const {
  if (auto it = repeated_headers.find(name); it != repeated_headers.end()) {
    return it->second;
  }
  auto it = headers.find(name);
  if (it == headers.end()) {
    return {};
  }
  return {it->second};
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

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// Decodes into `out`; false at the first malformed escape when `strict`, else it is kept.
bool decode_escapes(std::string_view s, bool plus_is_space, bool strict, std::string& out) {
  out.clear();
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      int high = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
      int low = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
      if (strict) {
        return false;
      }
      out.push_back(c);
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::optional<std::string> unescape(std::string_view s, bool plus_is_space) {
  std::string out;
  if (!decode_escapes(s, plus_is_space, true, out)) {
    return std::nullopt;
  }
  return out;
}

std::string query_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += c;
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

std::string percent_decode(const std::string& s, bool plus_is_space) {
  std::string out;
  decode_escapes(s, plus_is_space, false, out);
  return out;
}

std::map<std::string, std::vector<std::string>> parse_query(const std::string& query) {
  std::map<std::string, std::vector<std::string>> out;
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) {
      end = query.size();
    }
    std::string_view part = std::string_view(query).substr(start, end - start);
    start = end + 1;
    if (part.empty() || part.find(';') != std::string_view::npos) {
      continue;
    }
    size_t eq = part.find('=');
    auto key = unescape(part.substr(0, eq), true);
    auto value =
        unescape(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), true);
    if (key && value) {
      out[*key].push_back(std::move(*value));
    }
  }
  return out;
}

}  // namespace apiserver::http
