#include "client/https_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

#include "common/https_url.h"

namespace console::client::detail {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

std::optional<Endpoint> parse_server(const std::string& server) {
  auto url = common::parse_https_url(server);
  if (!url) {
    return std::nullopt;
  }
  return Endpoint{url->host, url->port};
}

class HttpsConnection::Impl {
 public:
  Impl(const ClusterAccess& access, std::string user_agent, const std::atomic<bool>* cancel)
      : access_(access),
        user_agent_(std::move(user_agent)),
        cancel_(cancel),
        tls_(ssl::context::tls_client) {}

  std::optional<std::string> open(Clock::time_point deadline) {
    auto endpoint = parse_server(access_.server);
    if (!endpoint) {
      return "server \"" + access_.server + "\" is not an https URL";
    }
    beast::error_code ec;
    tls_.set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                     ssl::context::no_tlsv1_1);
    if (access_.insecure) {
      tls_.set_verify_mode(ssl::verify_none);
    } else {
      tls_.set_verify_mode(ssl::verify_peer);
      if (access_.ca_pem.empty()) {
        tls_.set_default_verify_paths(ec);
      } else {
        tls_.add_certificate_authority(net::buffer(access_.ca_pem), ec);
      }
      if (ec) {
        return "the cluster CA does not load: " + ec.message();
      }
    }
    if (!access_.client_cert_pem.empty()) {
      tls_.use_certificate_chain(net::buffer(access_.client_cert_pem), ec);
      if (!ec) {
        tls_.use_private_key(net::buffer(access_.client_key_pem), ssl::context::pem, ec);
      }
      if (ec) {
        return "the client certificate does not load: " + ec.message();
      }
    }
    stream_.emplace(io_, tls_);
    SSL* native = stream_->native_handle();
    auto address = net::ip::make_address(endpoint->host, ec);
    if (ec) {
      SSL_set_tlsext_host_name(native, endpoint->host.c_str());  // SNI: names only
      SSL_set1_host(native, endpoint->host.c_str());
      ec = {};
    } else {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(native), endpoint->host.c_str());
    }
    host_header_ = address.is_v6() && !address.is_unspecified()
                       ? "[" + endpoint->host + "]:" + endpoint->port
                       : endpoint->host + ":" + endpoint->port;
    tcp::resolver resolver(io_);
    auto results = resolver.resolve(endpoint->host, endpoint->port, ec);
    if (ec) {
      return "cannot resolve " + endpoint->host + ": " + ec.message();
    }
    bool done = false;
    beast::get_lowest_layer(*stream_).async_connect(results,
                                                    [&](beast::error_code e, const tcp::endpoint&) {
                                                      ec = e;
                                                      done = true;
                                                    });
    if (auto error = run(done, ec, deadline, "connecting to " + access_.server)) {
      return error;
    }
    beast::get_lowest_layer(*stream_).socket().set_option(tcp::no_delay(true), ec);
    done = false;
    stream_->async_handshake(ssl::stream_base::client, [&](beast::error_code e) {
      ec = e;
      done = true;
    });
    return run(done, ec, deadline, "TLS handshake with " + access_.server);
  }

  common::Result<Exchanged> exchange(const Request& request, Clock::time_point deadline,
                                     size_t max_body_bytes) {
    if (auto error = write(request, deadline)) {
      return *error;
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_body_bytes);
    beast::error_code ec;
    bool done = false;
    http::async_read(*stream_, buffer_, parser, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    if (auto error = run(done, ec, deadline, describe(request))) {
      return *error;
    }
    auto& res = parser.get();
    Exchanged out;
    out.response.status = static_cast<int>(res.result_int());
    out.response.content_type = std::string(res[http::field::content_type]);
    out.response.body = std::move(res.body());
    out.reusable = res.keep_alive();
    return out;
  }

  common::Result<int> start_stream(const Request& request, Clock::time_point deadline) {
    if (auto error = write(request, deadline)) {
      return *error;
    }
    stream_parser_.emplace();
    // The body of a watch has no end to bound; WatchStream bounds each event instead.
    stream_parser_->body_limit(boost::none);
    beast::error_code ec;
    bool done = false;
    http::async_read_header(*stream_, buffer_, *stream_parser_, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    if (auto error = run(done, ec, deadline, describe(request))) {
      return *error;
    }
    what_ = describe(request);
    return static_cast<int>(stream_parser_->get().result_int());
  }

  common::Result<Read> read_body(std::string& out, Clock::time_point deadline) {
    if (!stream_parser_) {
      return std::string("no response is being streamed");
    }
    if (stream_parser_->is_done()) {
      return Read::End;
    }
    std::array<char, 16384> chunk{};
    auto& body = stream_parser_->get().body();
    body.data = chunk.data();
    body.size = chunk.size();
    beast::error_code ec;
    bool done = false;
    http::async_read_some(*stream_, buffer_, *stream_parser_, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    // need_buffer only says the chunk is full.
    auto error = run(done, ec, deadline, what_, http::error::need_buffer);
    const size_t got = chunk.size() - body.size;
    out.append(chunk.data(), got);
    if (error) {
      return *error;
    }
    return got == 0 && stream_parser_->is_done() ? Read::End : Read::Data;
  }

 private:
  static std::string describe(const Request& request) {
    return request.method + " " + request.target;
  }

  std::optional<std::string> write(const Request& request, Clock::time_point deadline) {
    http::request<http::string_body> req;
    req.method_string(request.method);
    req.target(request.target);
    req.version(11);
    req.set(http::field::host, host_header_);
    req.set(http::field::user_agent, user_agent_);
    req.set(http::field::accept, request.accept);
    if (!access_.token.empty()) {
      req.set(http::field::authorization, "Bearer " + access_.token);
    }
    if (!request.content_type.empty()) {
      req.set(http::field::content_type, request.content_type);
    }
    req.body() = request.body;
    req.keep_alive(true);
    req.prepare_payload();
    beast::error_code ec;
    bool done = false;
    http::async_write(*stream_, req, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    return run(done, ec, deadline, describe(request));
  }

  bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }

  // Runs the io_context until `done`, the deadline or a cancel; the connection is closed when it
  // gives up. `benign` is an error code that counts as success (need_buffer for body reads).
  // The error, or nullopt when the operation completed.
  std::optional<std::string> run(bool& done, beast::error_code& ec, Clock::time_point deadline,
                                 const std::string& what, beast::error_code benign = {}) {
    io_.restart();
    while (!done) {
      const auto now = Clock::now();
      if (now >= deadline || cancelled()) {
        break;
      }
      io_.run_for(std::min<Clock::duration>(deadline - now, kPollInterval));
    }
    if (!done) {
      const bool was_cancelled = cancelled();
      beast::error_code ignored;
      beast::get_lowest_layer(*stream_).socket().close(ignored);
      io_.restart();
      io_.run();  // let the aborted operation finish
      return was_cancelled ? what + ": cancelled" : what + ": timed out";
    }
    if (ec && ec != benign) {
      return what + ": " + ec.message();
    }
    return std::nullopt;
  }

  const ClusterAccess& access_;
  std::string user_agent_;
  const std::atomic<bool>* cancel_;
  net::io_context io_;
  ssl::context tls_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::buffer_body>> stream_parser_;
  std::string host_header_;
  std::string what_;
};

HttpsConnection::HttpsConnection(const ClusterAccess& access, std::string user_agent,
                                 const std::atomic<bool>* cancel)
    : impl_(std::make_unique<Impl>(access, std::move(user_agent), cancel)) {}

HttpsConnection::~HttpsConnection() = default;

std::optional<std::string> HttpsConnection::open(Clock::time_point deadline) {
  return impl_->open(deadline);
}

common::Result<HttpsConnection::Exchanged> HttpsConnection::exchange(const Request& request,
                                                                     Clock::time_point deadline,
                                                                     size_t max_body_bytes) {
  return impl_->exchange(request, deadline, max_body_bytes);
}

common::Result<int> HttpsConnection::start_stream(const Request& request,
                                                  Clock::time_point deadline) {
  return impl_->start_stream(request, deadline);
}

common::Result<HttpsConnection::Read> HttpsConnection::read_body(std::string& out,
                                                                 Clock::time_point deadline) {
  return impl_->read_body(out, deadline);
}

}  // namespace console::client::detail
