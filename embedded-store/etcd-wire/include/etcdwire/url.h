// etcd's client URLs (scheme://host:port), where an endpoint listens and where a client dials.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace etcdwire {

struct ListenUrl {
  bool tls = false;   // https
  std::string host;   // an IP address or a name; [v6] keeps its brackets off here
  uint16_t port = 0;  // 0 picks a free port

  // http://127.0.0.1:2379, https://[::1]:0, http://localhost:2379. The error says what is wrong.
  static std::optional<ListenUrl> parse(const std::string& text, std::string& error);
  std::string to_string() const;  // with the port as given (0 stays 0)
};

}  // namespace etcdwire
