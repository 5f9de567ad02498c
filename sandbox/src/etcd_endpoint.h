// The etcd v3 endpoint of `serve` (--etcd-listen) and of `kube-sandbox etcd`: where it listens,
// with which certificates, and what serve prints and writes about it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "apiserver/pki.h"
#include "common/result.h"
#include "etcdwire/server.h"
#include "flags.h"
#include "store/store.h"

namespace sandbox {

inline constexpr const char* kDefaultEtcdListen = "http://127.0.0.1:2379";

// serve's --etcd-listen flag.
FlagSpec etcd_listen_flag();

// What --etcd-listen asks for: nothing ("none"), or a URL; `chosen` tells a URL given on the
// command line from the default.
struct EtcdListen {
  std::optional<etcdwire::ListenUrl> url;
  bool chosen = false;
};
common::Result<EtcdListen> etcd_listen(const ParsedFlags& flags);

// Starts the endpoint on `db`. https serves the data directory's serving certificate and asks
// clients for a certificate signed by its CA (the admin's works). When the default address is
// taken the result holds no server and `warning` says why; an address given on the command
// line must work, else the error.
struct StartedEndpoint {
  std::unique_ptr<etcdwire::Server> server;
  std::string warning;
};
common::Result<StartedEndpoint> start_etcd_endpoint(store::Store& db, const EtcdListen& listen,
                                                    const apiserver::pki::Pki& pki);

// The etcdctl command line that reaches the endpoint (with the admin's certificate for https).
std::string etcdctl_hint(const etcdwire::Server& server, const apiserver::pki::Pki& pki);

}  // namespace sandbox
