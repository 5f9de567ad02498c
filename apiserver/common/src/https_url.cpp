#include "common/https_url.h"

#include <charconv>

namespace common {

std::optional<HttpsUrl> parse_https_url(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return std::nullopt;
  }
  std::string_view rest = url.substr(kScheme.size());
  const auto end_of_authority = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, end_of_authority);
  HttpsUrl out;
  if (end_of_authority != std::string_view::npos) {
    std::string_view target = rest.substr(end_of_authority);
    out.target = target.front() == '?' ? "/" + std::string(target) : std::string(target);
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      return std::nullopt;
    }
    out.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') {
        return std::nullopt;
      }
      port = authority.substr(close + 2);
      if (port.empty()) {
        return std::nullopt;
      }
    }
  } else {
    const auto colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) {
        return std::nullopt;
      }
    }
  }
  if (!port.empty()) {
    int number = 0;
    const char* last = port.data() + port.size();
    if (std::from_chars(port.data(), last, number).ptr != last || number < 1 || number > 65535) {
      return std::nullopt;
    }
    out.port = std::string(port);
  }
  if (out.host.empty()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace common
