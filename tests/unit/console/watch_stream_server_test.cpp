// WatchStream against a scripted HTTPS server in the test: list, watch, resume after the server
// ends a watch, relist after 410 Gone, back off after a failure.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "console/client/watch_stream.h"

namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using nlohmann::json;
using namespace std::chrono_literals;
using console::client::StreamMessage;
using console::client::StreamState;

// A throwaway self-signed certificate and key, as PEM.
struct TestCertificate {
  std::string cert_pem;
  std::string key_pem;
  TestCertificate() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("test"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509_sign(cert, key, EVP_sha256());
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    cert_pem = drain(bio);
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    key_pem = drain(bio);
    BIO_free(bio);
    X509_free(cert);
    EVP_PKEY_free(key);
  }
  static std::string drain(BIO* bio) {
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(size));
    (void)BIO_reset(bio);
    return out;
  }
};

struct Reply {
  int status = 200;
  std::string body;
  bool hold = false;  // never answer: keep the connection open until the server stops
};

// One request per connection, answered by `handler` from the request target, in order.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::function<Reply(const std::string& target)> handler)
      : handler_(std::move(handler)), tls_(ssl::context::tls_server) {
    static const TestCertificate certificate;
    tls_.use_certificate_chain(net::buffer(certificate.cert_pem));
    tls_.use_private_key(net::buffer(certificate.key_pem), ssl::context::pem);
    acceptor_.open(tcp::v4());
    acceptor_.bind(tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    boost::system::error_code ec;
    tcp::socket poke(io_);  // wakes the blocking accept
    poke.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), ec);
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> targets() const {
    std::lock_guard lock(mu_);
    return targets_;
  }

 private:
  void serve() {
    while (!stop_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop_) {
        return;
      }
      ssl::stream<tcp::socket> stream(std::move(socket), tls_);
      stream.handshake(ssl::stream_base::server, ec);
      if (ec) {
        continue;
      }
      boost::beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(stream, buffer, request, ec);
      if (ec) {
        continue;
      }
      const std::string target(request.target());
      {
        std::lock_guard lock(mu_);
        targets_.push_back(target);
      }
      const Reply reply = handler_(target);
      if (reply.hold) {
        while (!stop_) {
          std::this_thread::sleep_for(10ms);
        }
        return;
      }
      http::response<http::string_body> response(static_cast<http::status>(reply.status), 11);
      response.set(http::field::content_type, "application/json");
      response.keep_alive(false);
      response.body() = reply.body;
      response.prepare_payload();
      http::write(stream, response, ec);
      stream.shutdown(ec);
    }
  }

  std::function<Reply(const std::string&)> handler_;
  net::io_context io_;
  ssl::context tls_;
  tcp::acceptor acceptor_{io_};
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;  // protects targets_
  std::vector<std::string> targets_;
  std::thread thread_;
};

json table_list(const std::string& rv, const std::vector<std::string>& names) {
  json rows = json::array();
  for (const auto& n : names) {
    rows.push_back(
        {{"cells", {n, 1, "1m"}},
         {"object",
          {{"kind", "ConfigMap"}, {"metadata", {{"name", n}, {"namespace", "default"}}}}}});
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", {{"resourceVersion", rv}}},
          {"columnDefinitions", {{{"name", "Name"}, {"type", "string"}, {"format", "name"}}}},
          {"rows", rows}};
}

std::string table_event(const std::string& type, const std::string& name, const std::string& rv) {
  json object = {{"kind", "ConfigMap"},
                 {"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}}};
  return json{{"type", type},
              {"object",
               {{"kind", "Table"},
                {"apiVersion", "meta.k8s.io/v1"},
                {"rows", {{{"cells", {name}}, {"object", object}}}}}}}
             .dump() +
         "\n";
}

std::string metadata_field(const json& object, const char* name) {
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    return "";
  }
  return metadata->value(name, "");
}

}  // namespace

TEST_CASE("a watch stream lists, resumes where the server left off, and relists after 410 Gone",
          "[console][client][watch]") {
  std::atomic<int> lists{0};
  std::atomic<int> watches{0};
  ScriptedServer server([&](const std::string& target) -> Reply {
    if (target.find("watch=true") == std::string::npos) {
      return {200, table_list(lists++ == 0 ? "10" : "20", {"cm1"}).dump(), false};
    }
    switch (watches++) {
      case 0: {  // two events, then the server ends the watch (its timeoutSeconds)
        const json bookmark = {
            {"type", "BOOKMARK"},
            {"object", {{"kind", "ConfigMap"}, {"metadata", {{"resourceVersion", "15"}}}}}};
        return {200, table_event("ADDED", "cm2", "11") + bookmark.dump() + "\n", false};
      }
      case 1: {  // the version was compacted
        const json gone = {{"type", "ERROR"},
                           {"object",
                            {{"kind", "Status"},
                             {"code", 410},
                             {"reason", "Expired"},
                             {"message", "too old resource version: 15 (16)"}}}};
        return {200, gone.dump() + "\n", false};
      }
      case 2:
        return {500, R"({"kind":"Status","reason":"InternalError","message":"boom"})", false};
      default:
        return {200, "", true};
    }
  });

  console::client::ClusterAccess access;
  access.context = "test";
  access.server = "https://127.0.0.1:" + std::to_string(server.port());
  access.insecure = true;
  console::client::WatchOptions options;
  options.initial_backoff = 20ms;
  options.watch_timeout_seconds = 60;
  console::client::BoundedQueue<StreamMessage> queue(1000);
  std::vector<StreamMessage> seen;
  {
    console::client::WatchStream stream(access, {"core/configmaps", "/api/v1/configmaps", true, 3},
                                        options, queue);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && watches.load() < 4) {
      std::this_thread::sleep_for(10ms);
    }
    std::this_thread::sleep_for(50ms);
  }
  queue.drain(seen);

  const std::vector<std::string> expected_targets = {
      "/api/v1/configmaps?includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=10&includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=15&includeObject=Object",
      "/api/v1/configmaps?includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=20&includeObject=Object",
      "/api/v1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=60"
      "&resourceVersion=20&includeObject=Object",
  };
  CHECK(server.targets() == expected_targets);

  std::vector<std::string> story;
  for (const auto& m : seen) {
    CHECK(m.stream_id == 3);
    switch (m.type) {
      case StreamMessage::Type::Listed:
        story.push_back("listed " + m.resource_version + " rows " + std::to_string(m.rows.size()));
        break;
      case StreamMessage::Type::Event:
        story.push_back(m.event_type + " " + metadata_field(m.item.object, "name") + " " +
                        metadata_field(m.item.object, "resourceVersion"));
        break;
      case StreamMessage::Type::State:
        story.push_back(std::string(console::client::to_string(m.state)) +
                        (m.error.empty() ? "" : ": " + m.error));
        break;
    }
  }
  const std::vector<std::string> expected_story = {
      "listing",          "listed 10 rows 1",
      "watching",         "ADDED cm2 11",
      "BOOKMARK  15",     "watching",
      "ERROR  ",          "listing",
      "listed 20 rows 1", "retrying: watch /api/v1/configmaps: HTTP 500 InternalError: boom",
      "stopped",  // the last watch never got its response header: stopped while waiting
  };
  CHECK(story == expected_story);
}
