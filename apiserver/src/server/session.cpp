#include "server/session.h"

#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "errors/status.h"
#include "server/barrier.h"
#include "server/gzip.h"

namespace apiserver::server {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using PlainStream = beast::tcp_stream;

// A response header onto Beast's message: each Warning and Set-Cookie is a header of its own (a
// response may carry many, as Go's header map does); any other name keeps its last value.
template <class Message>
void put_header(Message& message, const std::string& name, const std::string& value) {
  if (beast::iequals(name, "Warning") || beast::iequals(name, "Set-Cookie")) {
    message.insert(name, value);
  } else {
    message.set(name, value);
  }
}

// The request line and headers together, as Go's http.DefaultMaxHeaderBytes bounds them (1 MiB).
constexpr size_t kHeaderLimit = 1 << 20;

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

// A metav1 Status with status Failure, in kube-apiserver's field order.
http::Response failure(int status, const std::string& reason, const std::string& message) {
  // Upstream's timeout error carries (empty) details.
  return errors::failure(status, reason, message,
                         status == 504 ? std::optional(errors::Details{}) : std::nullopt)
      .response();
}

template <class Stream>
class Session final : public Connection, public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(tcp::socket&& socket, ssl::context& ctx,
          SessionHost& server) requires std::is_same_v<Stream, TlsStream>
      : stream_(std::move(socket), ctx), server_(server) {}
  Session(tcp::socket&& socket, SessionHost& server) requires std::is_same_v<Stream, PlainStream>
      : stream_(std::move(socket)), server_(server) {}

  void run() override;
  void shutdown() override;  // from any thread: end the connection soon

 private:
  void on_handshake(beast::error_code ec);  // TLS: after the handshake; plain: at once
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

  Stream stream_;
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
  SessionHost& server_;
};

template <class Stream>
void Session<Stream>::run() {
  net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      beast::get_lowest_layer(self->stream_)
          .expires_after(self->server_.options().handshake_timeout);
      self->stream_.async_handshake(ssl::stream_base::server,
                                    [self](beast::error_code ec) { self->on_handshake(ec); });
    } else {
      self->on_handshake({});
    }
  });
}

template <class Stream>
void Session<Stream>::shutdown() {
  net::post(stream_.get_executor(), [self = this->shared_from_this()] {
    if (self->body_stream_) {
      // The stream finishes; pump() ends the response.
      run_guarded("closing a watch stream", [&] { self->body_stream_->close(); });
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

template <class Stream>
void Session<Stream>::on_handshake(beast::error_code ec) {
  if (ec) {
    return do_close();
  }
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    client_certificate_ = peer_certificate(stream_.native_handle(), server_.client_cas(),
                                           server_.requestheader_cas());
  }
  beast::error_code ignored;
  auto peer = beast::get_lowest_layer(stream_).socket().remote_endpoint(ignored);
  remote_address_ = peer.address().to_string(ignored) + ":" + std::to_string(peer.port());
  do_read();
}

template <class Stream>
void Session<Stream>::do_read() {
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
      [self = this->shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
}

template <class Stream>
void Session<Stream>::write_error(int status, const std::string& reason, const std::string& message,
                                  bool keep_alive) {
  keep_alive_ = keep_alive_ && keep_alive;
  respond(failure(status, reason, message));
}

template <class Stream>
void Session<Stream>::write_timeout() {
  write_error(504, "Timeout",
              "Timeout: request did not complete within requested timeout - context deadline "
              "exceeded",
              true);
}

template <class Stream>
bool Session<Stream>::closes_on_read_error(beast::error_code ec) {
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

template <class Stream>
void Session<Stream>::on_header(beast::error_code ec) {
  if (closes_on_read_error(ec)) {
    return;
  }
  request_ = std::make_shared<http::Request>();
  std::optional<http::Response> answer;
  try {
    answer = accept_header();
  } catch (...) {
    answer = internal_error_for(*request_, std::current_exception());
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
      [self = this->shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
}

template <class Stream>
std::optional<http::Response> Session<Stream>::accept_header() {
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
  accepts_gzip_ = accepts_gzip(request.header("Accept-Encoding"));
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

template <class Stream>
void Session<Stream>::on_body(beast::error_code ec) {
  if (closes_on_read_error(ec)) {
    return;
  }
  request_->body = std::move(parser_->get().body());
  dispatch();
}

template <class Stream>
void Session<Stream>::dispatch() {
  auto request = request_;
  const auto& options = server_.options();
  if (options.run_inline) {
    bool here = true;
    http::Response response = serve_guarded(*request, [&] {
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
  auto self = this->shared_from_this();
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
        serve_guarded(*request, [&] { return self->server_.handler()(*request); });
    net::post(self->stream_.get_executor(),
              [self, answered, deadline, response = std::move(response)]() mutable {
                // An answer that comes after the deadline is a timeout, even when the timer's
                // own completion has not run yet: which of the two the strand runs first must
                // not decide the outcome.
                bool late = deadline->expiry() <= net::steady_timer::clock_type::now();
                if (*answered || late) {
                  if (response.stream) {
                    run_guarded("closing a late stream", [&] { response.stream->close(); });
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
template <class Stream>
common::Result<std::chrono::nanoseconds> Session<Stream>::request_timeout(
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

template <class Stream>
void Session<Stream>::respond(http::Response response) {
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
  if (accepts_gzip_ && response.body.size() >= kGzipThresholdBytes &&
      res->find(bhttp::field::content_encoding) == res->end()) {
    response.body = gzip(response.body);
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
                     [self = this->shared_from_this(), close](beast::error_code ec, size_t bytes) {
                       self->on_write(close, ec, bytes);
                     });
}

template <class Stream>
void Session<Stream>::on_write(bool close, beast::error_code ec, size_t) {
  response_.reset();
  if (ec || close || !keep_alive_) {
    return do_close();
  }
  do_read();
}

template <class Stream>
void Session<Stream>::write_stream_header(const http::Response& response) {
  body_stream_ = response.stream;
  std::weak_ptr<Session> weak = this->shared_from_this();
  try {
    // Called on the producer's thread: nothing may escape into it.
    body_stream_->set_wakeup([weak] {
      run_guarded("waking a watch stream", [&] {
        if (auto self = weak.lock()) {
          net::post(self->stream_.get_executor(), [self] { self->pump(); });
        }
      });
    });
  } catch (...) {
    // Nothing is written yet: the request can still get its 500.
    auto stream = std::move(body_stream_);
    run_guarded("closing a watch stream", [&] { stream->close(); });
    return respond(
        internal_error_for(request_ ? *request_ : http::Request{}, std::current_exception()));
  }
  self_while_streaming_ = this->shared_from_this();
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
      [self = this->shared_from_this(), serializer](beast::error_code ec, size_t bytes) {
        self->on_chunk_written(ec, bytes);
      });
}

template <class Stream>
void Session<Stream>::end_stream_abruptly() {
  // The status line is out: the only way left to say "this failed" is to end the connection
  // without the last chunk, as upstream aborts a handler that fails mid-stream.
  if (body_stream_) {
    run_guarded("closing a watch stream", [&] { body_stream_->close(); });
    body_stream_.reset();
  }
  keep_alive_ = false;
  do_close();
}

template <class Stream>
void Session<Stream>::pump() {
  if (writing_chunk_ || !body_stream_ || closed_) {
    return;
  }
  bool has_chunk = false;
  bool finished = false;
  bool ok = run_guarded("a watch stream", [&] {
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
                     [self = this->shared_from_this()](beast::error_code ec, size_t bytes) {
                       self->on_chunk_written(ec, bytes);
                     });
    return;
  }
  if (finished) {
    writing_chunk_ = true;
    body_stream_.reset();
    beast::get_lowest_layer(stream_).expires_after(server_.options().write_timeout);
    net::async_write(stream_, bhttp::make_chunk_last(),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
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

template <class Stream>
void Session<Stream>::on_chunk_written(beast::error_code ec, size_t) {
  writing_chunk_ = false;
  if (ec) {
    if (body_stream_) {
      run_guarded("closing a watch stream", [&] { body_stream_->close(); });
      body_stream_.reset();
    }
    return do_close();
  }
  pump();
}

template <class Stream>
void Session<Stream>::do_close() {
  if (closed_) {
    return;
  }
  closed_ = true;
  if (body_stream_) {
    run_guarded("closing a watch stream", [&] { body_stream_->close(); });
    body_stream_.reset();
  }
  self_while_streaming_.reset();
  server_.forget(static_cast<Connection*>(this));  // the key the listener keeps
  auto end_socket = [](Stream& stream) {
    beast::error_code ignored;
    beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream).close();
  };
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
    stream_.async_shutdown([self = this->shared_from_this(), end_socket](beast::error_code) {
      end_socket(self->stream_);
    });
  } else {
    end_socket(stream_);
  }
}

}  // namespace

std::shared_ptr<Connection> make_connection(tcp::socket&& socket, ssl::context* tls,
                                            SessionHost& host) {
  if (tls) {
    return std::make_shared<Session<TlsStream>>(std::move(socket), *tls, host);
  }
  return std::make_shared<Session<PlainStream>>(std::move(socket), host);
}

}  // namespace apiserver::server
