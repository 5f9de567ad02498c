#include "webhook/client.h"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <charconv>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace apiserver::webhook {
namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

// Go's x509.HostnameError text for the certificate `leaf` (null: not at hand) and the wanted
// `host`: the SANs of the kind the host is (IP addresses or DNS names), then the host.
std::string hostname_text(X509* leaf, const std::string& host) {
  if (leaf == nullptr) {
    return "x509: certificate is not valid for " + host;
  }
  beast::error_code ec;
  (void)net::ip::make_address(host, ec);
  const bool want_ip = !ec;
  std::string valid;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(leaf, NID_subject_alt_name, nullptr, nullptr));
  const int count = names == nullptr ? 0 : sk_GENERAL_NAME_num(names);
  for (int i = 0; i < count; ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    std::string text;
    if (want_ip && name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      net::ip::address address;
      if (ip->length == 4) {
        net::ip::address_v4::bytes_type b{};
        std::copy(ip->data, ip->data + 4, b.begin());
        address = net::ip::address_v4(b);
      } else if (ip->length == 16) {
        net::ip::address_v6::bytes_type b{};
        std::copy(ip->data, ip->data + 16, b.begin());
        address = net::ip::address_v6(b);
      }
      text = address.to_string();
    } else if (!want_ip && name->type == GEN_DNS) {
      const ASN1_IA5STRING* dns = name->d.dNSName;
      text.assign(reinterpret_cast<const char*>(dns->data), static_cast<size_t>(dns->length));
    }
    if (!text.empty()) {
      valid += (valid.empty() ? "" : ", ") + text;
    }
  }
  GENERAL_NAMES_free(names);
  if (want_ip && valid.empty()) {
    return "x509: cannot validate certificate for " + host +
           " because it doesn't contain any IP SANs";
  }
  if (valid.empty()) {
    return "x509: certificate is not valid for any names, but wanted to match " + host;
  }
  return "x509: certificate is valid for " + valid + ", not " + host;
}

// Go's x509 wording for the verification failures a webhook's certificate most often has.
std::string x509_text(long verify_result, const std::string& server_name, X509* leaf) {
  switch (verify_result) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      return "x509: certificate signed by unknown authority";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return hostname_text(leaf, server_name);
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "x509: certificate has expired or is not yet valid";
    default:
      return std::string("x509: ") + X509_verify_cert_error_string(verify_result);
  }
}

// One exchange on a private io_context; every step shares the deadline.
class Call {
 public:
  Call(const Target& target, SteadyClock::time_point deadline)
      : target_(target), deadline_(deadline), tls_(ssl::context::tls_client) {}

  // Connects and writes `request`; the error, or nullopt.
  std::optional<std::string> send_request(const Request& request) {
    if (auto error = connect()) {
      return error;
    }
    http::request<http::string_body> req;
    req.version(11);
    req.method_string(request.method);
    req.target(target_.path_and_query);
    req.set(http::field::host, target_.host_header);
    for (const auto& [name, value] : request.headers) {
      req.insert(name, value);
    }
    req.body() = request.body;
    req.keep_alive(false);
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
        request.method == "PATCH") {
      req.prepare_payload();
    }
    beast::error_code ec;
    bool done = false;
    http::async_write(*stream_, req, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    return wait(done, ec);
  }

  // The answer's header fields but the hop-by-hop ones.
  template <class Fields>
  static std::vector<std::pair<std::string, std::string>> kept_headers(const Fields& fields) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& field : fields) {
      const auto name = field.name();
      if (name == http::field::connection || name == http::field::transfer_encoding ||
          name == http::field::content_length || name == http::field::keep_alive) {
        continue;
      }
      out.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    return out;
  }

  // Streaming: the header of the answer into `parser`.
  std::optional<std::string> read_header(http::response_parser<http::buffer_body>& parser) {
    beast::error_code ec;
    bool done = false;
    http::async_read_header(*stream_, buffer_, parser, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    return wait(done, ec);
  }

  // Streaming: the next piece of the body into `out`; false at its end or on an error.
  bool read_body(http::response_parser<http::buffer_body>& parser, std::string& out) {
    if (parser.is_done()) {
      return false;
    }
    char piece[16 * 1024];
    parser.get().body().data = piece;
    parser.get().body().size = sizeof piece;
    beast::error_code ec;
    bool done = false;
    http::async_read_some(*stream_, buffer_, parser, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    auto error = wait(done, ec);
    if (error && !(done && ec == http::error::need_buffer)) {
      return false;
    }
    out.assign(piece, sizeof piece - parser.get().body().size);
    return true;
  }

  void set_deadline(SteadyClock::time_point deadline) { deadline_ = deadline; }

  // From any thread: ends the exchange (a streaming read returns false).
  void abort() {
    net::post(io_, [this] {
      if (stream_) {
        beast::error_code ignored;
        beast::get_lowest_layer(*stream_).socket().close(ignored);
      }
    });
  }

  common::Result<Response> run(const Request& request, size_t max_response_bytes) {
    if (auto error = send_request(request)) {
      return *error;
    }
    beast::error_code ec;
    bool done = false;
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_response_bytes);
    parser.skip(request.method == "HEAD");
    parser.header_limit(64 * 1024);
    beast::flat_buffer buffer;
    done = false;
    http::async_read(*stream_, buffer, parser, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    if (auto error = wait(done, ec)) {
      if (ec == http::error::body_limit) {
        return "response body larger than " + std::to_string(max_response_bytes) + " bytes";
      }
      return *error;
    }
    auto& res = parser.get();
    Response out;
    out.status = static_cast<int>(res.result_int());
    out.content_type = std::string(res[http::field::content_type]);
    out.body = std::move(res.body());
    out.headers = kept_headers(res);
    beast::error_code ignored;
    beast::get_lowest_layer(*stream_).socket().close(ignored);
    return out;
  }

 private:
  std::optional<std::string> connect() {
    beast::error_code ec;
    tls_.set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                     ssl::context::no_tlsv1_1);
    tls_.set_verify_mode(target_.insecure_skip_verify ? ssl::verify_none : ssl::verify_peer);
    if (target_.insecure_skip_verify) {
      // nothing to load
    } else if (target_.ca_pem.empty()) {
      tls_.set_default_verify_paths(ec);
    } else {
      tls_.add_certificate_authority(net::buffer(target_.ca_pem), ec);
    }
    if (ec) {
      return "unable to load root certificates: unable to parse bytes as PEM block";
    }
    if (!target_.client_cert_pem.empty()) {
      tls_.use_certificate_chain(net::buffer(target_.client_cert_pem), ec);
      if (!ec) {
        tls_.use_private_key(net::buffer(target_.client_key_pem), ssl::context::pem, ec);
      }
      if (ec) {
        return "tls: failed to find any PEM data in certificate input";
      }
    }
    stream_.emplace(io_, tls_);
    SSL* native = stream_->native_handle();
    const auto ip = net::ip::make_address(target_.server_name, ec);
    if (target_.insecure_skip_verify) {
      ec = {};
    } else if (ec) {
      SSL_set_tlsext_host_name(native, target_.server_name.c_str());
      SSL_set1_host(native, target_.server_name.c_str());
      ec = {};
    } else {
      (void)ip;
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(native), target_.server_name.c_str());
    }
    std::vector<tcp::endpoint> endpoints;
    if (auto error = resolve(endpoints)) {
      return error;
    }
    bool done = false;
    done = false;
    tcp::endpoint reached;
    beast::get_lowest_layer(*stream_).async_connect(
        endpoints, [&](beast::error_code e, const tcp::endpoint& at) {
          ec = e;
          reached = at;
          done = true;
        });
    if (auto error = wait(done, ec)) {
      if (ec == net::error::connection_refused) {
        return "dial tcp " + address_text() + ": connect: connection refused";
      }
      return "dial tcp " + address_text() + ": " + *error;
    }
    done = false;
    stream_->async_handshake(ssl::stream_base::client, [&](beast::error_code e) {
      ec = e;
      done = true;
    });
    if (auto error = wait(done, ec)) {
      const long verify = SSL_get_verify_result(native);
      if (done && verify != X509_V_OK) {
        STACK_OF(X509)* chain = SSL_get_peer_cert_chain(native);
        X509* leaf = chain != nullptr && sk_X509_num(chain) > 0 ? sk_X509_value(chain, 0) : nullptr;
        return "tls: failed to verify certificate: " + x509_text(verify, target_.server_name, leaf);
      }
      return error;
    }
    return std::nullopt;
  }

  // The addresses to try: an IP literal as it is, `localhost` as the loopback addresses (as
  // /etc/hosts has it), any other name through the system resolver. A resolver that outlasts the
  // deadline is cancelled, but getaddrinfo itself is bounded only by the system's own timeout.
  std::optional<std::string> resolve(std::vector<tcp::endpoint>& out) {
    beast::error_code ec;
    unsigned short port = 0;
    const auto& p = target_.connect_port;
    if (std::from_chars(p.data(), p.data() + p.size(), port).ptr != p.data() + p.size()) {
      return "dial tcp: address " + p + ": invalid port";
    }
    const auto address = net::ip::make_address(target_.connect_host, ec);
    if (!ec) {
      out.emplace_back(address, port);
      return std::nullopt;
    }
    if (target_.connect_host == "localhost") {
      out.emplace_back(net::ip::address_v4::loopback(), port);
      out.emplace_back(net::ip::address_v6::loopback(), port);
      return std::nullopt;
    }
    tcp::resolver resolver(io_);
    bool done = false;
    resolver.async_resolve(target_.connect_host, target_.connect_port,
                           [&](beast::error_code e, const tcp::resolver::results_type& r) {
                             ec = e;
                             for (const auto& entry : r) {
                               out.push_back(entry.endpoint());
                             }
                             done = true;
                           });
    if (auto error = wait(done, ec, [&resolver] { resolver.cancel(); })) {
      return done ? "dial tcp: lookup " + target_.connect_host + ": no such host" : *error;
    }
    return std::nullopt;
  }

  std::string address_text() const {
    return target_.connect_host.find(':') != std::string::npos
               ? "[" + target_.connect_host + "]:" + target_.connect_port
               : target_.connect_host + ":" + target_.connect_port;
  }

  // Runs the io_context until the operation completes or the deadline passes (then the socket is
  // closed and the aborted operation drained). Go's text for the failure, or nullopt.
  std::optional<std::string> wait(bool& done, beast::error_code& ec,
                                  const std::function<void()>& abort = {}) {
    io_.restart();
    while (!done) {
      const auto now = SteadyClock::now();
      if (now >= deadline_) {
        break;
      }
      io_.run_for(deadline_ - now);
    }
    if (!done) {
      if (abort) {
        abort();
      }
      if (stream_) {
        beast::error_code ignored;
        beast::get_lowest_layer(*stream_).socket().close(ignored);
      }
      io_.restart();
      io_.run();
      return std::string("context deadline exceeded");
    }
    if (!ec) {
      return std::nullopt;
    }
    if (ec == net::error::eof || ec == http::error::end_of_stream ||
        ec == ssl::error::stream_truncated || ec == http::error::partial_message) {
      return std::string("EOF");
    }
    if (ec == net::error::connection_reset) {
      return std::string("read: connection reset by peer");
    }
    return ec.message();
  }

  const Target& target_;
  SteadyClock::time_point deadline_;
  beast::flat_buffer buffer_;  // streaming reads
  net::io_context io_;
  ssl::context tls_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> stream_;
};

// Streams being read now (each on a thread of its own), and their bound.
std::atomic<int> open_streams{0};
constexpr int kMaxOpenStreams = 512;

// The body of a streamed answer, read on a thread of its own and handed to the server's writer
// piece by piece (http::ChunkStream).
class BodyStream : public apiserver::http::ChunkStream,
                   public std::enable_shared_from_this<BodyStream> {
 public:
  BodyStream(Target target, size_t max_buffered)
      : target_(std::move(target)), max_buffered_(max_buffered) {}

  // Set up by open_stream() before the reader starts.
  Call& call(SteadyClock::time_point deadline) {
    call_.emplace(target_, deadline);
    return *call_;
  }
  http::response_parser<http::buffer_body>& parser() { return parser_; }

  // The reader thread: pieces until the body ends, the deadline passes, close() or the client
  // falls more than max_buffered behind.
  void read_all(SteadyClock::time_point deadline) {
    call_->set_deadline(deadline);
    std::string piece;
    while (!closed_ && call_->read_body(parser_, piece)) {
      if (piece.empty()) {
        continue;
      }
      std::function<void()> wake;
      {
        std::lock_guard lock(mu_);
        if (buffered_ + piece.size() > max_buffered_) {
          break;  // a client that does not read is cut off, as a slow watcher is
        }
        buffered_ += piece.size();
        pieces_.push_back(std::move(piece));
        wake = wakeup_;
      }
      if (wake) {
        wake();
      }
    }
    std::function<void()> wake;
    {
      std::lock_guard lock(mu_);
      done_ = true;
      wake = wakeup_;
    }
    if (wake) {
      wake();
    }
  }

  bool next(std::string& chunk) override {
    std::lock_guard lock(mu_);
    if (pieces_.empty()) {
      return false;
    }
    chunk = std::move(pieces_.front());
    pieces_.pop_front();
    buffered_ -= chunk.size();
    return true;
  }
  bool finished() const override {
    std::lock_guard lock(mu_);
    return done_ && pieces_.empty();
  }
  void set_wakeup(std::function<void()> wakeup) override {
    std::lock_guard lock(mu_);
    wakeup_ = std::move(wakeup);
  }
  void close() override {
    closed_ = true;
    if (call_) {
      call_->abort();
    }
  }

 private:
  const Target target_;
  const size_t max_buffered_;
  std::optional<Call> call_;  // used by one thread at a time: open_stream(), then the reader
  http::response_parser<http::buffer_body> parser_;
  std::atomic<bool> closed_{false};
  mutable std::mutex mu_;  // protects pieces_, buffered_, done_, wakeup_
  std::deque<std::string> pieces_;
  size_t buffered_ = 0;
  bool done_ = false;
  std::function<void()> wakeup_;
};

}  // namespace

common::Result<StreamedResponse> open_stream(const Target& target, const Request& request,
                                             std::chrono::milliseconds header_timeout,
                                             std::chrono::milliseconds total_timeout,
                                             size_t max_buffered) {
  if (open_streams >= kMaxOpenStreams) {
    return common::Result<StreamedResponse>::failure(go_method_word(request.method) + " \"" +
                                                     target.url + "\": too many open streams");
  }
  auto body = std::make_shared<BodyStream>(target, max_buffered);
  const auto now = SteadyClock::now();
  Call& call = body->call(now + header_timeout);
  auto fail = [&target, &request](const std::string& why) {
    return common::Result<StreamedResponse>::failure(go_method_word(request.method) + " \"" +
                                                     target.url + "\": " + why);
  };
  if (auto error = call.send_request(request)) {
    return fail(*error);
  }
  body->parser().body_limit(boost::none);
  body->parser().header_limit(64 * 1024);
  if (auto error = call.read_header(body->parser())) {
    return fail(*error);
  }
  StreamedResponse out;
  out.status = static_cast<int>(body->parser().get().result_int());
  out.headers = Call::kept_headers(body->parser().get());
  out.body = body;
  ++open_streams;
  std::thread([body, deadline = now + total_timeout] {
    body->read_all(deadline);
    --open_streams;
  }).detach();
  return out;
}

std::string go_method_word(const std::string& method) {
  std::string word = method;
  for (size_t i = 1; i < word.size(); ++i) {
    word[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[i])));
  }
  return word;
}

common::Result<Response> send(const Target& target, const Request& request,
                              std::chrono::milliseconds timeout, size_t max_response_bytes) {
  Call call(target, SteadyClock::now() + timeout);
  auto result = call.run(request, max_response_bytes);
  if (!result) {
    return go_method_word(request.method) + " \"" + target.url + "\": " + result.error();
  }
  return result;
}

common::Result<Response> post_json(const Target& target, const std::string& body,
                                   std::chrono::milliseconds timeout, size_t max_response_bytes) {
  Request request;
  request.method = "POST";
  request.headers = {{"User-Agent", "kube-apiserver-admission"},
                     {"Content-Type", "application/json"},
                     {"Accept", "application/json, */*"}};
  request.body = body;
  return send(target, request, timeout, max_response_bytes);
}

}  // namespace apiserver::webhook
