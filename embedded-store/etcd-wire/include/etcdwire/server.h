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

#include "etcdwire/url.h"
#include "store/store.h"

namespace etcdwire {

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
