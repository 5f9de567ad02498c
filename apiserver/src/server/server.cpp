// The HTTPS server on Boost.Beast: listener -> session (strand, timeouts, body limit) -> one call
// into the handler on a worker thread -> response or chunked stream written back on the strand.
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "apiserver/log.h"
#include "apiserver/server.h"
#include "errors/status.h"
#include "server/barrier.h"
#include "server/gzip.h"
#include "server/worker_pool.h"

namespace apiserver {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

// A response header onto Beast's message: each Warning is a header of its own (a response may
// carry many, as Go's header map does); any other name keeps its last value.
template <class Message>
void put_header(Message& message, const std::string& name, const std::string& value) {
  if (beast::iequals(name, "Warning")) {
    message.insert(name, value);
  } else {
    message.set(name, value);
  }
}

// The request line and headers together, as Go's http.DefaultMaxHeaderBytes bounds them (1 MiB).
constexpr size_t kHeaderLimit = 1 << 20;
// How long the listener waits before accepting again when the process is out of descriptors.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);

// Beast's request parser, but a header field longer than its fields can store (they keep 16-bit
// offsets: 65,533 bytes of name or value; Beast 1.81 throws then) ends the read with
// header_limit, answered as any header over the limit, instead of an exception that drops the
// connection unanswered. Go's limit is the header's total alone.
class RequestParser : public bhttp::request_parser<bhttp::string_body> {
  static constexpr size_t kMaxFieldBytes = std::numeric_limits<std::uint16_t>::max() - 2;

  void on_field_impl(bhttp::field name, beast::string_view name_string, beast::string_view value,
                     beast::error_code& ec) override {
    if (name_string.size() > kMaxFieldBytes || value.size() > kMaxFieldBytes) {
      ec = bhttp::error::header_limit;
      return;
    }
    get().insert(name, name_string, value);
  }
};

using CaList = std::vector<std::shared_ptr<X509>>;

// The certificates of a PEM bundle.
CaList read_cas(const std::string& pem) {
  CaList out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    out.emplace_back(ca, X509_free);
  }
  BIO_free(bio);
  ERR_clear_error();
  return out;
}

bool issued_by_one_of(X509* cert, const CaList& cas) {
  for (const auto& ca : cas) {
    if (X509_check_issued(ca.get(), cert) == X509_V_OK) {
      return true;
    }
  }
  return false;
}

// The verified client certificate, with which trusted CA issued it (`client_cas`, or the front
// proxies' `requestheader_cas`; with only one kind configured, a verified certificate is that
// kind's).
std::optional<http::ClientCertificate> peer_certificate(SSL* ssl, const CaList& client_cas,
                                                        const CaList& requestheader_cas) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) {
    return std::nullopt;
  }
  std::optional<http::ClientCertificate> out;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    out.emplace();
    if (!requestheader_cas.empty()) {
      out->from_requestheader_ca = issued_by_one_of(cert, requestheader_cas);
      out->from_client_ca = issued_by_one_of(cert, client_cas) || !out->from_requestheader_ca;
    }
    X509_NAME* subject = X509_get_subject_name(cert);
    auto entries = [&](int nid) {
      std::vector<std::string> values;
      for (int i = X509_NAME_get_index_by_NID(subject, nid, -1); i >= 0;
           i = X509_NAME_get_index_by_NID(subject, nid, i)) {
        ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
        values.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                            static_cast<size_t>(ASN1_STRING_length(data)));
      }
      return values;
    };
    auto cn = entries(NID_commonName);
    out->common_name = cn.empty() ? "" : cn.front();
    out->organizations = entries(NID_organizationName);
  }
  X509_free(cert);
  return out;
}

// A metav1 Status with status Failure, in kube-apiserver's field order.
http::Response failure(int status, const std::string& reason, const std::string& message) {
  // Upstream's timeout error carries (empty) details.
  return errors::failure(status, reason, message,
                         status == 504 ? std::optional(errors::Details{}) : std::nullopt)
      .response();
}

class HttpsServer;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, ssl::context& ctx, HttpsServer& server)
      : stream_(std::move(socket), ctx), server_(server) {}

  void run();
  void shutdown();  // from any thread: end the connection soon

 private:
  void on_handshake(beast::error_code ec);
  void do_read();
  void on_header(beast::error_code ec);
  // The request line and headers into request_; an answer when the request ends here (a bad
  // target or timeout, or the admit hook refused it). Runs inside the barrier.
  std::optional<http::Response> accept_header();
  void on_body(beast::error_code ec);
  bool closes_on_read_error(beast::error_code ec);  // answers or closes after a failed read
  void dispatch();                                  // the request, read whole, to its handler
  void respond(http::Response response);
  void on_write(bool close, beast::error_code ec, size_t bytes);
  void write_stream_header(const http::Response& response);
  void pump();
  void on_chunk_written(beast::error_code ec, size_t bytes);
  void end_stream_abruptly();  // a stream that threw: close it and the connection
  void do_close();
  void write_error(int status, const std::string& reason, const std::string& message,
                   bool keep_alive = false);
  void write_timeout();  // 504 Timeout Status, as upstream's timeout filter words it
  // The request's deadline, or Go's message when ?timeout= does not parse.
  common::Result<std::chrono::nanoseconds> request_timeout(const http::Request& request) const;

  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::shared_ptr<http::Request> request_;  // the one being read, from its header on
  std::chrono::nanoseconds timeout_{0};     // its deadline
  std::shared_ptr<bhttp::response<bhttp::string_body>> response_;
  std::shared_ptr<bhttp::response<bhttp::empty_body>> stream_header_;
  std::shared_ptr<http::ChunkStream> body_stream_;
  // While a stream waits for its next chunk no async operation holds the session: this does.
  std::shared_ptr<Session> self_while_streaming_;
  std::string chunk_;
  bool writing_chunk_ = false;
  bool keep_alive_ = false;
  bool closed_ = false;
  bool accepts_gzip_ = false;  // of the request being answered
  std::optional<http::ClientCertificate> client_certificate_;
  std::string remote_address_;  // host:port of the peer, read once per connection
  HttpsServer& server_;
};

class HttpsServer final : public Server {
 public:
  HttpsServer(const ServerOptions& options, http::Handler handler)
      : options_(options),
        handler_(std::move(handler)),
        ssl_ctx_(ssl::context::tls_server),
        acceptor_(net::make_strand(ioc_)),
        accept_backoff_(acceptor_.get_executor()),
        workers_(options.worker_threads, options.max_queued_requests) {}

  ~HttpsServer() override { stop(std::chrono::milliseconds(0)); }

  const CaList& client_cas() const { return client_cas_; }
  const CaList& requestheader_cas() const { return requestheader_cas_; }

  // Loads the certificates and starts listening; the error when it cannot.
  std::optional<std::string> init() {
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
      client_cas_ = read_cas(options_.client_ca_pem);
    }
    if (!options_.requestheader_ca_pem.empty()) {
      ssl_ctx_.add_certificate_authority(net::buffer(options_.requestheader_ca_pem), ec);
      if (ec) {
        return "the requestheader client CA does not load: " + ec.message();
      }
      requestheader_cas_ = read_cas(options_.requestheader_ca_pem);
      for (const auto& ca : requestheader_cas_) {
        SSL_CTX_add_client_CA(ssl_ctx_.native_handle(), ca.get());
      }
      ssl_ctx_.set_verify_mode(ssl::verify_peer);
    }
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
    std::vector<std::shared_ptr<Session>> sessions;
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

  const ServerOptions& options() const { return options_; }
  const http::Handler& handler() const { return handler_; }
  server::WorkerPool& workers() { return workers_; }
  bool stopping() const { return stopped_.load(); }

  void forget(Session* session) {
    std::lock_guard lock(sessions_mu_);
    sessions_.erase(session);
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
              auto session = std::make_shared<Session>(std::move(socket), ssl_ctx_, *this);
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
  CaList client_cas_;         // the client CA's certificates
  CaList requestheader_cas_;  // the front proxies' CA certificates
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
  std::map<Session*, std::weak_ptr<Session>> sessions_;
};

// Session ------------------------------------------------------------------------------------

void Session::run() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    beast::get_lowest_layer(self->stream_).expires_after(self->server_.options().handshake_timeout);
    self->stream_.async_handshake(ssl::stream_base::server,
                                  [self](beast::error_code ec) { self->on_handshake(ec); });
  });
}

void Session::shutdown() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->body_stream_) {
      // The stream finishes; pump() ends the response.
      server::run_guarded("closing a watch stream", [&] { self->body_stream_->close(); });
      self->keep_alive_ = false;
      self->pump();
      return;
    }
    if (!self->response_) {
      self->do_close();  // idle between requests
    } else {
      self->keep_alive_ = false;  // close once the response in flight is written
    }
  });
}

void Session::on_handshake(beast::error_code ec) {
  if (ec) {
    return do_close();
  }
  client_certificate_ =
      peer_certificate(stream_.native_handle(), server_.client_cas(), server_.requestheader_cas());
  beast::error_code ignored;
  auto peer = beast::get_lowest_layer(stream_).socket().remote_endpoint(ignored);
  remote_address_ = peer.address().to_string(ignored) + ":" + std::to_string(peer.port());
  do_read();
}

void Session::do_read() {
  if (server_.stopping()) {
    return do_close();
  }
  parser_.emplace();
  // The body limit is set once the header is admitted: a refused request gets its 401 or 403,
  // not a 413 for a body that will never be read.
  parser_->body_limit(boost::none);
  parser_->header_limit(kHeaderLimit);
  request_.reset();
  beast::get_lowest_layer(stream_).expires_after(server_.options().read_timeout);
  // The header first: a request the admit hook refuses never has its body read.
  bhttp::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
}

void Session::write_error(int status, const std::string& reason, const std::string& message,
                          bool keep_alive) {
  keep_alive_ = keep_alive_ && keep_alive;
  respond(failure(status, reason, message));
}

void Session::write_timeout() {
  write_error(504, "Timeout",
              "Timeout: request did not complete within requested timeout - context deadline "
              "exceeded",
              true);
}

bool Session::closes_on_read_error(beast::error_code ec) {
  if (!ec) {
    return false;
  }
  if (ec == bhttp::error::body_limit) {
    write_error(
        413, "RequestEntityTooLarge",
        "Request entity too large: limit is " + std::to_string(server_.options().max_body_bytes));
  } else if (ec == bhttp::error::header_limit) {
    write_error(431, "BadRequest", "the request headers are too large");
  } else {
    do_close();  // end of stream, timeout, malformed HTTP or TLS: nothing useful to answer
  }
  return true;
}

void Session::on_header(beast::error_code ec) {
  if (closes_on_read_error(ec)) {
    return;
  }
  request_ = std::make_shared<http::Request>();
  std::optional<http::Response> answer;
  try {
    answer = accept_header();
  } catch (...) {
    answer = server::internal_error_for(*request_, std::current_exception());
  }
  if (answer) {
    // Answered from the header alone: a body still on the wire is never read, so the
    // connection cannot carry another request.
    keep_alive_ = keep_alive_ && parser_->is_done();
    return respond(std::move(*answer));
  }
  if (parser_->is_done()) {
    return on_body({});
  }
  // A declared length is checked here (Beast checks it only while reading the header); chunked
  // bodies are checked as they come.
  const size_t limit = server_.options().max_body_bytes;
  if (auto length = parser_->content_length(); length && *length > limit) {
    return write_error(413, "RequestEntityTooLarge",
                       "Request entity too large: limit is " + std::to_string(limit));
  }
  parser_->body_limit(limit);
  bhttp::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
}

std::optional<http::Response> Session::accept_header() {
  const auto& header = parser_->get();
  keep_alive_ = header.keep_alive();
  http::Request& request = *request_;
  request.method = std::string(header.method_string());
  request.target = std::string(header.target());
  request.remote_address = remote_address_;
  request.client_certificate = client_certificate_;
  for (const auto& field : header) {
    std::string name(field.name_string());
    auto [it, inserted] = request.headers.emplace(name, std::string(field.value()));
    if (!inserted) {
      auto& values = request.repeated_headers[name];
      if (values.empty()) {
        values.push_back(it->second);
      }
      values.emplace_back(field.value());
      it->second += ", " + std::string(field.value());
    }
  }
  accepts_gzip_ = server::accepts_gzip(request.header("Accept-Encoding"));
  auto q = request.target.find('?');
  auto path = http::unescape(std::string_view(request.target).substr(0, q), false);
  if (!path) {
    // Go's HTTP server refuses a request line it cannot parse before any handler runs.
    http::Response bad;
    bad.status = 400;
    bad.set_header("Content-Type", "text/plain; charset=utf-8");
    bad.body = "400 Bad Request";
    keep_alive_ = false;
    return bad;
  }
  request.path = std::move(*path);
  if (q != std::string::npos) {
    request.query = http::parse_query(request.target.substr(q + 1));
  }
  const auto& long_running = server_.options().long_running;
  auto timeout = long_running && long_running(request)
                     ? common::Result<std::chrono::nanoseconds>(
                           std::chrono::nanoseconds(server_.options().request_timeout))
                     : request_timeout(request);
  if (!timeout) {
    return failure(400, "BadRequest",
                   "invalid timeout specified in the request URL - " + timeout.error());
  }
  timeout_ = *timeout;
  if (server_.options().admit) {
    return server_.options().admit(request);
  }
  return std::nullopt;
}

void Session::on_body(beast::error_code ec) {
  if (closes_on_read_error(ec)) {
    return;
  }
  request_->body = std::move(parser_->get().body());
  dispatch();
}

void Session::dispatch() {
  auto request = request_;
  const auto& options = server_.options();
  if (options.run_inline) {
    bool here = true;
    http::Response response = server::serve_guarded(*request, [&] {
      if (!options.run_inline(*request)) {
        here = false;
        return http::Response{};
      }
      return server_.handler()(*request);
    });
    if (here) {
      return respond(std::move(response));
    }
  }

  // No read timeout while the handler runs; the request deadline below bounds the wait. Both the
  // deadline and the handler's answer run on the strand, so `answered` needs no lock; the one
  // that comes second is dropped (a handler that overran still finishes its work, as upstream).
  beast::get_lowest_layer(stream_).expires_never();
  auto self = shared_from_this();
  auto answered = std::make_shared<bool>(false);
  auto deadline = std::make_shared<net::steady_timer>(stream_.get_executor(), timeout_);
  deadline->async_wait([self, answered](beast::error_code ec) {
    if (ec || *answered) {
      return;
    }
    *answered = true;
    self->write_timeout();
  });
  bool queued = server_.workers().submit([self, request, answered, deadline] {
    http::Response response =
        server::serve_guarded(*request, [&] { return self->server_.handler()(*request); });
    net::post(self->stream_.get_executor(),
              [self, answered, deadline, response = std::move(response)]() mutable {
                // An answer that comes after the deadline is a timeout, even when the timer's
                // own completion has not run yet: which of the two the strand runs first must
                // not decide the outcome.
                bool late = deadline->expiry() <= net::steady_timer::clock_type::now();
                if (*answered || late) {
                  if (response.stream) {
                    server::run_guarded("closing a late stream", [&] { response.stream->close(); });
                  }
                  if (!*answered) {
                    *answered = true;
                    self->write_timeout();
                  }
                  return;
                }
                *answered = true;
                deadline->cancel();
                self->respond(std::move(response));
              });
  });
  if (!queued) {
    *answered = true;
    deadline->cancel();
    write_error(429, "TooManyRequests", "the server has too many requests in flight");
  }
}

// The server's --request-timeout, or the request's own ?timeout= when it is shorter and positive
// (0 or less means "no preference", as upstream), to the nanosecond as Go keeps it. An empty
// ?timeout= is no timeout parameter at all.
common::Result<std::chrono::nanoseconds> Session::request_timeout(
    const http::Request& request) const {
  std::chrono::nanoseconds limit = server_.options().request_timeout;
  std::string value = request.query_value("timeout");
  if (value.empty()) {
    return limit;
  }
  auto asked = http::parse_duration(value);
  if (!asked) {
    return asked;
  }
  return asked->count() > 0 && *asked < limit ? *asked : limit;
}

void Session::respond(http::Response response) {
  if (response.stream) {
    return write_stream_header(response);
  }
  auto res = std::make_shared<bhttp::response<bhttp::string_body>>();
  res->result(static_cast<unsigned>(response.status));
  res->version(11);
  for (const auto& [name, value] : response.headers) {
    put_header(*res, name, value);
  }
  res->keep_alive(keep_alive_ && !server_.stopping());
  if (accepts_gzip_ && response.body.size() >= server::kGzipThresholdBytes &&
      res->find(bhttp::field::content_encoding) == res->end()) {
    response.body = server::gzip(response.body);
    res->set(bhttp::field::content_encoding, "gzip");
    auto vary = res->find(bhttp::field::vary);
    res->set(bhttp::field::vary, vary == res->end()
                                     ? std::string("Accept-Encoding")
                                     : std::string(vary->value()) + ", Accept-Encoding");
  }
  res->body() = std::move(response.body);
  res->prepare_payload();
  response_ = res;
  bool close = !res->keep_alive();
  beast::get_lowest_layer(stream_).expires_after(server_.options().write_timeout);
  bhttp::async_write(stream_, *res,
                     [self = shared_from_this(), close](beast::error_code ec, size_t bytes) {
                       self->on_write(close, ec, bytes);
                     });
}

void Session::on_write(bool close, beast::error_code ec, size_t) {
  response_.reset();
  if (ec || close || !keep_alive_) {
    return do_close();
  }
  do_read();
}

void Session::write_stream_header(const http::Response& response) {
  body_stream_ = response.stream;
  std::weak_ptr<Session> weak = shared_from_this();
  try {
    // Called on the producer's thread: nothing may escape into it.
    body_stream_->set_wakeup([weak] {
      server::run_guarded("waking a watch stream", [&] {
        if (auto self = weak.lock()) {
          net::post(self->stream_.get_executor(), [self] { self->pump(); });
        }
      });
    });
  } catch (...) {
    // Nothing is written yet: the request can still get its 500.
    auto stream = std::move(body_stream_);
    server::run_guarded("closing a watch stream", [&] { stream->close(); });
    return respond(server::internal_error_for(request_ ? *request_ : http::Request{},
                                              std::current_exception()));
  }
  self_while_streaming_ = shared_from_this();
  stream_header_ = std::make_shared<bhttp::response<bhttp::empty_body>>();
  stream_header_->result(static_cast<unsigned>(response.status));
  stream_header_->version(11);
  for (const auto& [name, value] : response.headers) {
    put_header(*stream_header_, name, value);
  }
  stream_header_->chunked(true);
  auto serializer =
      std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*stream_header_);
  beast::get_lowest_layer(stream_).expires_after(server_.options().write_timeout);
  writing_chunk_ = true;
  bhttp::async_write_header(
      stream_, *serializer,
      [self = shared_from_this(), serializer](beast::error_code ec, size_t bytes) {
        self->on_chunk_written(ec, bytes);
      });
}

void Session::end_stream_abruptly() {
  // The status line is out: the only way left to say "this failed" is to end the connection
  // without the last chunk, as upstream aborts a handler that fails mid-stream.
  if (body_stream_) {
    server::run_guarded("closing a watch stream", [&] { body_stream_->close(); });
    body_stream_.reset();
  }
  keep_alive_ = false;
  do_close();
}

void Session::pump() {
  if (writing_chunk_ || !body_stream_ || closed_) {
    return;
  }
  bool has_chunk = false;
  bool finished = false;
  bool ok = server::run_guarded("a watch stream", [&] {
    has_chunk = body_stream_->next(chunk_);
    finished = !has_chunk && body_stream_->finished();
  });
  if (!ok) {
    return end_stream_abruptly();
  }
  if (has_chunk) {
    writing_chunk_ = true;
    beast::get_lowest_layer(stream_).expires_after(server_.options().write_timeout);
    net::async_write(stream_, bhttp::make_chunk(net::buffer(chunk_)),
                     [self = shared_from_this()](beast::error_code ec, size_t bytes) {
                       self->on_chunk_written(ec, bytes);
                     });
    return;
  }
  if (finished) {
    writing_chunk_ = true;
    body_stream_.reset();
    beast::get_lowest_layer(stream_).expires_after(server_.options().write_timeout);
    net::async_write(stream_, bhttp::make_chunk_last(),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_chunk_ = false;
                       self->stream_header_.reset();
                       self->self_while_streaming_.reset();
                       if (ec || !self->keep_alive_ || self->server_.stopping()) {
                         return self->do_close();
                       }
                       self->do_read();
                     });
    return;
  }
  beast::get_lowest_layer(stream_).expires_never();  // idle watch: wait for the next event
}

void Session::on_chunk_written(beast::error_code ec, size_t) {
  writing_chunk_ = false;
  if (ec) {
    if (body_stream_) {
      server::run_guarded("closing a watch stream", [&] { body_stream_->close(); });
      body_stream_.reset();
    }
    return do_close();
  }
  pump();
}

void Session::do_close() {
  if (closed_) {
    return;
  }
  closed_ = true;
  if (body_stream_) {
    server::run_guarded("closing a watch stream", [&] { body_stream_->close(); });
    body_stream_.reset();
  }
  self_while_streaming_.reset();
  server_.forget(this);
  beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
  stream_.async_shutdown([self = shared_from_this()](beast::error_code) {
    beast::error_code ignored;
    beast::get_lowest_layer(self->stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(self->stream_).close();
  });
}

}  // namespace

common::Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options,
                                                      http::Handler handler) {
  auto server = std::make_unique<HttpsServer>(options, std::move(handler));
  if (auto error = server->init()) {
    return std::move(*error);
  }
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace apiserver
