// The etcd v3 gRPC endpoint on a store::Store: etcd's services KV, Watch, Lease, Cluster and
// Maintenance, so that etcdctl, etcd's client libraries and a stock kube-apiserver use the
// store as they use a single-member etcd.
//
// There is no Raft: the store is one member. Response headers carry a cluster and member ID
// derived from the member's name, raft_term 1, and the store revision; Status reports the
// revision as the raft index.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace etcdwire {

// Where an endpoint listens: etcd's client URL form, scheme://host:port.
struct ListenUrl {
  bool tls = false;   // https
  std::string host;   // an IP address or a name; [v6] keeps its brackets off here
  uint16_t port = 0;  // 0 picks a free port

  // http://127.0.0.1:2379, https://[::1]:0, http://localhost:2379. The error says what is wrong.
  static std::optional<ListenUrl> parse(const std::string& text, std::string& error);
  std::string to_string() const;  // with the port as given (0 stays 0)
};

struct TlsFiles {
  std::string cert_pem;       // the server's certificate (chain)
  std::string key_pem;        // its key
  std::string client_ca_pem;  // when set, clients must present a certificate signed by it
};

struct ServerOptions {
  ListenUrl listen;
  std::optional<TlsFiles> tls;  // required when listen.tls
  std::string member_name = "default";
  // The store's limits, which the endpoint's message sizes follow.
  size_t max_request_bytes = 1572864;
  int max_threads = 512;  // handlers running at once; more wait in gRPC's queue
  size_t max_watches_per_stream = 65536;
};

class Server {
 public:
  // Starts listening; the error names the address and the cause.
  static std::unique_ptr<Server> start(store::Store& store, ServerOptions options,
                                       std::string& error);
  virtual ~Server() = default;

  // The URL clients use, with the port actually bound.
  virtual std::string url() const = 0;
  virtual uint64_t member_id() const = 0;
  virtual uint64_t cluster_id() const = 0;
  // Stops accepting, cancels streams, and waits up to `grace` for handlers to end.
  virtual void shutdown(std::chrono::milliseconds grace) = 0;
};

}  // namespace etcdwire
