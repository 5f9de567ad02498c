#include "support/framed_request.h"

#include <algorithm>
#include <string>

#include "common/trim.h"

namespace fuzz {

namespace {

// The next line of `input` from `pos` without its "\n" or "\r\n"; advances `pos` past it.
std::string_view next_line(std::string_view input, size_t& pos) {
  const size_t end = input.find('\n', pos);
  std::string_view line = input.substr(pos, end == std::string_view::npos ? input.npos : end - pos);
  pos = end == std::string_view::npos ? input.size() : end + 1;
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return line;
}

using common::trim;

bool is_token(std::string_view s) {
  constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           kSymbols.find(c) != std::string_view::npos;
  });
}

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

bool is_target(std::string_view s) {
  return !s.empty() &&
         std::none_of(s.begin(), s.end(), [](char c) { return c == ' ' || is_control(c); });
}

bool is_field_value(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return c != '\t' && is_control(c); });
}

}  // namespace

void set_target(apiserver::http::Request& request, std::string target) {
  request.target = std::move(target);
  const size_t q = request.target.find('?');
  request.path = apiserver::http::percent_decode(request.target.substr(0, q), false);
  request.query.clear();
  if (q != std::string::npos) {
    request.query = apiserver::http::parse_query(request.target.substr(q + 1));
  }
}

std::optional<apiserver::http::Request> parse_framed_request(std::string_view input) {
  apiserver::http::Request request;
  size_t pos = 0;
  const std::string_view first = next_line(input, pos);
  const size_t space = first.find(' ');
  if (space == std::string_view::npos || !is_token(first.substr(0, space)) ||
      !is_target(first.substr(space + 1))) {
    return std::nullopt;
  }
  request.method = std::string(first.substr(0, space));
  set_target(request, std::string(first.substr(space + 1)));
  while (pos < input.size()) {
    const std::string_view line = next_line(input, pos);
    if (line.empty()) {
      break;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
      return std::nullopt;
    }
    const std::string_view value = trim(line.substr(colon + 1));
    if (!is_field_value(value)) {
      return std::nullopt;
    }
    const std::string name(line.substr(0, colon));
    auto [it, inserted] = request.headers.emplace(name, std::string(value));
    if (!inserted) {
      it->second += ", " + std::string(value);
    }
  }
  request.body = std::string(input.substr(pos));
  request.remote_address = "127.0.0.1";
  return request;
}

}  // namespace fuzz
