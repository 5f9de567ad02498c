#include "etcdwire/url.h"

#include <charconv>

namespace etcdwire {

std::optional<ListenUrl> ListenUrl::parse(const std::string& text, std::string& error) {
  ListenUrl url;
  std::string rest;
  if (text.rfind("http://", 0) == 0) {
    rest = text.substr(7);
  } else if (text.rfind("https://", 0) == 0) {
    url.tls = true;
    rest = text.substr(8);
  } else {
    error = "URL must start with http:// or https://";
    return std::nullopt;
  }
  if (!rest.empty() && rest.back() == '/') {
    rest.pop_back();
  }
  std::string port;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      error = "an IPv6 address must be written [address]:port";
      return std::nullopt;
    }
    url.host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    auto colon = rest.rfind(':');
    if (colon == std::string::npos) {
      error = "URL must name a port (host:port; 0 picks a free one)";
      return std::nullopt;
    }
    url.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (url.host.empty() || url.host.find_first_of("/?#@ ") != std::string::npos) {
    error = "URL must name a host, and nothing after the port";
    return std::nullopt;
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    error = "port must be a number from 0 to 65535";
    return std::nullopt;
  }
  url.port = static_cast<uint16_t>(value);
  return url;
}

std::string ListenUrl::to_string() const {
  std::string host_part = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return std::string(tls ? "https://" : "http://") + host_part + ":" + std::to_string(port);
}

}  // namespace etcdwire
