// The API server's listener on Boost.Beast: TLS context, accept loop (connection limit, back-off
// when out of descriptors), network threads, graceful stop. Each connection is a session
// (server/session.h).
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "apiserver/log.h"
#include "apiserver/server.h"
#include "server/barrier.h"
#include "server/session.h"
#include "server/worker_pool.h"

namespace apiserver {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

// How long the listener waits before accepting again when the process is out of descriptors.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);

class Listener final : public Server, public server::SessionHost {
 public:
  Listener(const ServerOptions& options, http::Handler handler)
      : options_(options),
        handler_(std::move(handler)),
        ssl_ctx_(ssl::context::tls_server),
        acceptor_(net::make_strand(ioc_)),
        accept_backoff_(acceptor_.get_executor()),
        workers_(options.worker_threads, options.max_queued_requests) {}

  ~Listener() override { stop(std::chrono::milliseconds(0)); }

  const server::CaList& client_cas() const override { return client_cas_; }
  const server::CaList& requestheader_cas() const override { return requestheader_cas_; }

  // Loads the certificates and starts listening; the error when it cannot.
  std::optional<std::string> init() {
    if (options_.tls) {
      if (auto error = init_tls()) {
        return error;
      }
    }
    return listen();
  }

  // The serving certificate and the client CAs into the TLS context.
  std::optional<std::string> init_tls() {
    beast::error_code ec;
    ssl_ctx_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    ssl_ctx_.use_certificate_chain(net::buffer(options_.cert_pem), ec);
    if (ec) {
      return "the serving certificate does not load: " + ec.message();
    }
    ssl_ctx_.use_private_key(net::buffer(options_.key_pem), ssl::context::pem, ec);
    if (ec) {
      return "the serving key does not load: " + ec.message();
    }
    if (!options_.client_ca_pem.empty()) {
      ssl_ctx_.add_certificate_authority(net::buffer(options_.client_ca_pem), ec);
      if (ec) {
        return "the client CA does not load: " + ec.message();
      }
      // Name the CA in the handshake so clients pick the matching certificate.
      BIO* bio = BIO_new_mem_buf(options_.client_ca_pem.data(),
                                 static_cast<int>(options_.client_ca_pem.size()));
      while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        SSL_CTX_add_client_CA(ssl_ctx_.native_handle(), ca);
        X509_free(ca);
      }
      BIO_free(bio);
      ERR_clear_error();
      ssl_ctx_.set_verify_mode(ssl::verify_peer);
      client_cas_ = server::read_cas(options_.client_ca_pem);
    }
    if (!options_.requestheader_ca_pem.empty()) {
      ssl_ctx_.add_certificate_authority(net::buffer(options_.requestheader_ca_pem), ec);
      if (ec) {
        return "the requestheader client CA does not load: " + ec.message();
      }
      requestheader_cas_ = server::read_cas(options_.requestheader_ca_pem);
      for (const auto& ca : requestheader_cas_) {
        SSL_CTX_add_client_CA(ssl_ctx_.native_handle(), ca.get());
      }
      ssl_ctx_.set_verify_mode(ssl::verify_peer);
    }
    return std::nullopt;
  }

  std::optional<std::string> listen() {
    beast::error_code ec;
    auto address = net::ip::make_address(options_.bind_address, ec);
    if (ec) {
      return "bad bind address \"" + options_.bind_address + "\": " + ec.message();
    }
    tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) {
      acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    }
    if (!ec) {
      acceptor_.bind(endpoint, ec);
    }
    if (!ec) {
      acceptor_.listen(net::socket_base::max_listen_connections, ec);
    }
    if (ec) {
      return "cannot listen on " + options_.bind_address + ":" + std::to_string(options_.port) +
             ": " + ec.message();
    }
    port_ = acceptor_.local_endpoint().port();
    do_accept();
    for (unsigned i = 0; i < std::max(options_.network_threads, 1u); ++i) {
      threads_.emplace_back([this] { run_network_thread(); });
    }
    return std::nullopt;
  }

  uint16_t port() const override { return port_; }

  size_t open_connections() const override {
    std::lock_guard lock(sessions_mu_);
    return sessions_.size();
  }

  void stop(std::chrono::milliseconds grace) override {
    if (stopped_.exchange(true)) {
      return;
    }
    net::post(acceptor_.get_executor(), [this] {
      beast::error_code ec;
      acceptor_.close(ec);
      accept_backoff_.cancel();
    });
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (workers_.busy() > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::vector<std::shared_ptr<server::Connection>> sessions;
    {
      std::lock_guard lock(sessions_mu_);
      for (auto& [ptr, weak] : sessions_) {
        if (auto s = weak.lock()) {
          sessions.push_back(s);
        }
      }
    }
    for (auto& s : sessions) {
      s->shutdown();
    }
    sessions.clear();
    while (open_connections() > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    workers_.stop();
    ioc_.stop();
    for (auto& t : threads_) {
      if (t.joinable()) {
        t.join();
      }
    }
  }

  const ServerOptions& options() const override { return options_; }
  const http::Handler& handler() const override { return handler_; }
  server::WorkerPool& workers() override { return workers_; }
  bool stopping() const override { return stopped_.load(); }

  void forget(const void* connection) override {
    std::lock_guard lock(sessions_mu_);
    sessions_.erase(connection);
  }

 private:
  // What escapes a completion handler would end the thread and the process: it is logged and
  // the thread goes back to serving.
  void run_network_thread() {
    while (true) {
      bool returned = false;
      server::run_guarded("a network thread", [&] {
        ioc_.run();
        returned = true;
      });
      if (returned) {
        return;
      }
    }
  }

  // Out of descriptors (or kernel memory) is not fixed by retrying at once: accepting again in a
  // loop would spin a core while every connection fails the same way.
  static bool out_of_resources(const beast::error_code& ec) {
    return ec == net::error::no_descriptors ||
           ec == boost::system::errc::too_many_files_open_in_system ||
           ec == net::error::no_buffer_space || ec == net::error::no_memory;
  }

  void do_accept() {
    acceptor_.async_accept(
        net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
          if (ec) {
            if (ec == net::error::operation_aborted || !acceptor_.is_open()) {
              return;
            }
            if (out_of_resources(ec)) {
              if (!accept_starved_) {
                accept_starved_ = true;  // one line per episode, not one per retry
                log::error("accepting connections failed: " + ec.message() + "; retrying every " +
                           std::to_string(kAcceptBackoff.count()) + " ms until it succeeds");
              }
              accept_backoff_.expires_after(kAcceptBackoff);
              accept_backoff_.async_wait([this](beast::error_code wait_ec) {
                if (!wait_ec && acceptor_.is_open()) {
                  do_accept();
                }
              });
              return;
            }
          } else if (open_connections() >= options_.max_connections) {
            accept_starved_ = false;
            beast::error_code ignored;
            socket.close(ignored);
          } else {
            if (accept_starved_) {
              accept_starved_ = false;
              log::info(0, "accepting connections again");
            }
            // Whatever happens to this connection, the listener goes on accepting.
            server::run_guarded("accepting a connection", [&] {
              // Responses go out as soon as they are written: without this, Nagle's algorithm
              // holds the tail of a response until the peer's delayed ACK (up to 40 ms on Linux).
              beast::error_code ignored;
              socket.set_option(tcp::no_delay(true), ignored);
              auto session = server::make_connection(std::move(socket),
                                                     options_.tls ? &ssl_ctx_ : nullptr, *this);
              {
                std::lock_guard lock(sessions_mu_);
                sessions_[session.get()] = session;
              }
              session->run();
            });
          }
          do_accept();
        });
  }

  ServerOptions options_;
  server::CaList client_cas_;         // the client CA's certificates
  server::CaList requestheader_cas_;  // the front proxies' CA certificates
  http::Handler handler_;
  net::io_context ioc_;
  ssl::context ssl_ctx_;
  tcp::acceptor acceptor_;
  net::steady_timer accept_backoff_;  // on the acceptor's strand, as accept_starved_
  bool accept_starved_ = false;       // the last accept ran out of descriptors
  server::WorkerPool workers_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  std::atomic<bool> stopped_{false};
  mutable std::mutex sessions_mu_;  // protects sessions_
  std::map<const void*, std::weak_ptr<server::Connection>> sessions_;
};

}  // namespace

common::Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options,
                                                      http::Handler handler) {
  auto server = std::make_unique<Listener>(options, std::move(handler));
  if (auto error = server->init()) {
    return std::move(*error);
  }
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace apiserver
