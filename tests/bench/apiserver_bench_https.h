// The benchmark's HTTPS client: where to connect, the keep-alive connections (an Asio one for
// coroutines, a blocking one for the throughput phases), and the reading of what comes back.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver_bench.h"
#include "apiserver_bench_server.h"

namespace apiserver_bench {

constexpr auto kIoTimeout = std::chrono::seconds(30);
constexpr size_t kBodyLimit = 512u << 20;

// Where and how to connect; shared read-only by every client thread.
struct Target {
  tcp::endpoint endpoint;
  std::string host;         // for certificate verification
  std::string host_header;  // host:port
  std::string authorization;
  std::shared_ptr<ssl::context> tls;
};

// The server at `e`, with the admin bearer token when `with_token`; loopback addresses only.
Target make_target(const Endpoint& e, bool with_token);

struct Reply {
  unsigned status = 0;
  std::string body;
  std::string content_encoding;
};

// One keep-alive HTTPS connection; used by one coroutine at a time.
class Connection {
 public:
  Connection(asio::any_io_executor executor, const Target& target)
      : target_(target), stream_(executor, *target.tls) {}

  awaitable<void> open() {
    auto& layer = beast::get_lowest_layer(stream_);
    layer.expires_after(kIoTimeout);
    co_await layer.async_connect(target_.endpoint, use_awaitable);
    layer.socket().set_option(tcp::no_delay(true));
    stream_.set_verify_callback(ssl::host_name_verification(target_.host));
    co_await stream_.async_handshake(ssl::stream_base::client, use_awaitable);
  }

  http::request<http::string_body> make_request(http::verb verb, const std::string& path,
                                                std::string body, const char* content_type) const {
    http::request<http::string_body> request{verb, path, 11};
    request.set(http::field::host, target_.host_header);
    request.set(http::field::user_agent, "ks-apiserver-bench");
    request.set(http::field::accept, "application/json");
    if (!target_.authorization.empty()) {
      request.set(http::field::authorization, target_.authorization);
    }
    if (!body.empty()) {
      request.set(http::field::content_type, content_type);
    }
    request.keep_alive(true);
    request.body() = std::move(body);
    request.prepare_payload();
    return request;
  }

  // One request and its whole response. Throws on transport errors and when the server does not
  // keep the connection open (every phase relies on keep-alive).
  awaitable<Reply> call(http::verb verb, const std::string& path, std::string body = {},
                        bool accept_gzip = false, const char* content_type = "application/json") {
    auto request = make_request(verb, path, std::move(body), content_type);
    if (accept_gzip) {
      request.set(http::field::accept_encoding, "gzip");
    }
    auto& layer = beast::get_lowest_layer(stream_);
    layer.expires_after(kIoTimeout);
    co_await http::async_write(stream_, request, use_awaitable);
    http::response_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    co_await http::async_read(stream_, buffer_, parser, use_awaitable);
    auto& response = parser.get();
    if (!response.keep_alive()) {
      throw BenchError(std::string(request.method_string()) + " " + path +
                       ": the server closed the keep-alive connection (HTTP " +
                       std::to_string(response.result_int()) + ")");
    }
    co_return Reply{response.result_int(), std::move(response.body()),
                    std::string(response[http::field::content_encoding])};
  }

  beast::ssl_stream<beast::tcp_stream>& stream() { return stream_; }
  beast::flat_buffer& buffer() { return buffer_; }

 private:
  const Target& target_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
};

// One keep-alive HTTPS connection for the throughput phases, used by one thread with blocking
// calls: OpenSSL on a blocking socket (send and receive timeouts bound every call), the response
// framed by Beast's parser. A request costs the client a write and a read or two, where the Asio
// connection above adds the reactor's wait and a timer per operation; on two cores shared with
// the server, what the clients do not spend is left to the server being measured.
class BlockingConnection {
 public:
  explicit BlockingConnection(const Target& target) : target_(target) {}
  BlockingConnection(const BlockingConnection&) = delete;
  BlockingConnection& operator=(const BlockingConnection&) = delete;
  ~BlockingConnection() {
    if (ssl_ != nullptr) {
      SSL_free(ssl_);
    }
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  void open() {
    const auto& endpoint = target_.endpoint;
    fd_ = ::socket(endpoint.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
      throw BenchError(std::string("socket: ") + std::strerror(errno));
    }
    timeval timeout{std::chrono::duration_cast<std::chrono::seconds>(kIoTimeout).count(), 0};
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);  // bounds connect too
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd_, endpoint.data(), static_cast<socklen_t>(endpoint.size())) != 0) {
      throw BenchError(std::string("connect: ") + std::strerror(errno));
    }
    ssl_ = SSL_new(target_.tls->native_handle());  // verifies the peer against the sandbox CA
    boost::system::error_code ec;
    asio::ip::make_address(target_.host, ec);
    if (!ec) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), target_.host.c_str());
    } else {
      SSL_set1_host(ssl_, target_.host.c_str());
      SSL_set_tlsext_host_name(ssl_, target_.host.c_str());
    }
    SSL_set_fd(ssl_, fd_);
    if (SSL_connect(ssl_) != 1) {
      throw BenchError("TLS handshake: " + tls_error(0));
    }
  }

  // One request and its whole response; throws as Connection::call does.
  Reply call(http::verb verb, const std::string& path, const std::string& body = {},
             const char* content_type = "application/json") {
    request_.clear();
    request_.append(http::to_string(verb)).append(" ").append(path).append(" HTTP/1.1\r\n");
    request_.append("Host: ").append(target_.host_header).append("\r\n");
    request_.append("User-Agent: ks-apiserver-bench\r\nAccept: application/json\r\n");
    if (!target_.authorization.empty()) {
      request_.append("Authorization: ").append(target_.authorization).append("\r\n");
    }
    if (!body.empty()) {
      request_.append("Content-Type: ").append(content_type).append("\r\n");
    }
    if (!body.empty() || verb == http::verb::post || verb == http::verb::put ||
        verb == http::verb::patch) {
      request_.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    }
    request_.append("\r\n").append(body);
    for (size_t sent = 0; sent < request_.size();) {
      int n = SSL_write(ssl_, request_.data() + sent, static_cast<int>(request_.size() - sent));
      if (n <= 0) {
        throw BenchError(what(verb, path) + ": sending: " + tls_error(n));
      }
      sent += static_cast<size_t>(n);
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    parser.eager(true);
    while (!parser.is_done()) {
      if (!in_.empty()) {
        boost::system::error_code ec;
        size_t used = parser.put(asio::buffer(in_), ec);
        in_.erase(0, used);
        if (ec && ec != http::error::need_more) {
          throw BenchError(what(verb, path) + ": bad response: " + ec.message());
        }
        if (parser.is_done()) {
          break;
        }
        if (used > 0 && !in_.empty()) {
          continue;
        }
      }
      char chunk[16384];
      int n = SSL_read(ssl_, chunk, sizeof chunk);
      if (n <= 0) {
        throw BenchError(what(verb, path) + ": receiving: " + tls_error(n));
      }
      in_.append(chunk, static_cast<size_t>(n));
    }
    auto& response = parser.get();
    if (!response.keep_alive()) {
      throw BenchError(what(verb, path) + ": the server closed the keep-alive connection (HTTP " +
                       std::to_string(response.result_int()) + ")");
    }
    return Reply{response.result_int(), std::move(response.body()),
                 std::string(response[http::field::content_encoding])};
  }

 private:
  static std::string what(http::verb verb, const std::string& path) {
    return std::string(http::to_string(verb)) + " " + path;
  }

  std::string tls_error(int result) const {
    int code = ssl_ != nullptr ? SSL_get_error(ssl_, result) : SSL_ERROR_SYSCALL;
    if (code == SSL_ERROR_ZERO_RETURN) {
      return "the server closed the connection";
    }
    if (code == SSL_ERROR_SYSCALL) {
      return errno == EAGAIN ? std::string("timed out") : std::strerror(errno);
    }
    char text[256];
    ERR_error_string_n(ERR_get_error(), text, sizeof text);
    return text;
  }

  const Target& target_;
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string request_;
  std::string in_;  // received, not yet parsed
};

// Throws unless the reply has `status`.
void expect(const Reply& reply, unsigned status, const std::string& what);

// Runs one coroutine to completion on a private io_context; rethrows what it threw.
template <typename T>
T run_blocking(std::function<awaitable<T>()> task) {
  asio::io_context io;
  std::optional<T> out;
  std::exception_ptr error;
  asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T value) {
    if (e) {
      error = e;
    } else {
      out = std::move(value);
    }
  });
  io.run();
  if (error) {
    std::rethrow_exception(error);
  }
  return std::move(*out);
}

// metadata.resourceVersion of a served object: the only "resourceVersion" in a ConfigMap.
std::optional<int64_t> find_resource_version(std::string_view text);

// metadata.name of a served object (keys come sorted, and nothing before "name" in a
// ConfigMap's metadata has a "name" key of its own), or empty.
std::string_view find_name(std::string_view text);

}  // namespace apiserver_bench
