// A store::Store whose calls go to an etcd v3 endpoint over gRPC: a real etcd, or the sandbox's
// own endpoint (etcdwire::Server). `kube-sandbox store` uses it to reach the store of a running
// server.
//
// What etcd's API cannot do is answered plainly: check_integrity and replace_all fail with
// InvalidArgument saying so, and expire_leases_for_test does nothing (the server expires its
// leases). Watches follow etcd's shape: a watch from a compacted revision gets its created
// response, then a canceled one carrying compact_revision.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace etcdwire {

struct ClientTls {
  std::string ca_pem;    // the CA that signed the server's certificate
  std::string cert_pem;  // the client's certificate, when the server asks for one
  std::string key_pem;
};

struct ClientOptions {
  // http://host:port or https://host:port; several, comma-separated, for the members of one
  // cluster (IP addresses or localhost): a call goes to another when its member is down.
  std::string endpoint;
  std::optional<ClientTls> tls;
  std::chrono::milliseconds dial_timeout{5000};
  std::chrono::milliseconds request_timeout{30000};
  size_t max_response_bytes = size_t{512} << 20;  // a range of every key fits
  size_t watcher_buffer = 1024;  // responses a watch holds before it is cancelled, as the store's
};

// Connects (waiting up to dial_timeout for the endpoint to answer). Io when it does not.
store::Result<std::unique_ptr<store::Store>> connect(const ClientOptions& options);

}  // namespace etcdwire
