// One client connection of the API server's listener, over TLS or plain TCP: reads requests
// (timeouts, header and body limits, the admit hook), runs each through the handler on the worker
// pool (or inline), and writes the response or the chunked stream back, all on the connection's
// strand.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "apiserver/http.h"
#include "apiserver/server.h"
#include "server/tls_identity.h"
#include "server/worker_pool.h"

namespace apiserver::server {

// What a connection needs from the listener that accepted it.
class SessionHost {
 public:
  virtual ~SessionHost() = default;
  virtual const ServerOptions& options() const = 0;
  virtual const http::Handler& handler() const = 0;
  virtual WorkerPool& workers() = 0;
  virtual bool stopping() const = 0;
  virtual void forget(const void* connection) = 0;  // the connection has closed
  virtual const CaList& client_cas() const = 0;
  virtual const CaList& requestheader_cas() const = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual void run() = 0;       // handshake (TLS), then serve requests until the peer goes
  virtual void shutdown() = 0;  // from any thread: end the connection soon
};

// A connection on `socket`: TLS with `tls` when given, plain HTTP/1.1 otherwise.
std::shared_ptr<Connection> make_connection(boost::asio::ip::tcp::socket&& socket,
                                            boost::asio::ssl::context* tls, SessionHost& host);

}  // namespace apiserver::server
