#include "apiserver/http.h"

#include <algorithm>
#include <cctype>

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

}  // namespace apiserver::http
