// The HTTPS server end to end, with a real TLS client: what a client sends never ends the
// process. Handlers, inline handlers and streams that throw get a 500 (or lose their connection,
// once a stream has started) while the server goes on serving; a request refused from its header
// is answered without its body being read.
#include <stdlib.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "apiserver/log.h"
#include "apiserver/pki.h"
#include "apiserver/server.h"

namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using apiserver::http::Request;
using apiserver::http::Response;

// A stream whose producer fails on the first chunk it is asked for.
class ThrowingStream final : public apiserver::http::ChunkStream {
 public:
  bool next(std::string&) override { throw std::runtime_error("stream broke"); }
  bool finished() const override { return false; }
  void set_wakeup(std::function<void()> wakeup) override { wakeup(); }
  void close() override {}
};

Response text(int status, std::string body) {
  Response r;
  r.status = status;
  r.set_header("Content-Type", "text/plain");
  r.body = std::move(body);
  return r;
}

// A server on port 0 with a serving certificate from a temporary PKI directory.
class TestServer {
 public:
  TestServer() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ks-https-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    dir_ = pattern;
    auto pki = apiserver::pki::ensure_pki(dir_ / "pki", {});
    REQUIRE(pki);
    apiserver::log::set_sink(&log_);
    apiserver::ServerOptions options;
    options.port = 0;
    options.cert_pem = pki->serving_cert_pem;
    options.key_pem = pki->serving_key_pem;
    options.worker_threads = 2;
    options.network_threads = 1;
    options.max_body_bytes = 1024;
    options.run_inline = [](const Request& r) {
      if (r.path == "/predicate-throws") {
        throw std::runtime_error("predicate broke");
      }
      return r.path.rfind("/inline", 0) == 0;
    };
    options.long_running = [](const Request& r) { return r.path.rfind("/long", 0) == 0; };
    options.admit = [](const Request& r) -> std::optional<Response> {
      if (r.path == "/refuse") {
        return text(401, "refused");
      }
      if (r.path == "/admit-throws") {
        throw std::runtime_error("admit broke");
      }
      return std::nullopt;
    };
    auto started = apiserver::Server::start(options, &TestServer::handle);
    REQUIRE(started);
    server_ = std::move(*started);
  }
  ~TestServer() {
    server_->stop(std::chrono::milliseconds(0));
    apiserver::log::set_sink(nullptr);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  uint16_t port() const { return server_->port(); }
  std::string log() const { return log_.str(); }

 private:
  static Response handle(Request& r) {
    if (r.path == "/throw" || r.path == "/inline-throw") {
      r.user = "alice";
      throw std::runtime_error("handler broke");
    }
    if (r.path == "/throw-int") {
      throw 42;
    }
    if (r.path == "/stream") {
      Response s;
      s.stream = std::make_shared<ThrowingStream>();
      return s;
    }
    return text(200, "ok " + r.method + " " + r.path + " " + std::to_string(r.body.size()));
  }

  std::filesystem::path dir_;
  std::ostringstream log_;
  std::unique_ptr<apiserver::Server> server_;
};

// One TLS connection to the server, sending raw bytes and reading whole responses.
class Client {
 public:
  explicit Client(uint16_t port) : tls_(ssl::context::tls_client), stream_(ioc_, tls_) {
    tls_.set_verify_mode(ssl::verify_none);
    tcp::resolver resolver(ioc_);
    beast::get_lowest_layer(stream_).connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    stream_.handshake(ssl::stream_base::client);
  }

  void send(const std::string& bytes) { net::write(stream_, net::buffer(bytes)); }

  // The next response, or status 0 when the connection ended first.
  bhttp::response<bhttp::string_body> receive() {
    bhttp::response<bhttp::string_body> response;
    beast::error_code ec;
    bhttp::read(stream_, buffer_, response, ec);
    if (ec) {
      response.result(0u);
    }
    return response;
  }

  bhttp::response<bhttp::string_body> call(const std::string& method, const std::string& target,
                                           const std::string& body = "") {
    send(method + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body);
    return receive();
  }

  // True once the server has closed the connection (nothing more can be read).
  bool closed_by_server() {
    char byte;
    beast::error_code ec;
    size_t n = stream_.read_some(net::buffer(&byte, 1), ec);
    return n == 0 && ec;
  }

 private:
  net::io_context ioc_;
  ssl::context tls_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
};

const char* kHandlerBroke =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"Internal error occurred: handler broke","reason":"InternalError",)"
    R"("details":{"causes":[{"message":"handler broke"}]},"code":500})";

}  // namespace

TEST_CASE("a handler that throws answers 500 and the connection serves on", "[server][barrier]") {
  TestServer server;
  Client client(server.port());
  auto broken = client.call("GET", "/throw?x=1");
  CHECK(broken.result_int() == 500);
  CHECK(broken.body() == kHandlerBroke);
  auto next = client.call("POST", "/after", "abc");
  CHECK(next.result_int() == 200);
  CHECK(next.body() == "ok POST /after 3");
  CHECK(
      server.log().find("internal error serving GET /throw?x=1 user=\"alice\": handler broke\n") !=
      std::string::npos);
}

TEST_CASE("a handler that throws a non-standard exception answers 500", "[server][barrier]") {
  TestServer server;
  Client client(server.port());
  auto broken = client.call("GET", "/throw-int");
  CHECK(broken.result_int() == 500);
  CHECK(broken.body().find(R"("message":"Internal error occurred: unknown exception")") !=
        std::string::npos);
  CHECK(Client(server.port()).call("GET", "/fine").result_int() == 200);
}

TEST_CASE("inline handlers and their predicate are behind the barrier too", "[server][barrier]") {
  TestServer server;
  Client client(server.port());
  auto inline_throw = client.call("GET", "/inline-throw");
  CHECK(inline_throw.result_int() == 500);
  CHECK(inline_throw.body() == kHandlerBroke);
  auto predicate = client.call("GET", "/predicate-throws");
  CHECK(predicate.result_int() == 500);
  CHECK(predicate.body().find(R"("message":"Internal error occurred: predicate broke")") !=
        std::string::npos);
  CHECK(client.call("GET", "/inline-ok").body() == "ok GET /inline-ok 0");
}

TEST_CASE("a stream that throws ends its connection, not the server", "[server][barrier]") {
  TestServer server;
  {
    Client client(server.port());
    client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(client.receive().result_int() == 0);  // the header came, the last chunk never does
  }
  CHECK(server.log().find("internal error in a watch stream: stream broke\n") != std::string::npos);
  CHECK(Client(server.port()).call("GET", "/fine").result_int() == 200);
}

TEST_CASE("an invalid ?timeout= is a 400 with kube-apiserver's message", "[server][http]") {
  TestServer server;
  Client client(server.port());
  const std::string digits(400, '9');
  auto response = client.call("GET", "/version?timeout=" + digits + "s");
  CHECK(response.result_int() == 400);
  CHECK(response.body() ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
        R"("invalid timeout specified in the request URL - time: invalid duration \")" +
            digits + R"(s\"","reason":"BadRequest","code":400})");
  auto unit = client.call("GET", "/version?timeout=1e999s");
  CHECK(unit.result_int() == 400);
  CHECK(unit.body().find(R"("message":"invalid timeout specified in the request URL - time: )"
                         R"(unknown unit \"e\" in duration \"1e999s\"")") != std::string::npos);
  // Empty, zero and negative timeouts mean "the server's own".
  CHECK(client.call("GET", "/version?timeout=").result_int() == 200);
  CHECK(client.call("GET", "/version?timeout=0").result_int() == 200);
  CHECK(client.call("GET", "/version?timeout=-5s").result_int() == 200);
  // Long-running requests (watches) never read it, as upstream's request-deadline filter.
  CHECK(client.call("GET", "/long-watch?timeout=" + digits + "s").result_int() == 200);
  CHECK(client.call("GET", "/version?timeout=" + digits + "s").result_int() == 400);
}

TEST_CASE("a path with a malformed escape is a 400 before any handler", "[server][http]") {
  TestServer server;
  Client client(server.port());
  auto response = client.call("GET", "/api/v1/%zz");
  CHECK(response.result_int() == 400);
  CHECK(response.body() == "400 Bad Request");
  CHECK(client.closed_by_server());
}

TEST_CASE("a request refused from its header is answered without reading its body",
          "[server][admit]") {
  TestServer server;
  Client client(server.port());
  // Far over the body limit, and never sent: only a server that does not read it can answer.
  client.send("POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n");
  auto response = client.receive();
  CHECK(response.result_int() == 401);
  CHECK(response.body() == "refused");
  CHECK(client.closed_by_server());
}

TEST_CASE("a refused request without a body keeps its connection", "[server][admit]") {
  TestServer server;
  Client client(server.port());
  CHECK(client.call("GET", "/refuse").result_int() == 401);
  CHECK(client.call("GET", "/fine").result_int() == 200);
}

TEST_CASE("an admit hook that throws answers 500", "[server][admit][barrier]") {
  TestServer server;
  Client client(server.port());
  auto response = client.call("GET", "/admit-throws");
  CHECK(response.result_int() == 500);
  CHECK(response.body().find(R"("message":"Internal error occurred: admit broke")") !=
        std::string::npos);
}

TEST_CASE("an admitted body over the limit is a 413", "[server][admit]") {
  TestServer server;
  Client client(server.port());
  auto response = client.call("POST", "/upload", std::string(2048, 'x'));
  CHECK(response.result_int() == 413);
  CHECK(response.body().find(R"("message":"Request entity too large: limit is 1024")") !=
        std::string::npos);
}
