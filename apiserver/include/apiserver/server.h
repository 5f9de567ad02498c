// The API server's listener: TLS 1.2/1.3 (or plain HTTP on loopback), HTTP/1.1 keep-alive, bounded
// request bodies, timeouts on every network operation, chunked streaming for watches, and a
// graceful stop. It turns bytes into http::Request, runs the handler on a worker pool and writes
// the http::Response back.
//
// Nothing a client sends can end the process: an exception that escapes the handler (or the
// header parsing, or a stream) becomes a 500 InternalError Status for that request and one log
// line (server/barrier.h); every other request carries on.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/http.h"
#include "common/result.h"

namespace apiserver {

struct ServerOptions {
  std::string bind_address = "127.0.0.1";
  uint16_t port = 6443;  // 0 picks a free port; see Server::port()
  // false: plain HTTP/1.1, no certificates (only for listeners kept on loopback, such as the
  // web console's); the certificate fields below are then ignored.
  bool tls = true;
  std::string cert_pem;       // serving certificate chain
  std::string key_pem;        // its private key
  std::string client_ca_pem;  // when set, client certificates signed by it are verified
  // Front proxies' CA (--requestheader-client-ca-file): certificates it signed are verified too,
  // and marked (ClientCertificate::from_requestheader_ca) for the requestheader authenticator.
  std::string requestheader_ca_pem;
  size_t max_body_bytes = 3 * 1024 * 1024;  // larger bodies get 413
  std::chrono::milliseconds handshake_timeout{10000};
  std::chrono::milliseconds read_timeout{60000};   // idle keep-alive and request reads
  std::chrono::milliseconds write_timeout{60000};  // each write, streamed chunks included
  // How long a request may take until its response starts (--request-timeout): beyond it the
  // client gets a 504 Timeout Status. A smaller ?timeout= on the request wins. Streams (watch)
  // are not limited once they have started.
  std::chrono::milliseconds request_timeout{60000};
  unsigned network_threads = 2;
  unsigned worker_threads = 8;
  size_t max_connections = 4096;
  size_t max_queued_requests = 4096;  // beyond this, requests get 429
  // Requests cheap enough to answer on the network thread that read them (e.g. reading one
  // object): no hand-off to a worker and back. They must never block; ?timeout= cannot cut them.
  std::function<bool(const http::Request&)> run_inline;
  // Requests that last as long as the client wants (a watch, exec, logs...): as in
  // kube-apiserver's request-deadline filter, their ?timeout= is not read at all.
  std::function<bool(const http::Request&)> long_running;
  // Asked once the request line and headers are read, before any of the body: an answer refuses
  // the request (401 for bad credentials, 403 for an anonymous caller...), which then gets it
  // without its body ever being read, and the connection closes if a body was sent. The request
  // has no body yet; `user` and `groups` are not set. nullopt lets the request on.
  std::function<std::optional<http::Response>(const http::Request&)> admit;
};

class Server {
 public:
  // Binds and starts serving; fails with a message (address in use, bad certificate...).
  static common::Result<std::unique_ptr<Server>> start(const ServerOptions& options,
                                                       http::Handler handler);
  virtual ~Server() = default;

  virtual uint16_t port() const = 0;
  // Stops accepting, lets in-flight requests finish (up to `grace`), ends streams, joins threads.
  virtual void stop(std::chrono::milliseconds grace) = 0;
  virtual size_t open_connections() const = 0;
};

}  // namespace apiserver
