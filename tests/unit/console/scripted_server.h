// A scripted HTTPS server for the console client tests: each connection carries one request,
// answered by a handler from the request target, in order; plus Table list and watch event
// bodies as kube-apiserver sends them.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace console_test {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using nlohmann::json;
using namespace std::chrono_literals;

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
  bool hold = false;  // never answer: keep the connection open until the server stops (a peer
                      // that hangs); the server thread blocks on that, not on a timer
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
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    stopped_.notify_all();
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
        std::unique_lock lock(mu_);
        stopped_.wait(lock, [&] { return stop_.load(); });
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
  mutable std::mutex mu_;            // protects targets_; stop_ is set under it for stopped_
  std::condition_variable stopped_;  // a held reply waits on it for stop_
  std::vector<std::string> targets_;
  std::thread thread_;
};

inline json table_list(const std::string& rv, const std::vector<std::string>& names) {
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

inline std::string table_event(const std::string& type, const std::string& name,
                               const std::string& rv) {
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

inline std::string metadata_field(const json& object, const char* name) {
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    return "";
  }
  return metadata->value(name, "");
}

}  // namespace console_test
