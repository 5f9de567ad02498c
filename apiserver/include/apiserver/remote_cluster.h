// The API of another cluster as a handler: each request is sent on to the cluster's API server
// over HTTPS with the credentials a kubeconfig gives (a client certificate or a bearer token),
// and its answer comes back (a watch streamed). The web console uses it as a gateway when it
// shows a cluster kube-sandbox does not serve (`kube-sandbox console --web --kubeconfig`).
//
// A request that arrives with its own Authorization header (a user signed in to the console by
// token) is sent with that header alone: the kubeconfig's credentials are not added. Only the
// headers an API client needs are passed on (Accept, Content-Type, User-Agent, Authorization);
// the answer's Set-Cookie headers are dropped. A cluster that cannot be reached answers 503 with
// the transport's error as a Status.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "apiserver/http.h"
#include "common/result.h"

namespace apiserver {

struct RemoteCluster {
  std::string server;  // https://host[:port][/prefix], as a kubeconfig's cluster names it
  std::string ca_pem;  // empty: the system's trusted roots
  bool insecure_skip_verify = false;
  std::string client_cert_pem;  // with client_key_pem: a client certificate to present
  std::string client_key_pem;
  std::string token;  // a bearer token, when the kubeconfig's user has one
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};  // per request, watches excepted
  std::size_t max_response_bytes = 512 * 1024 * 1024;
  std::size_t max_buffered_watch_bytes = 64 * 1024 * 1024;
};

// The handler, or the error when `server` is not an https:// URL.
common::Result<http::Handler> remote_cluster_handler(RemoteCluster cluster);

}  // namespace apiserver
