// An `https://host[:port][/path][?query]` URL split into what a client dials and asks for: the
// host (an IPv6 literal without its brackets), the port (443 when none is written) and the
// request target. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace common {

struct HttpsUrl {
  std::string host;
  std::string port = "443";  // decimal, 1 to 65535
  std::string target = "/";  // the path and query; "/" when the URL has neither
};

// nullopt for another scheme, an empty host, an unclosed '[', or a port that is not a number
// from 1 to 65535.
std::optional<HttpsUrl> parse_https_url(std::string_view url);

}  // namespace common
