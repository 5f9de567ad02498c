#include "console/client/rest_client.h"

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <yaml-cpp/yaml.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace console::client {
namespace {

namespace fs = std::filesystem;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::optional<std::string> base64_decode(const std::string& text) {
  std::string compact;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      compact.push_back(c);
    }
  }
  if (compact.size() % 4 != 0) {
    return std::nullopt;
  }
  std::string out(compact.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(compact.data()),
                          static_cast<int>(compact.size()));
  if (n < 0) {
    return std::nullopt;
  }
  size_t padding = 0;
  for (size_t i = compact.size(); i > 0 && compact[i - 1] == '='; --i) {
    ++padding;
  }
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

// The entry named `name` of a kubeconfig list (clusters, users, contexts): its inner map, or an
// undefined node.
YAML::Node named(const YAML::Node& list, const std::string& name, const char* inner) {
  if (list && list.IsSequence()) {
    for (const auto& entry : list) {
      if (entry.IsMap() && entry["name"] && entry["name"].as<std::string>("") == name &&
          entry[inner] && entry[inner].IsMap()) {
        return entry[inner];
      }
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// A PEM from `<key>-data` (base64) or `<key>` (a file, relative to the kubeconfig).
bool pem_field(const YAML::Node& node, const std::string& key, const fs::path& base,
               std::string& out, std::string& error) {
  if (node[key + "-data"]) {
    auto decoded = base64_decode(node[key + "-data"].as<std::string>(""));
    if (!decoded) {
      error = key + "-data is not valid base64";
      return false;
    }
    out = *decoded;
  } else if (node[key]) {
    fs::path file = node[key].as<std::string>("");
    if (file.is_relative()) {
      file = base / file;
    }
    auto text = read_text(file);
    if (!text) {
      error = key + " " + file.string() + ": cannot be read";
      return false;
    }
    out = *text;
  }
  return true;
}

struct Endpoint {
  std::string host;  // without brackets
  std::string port;
};

std::optional<Endpoint> parse_server(const std::string& server) {
  const std::string scheme = "https://";
  if (server.rfind(scheme, 0) != 0) {
    return std::nullopt;
  }
  std::string rest = server.substr(scheme.size());
  rest = rest.substr(0, rest.find('/'));
  Endpoint e{"", "443"};
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos) {
      return std::nullopt;
    }
    e.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') {
      e.port = rest.substr(close + 2);
    }
  } else {
    auto colon = rest.find(':');
    e.host = rest.substr(0, colon);
    if (colon != std::string::npos) {
      e.port = rest.substr(colon + 1);
    }
  }
  if (e.host.empty() || e.port.empty()) {
    return std::nullopt;
  }
  return e;
}

}  // namespace

std::string default_kubeconfig_path() {
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string list = env;
    return list.substr(0, list.find(':'));
  }
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : ".") / ".kube" / "config").string();
}

std::optional<ClusterAccess> load_kubeconfig(const std::string& path, const std::string& context,
                                             std::string& error) {
  auto text = read_text(path);
  if (!text) {
    error = "kubeconfig " + path + ": cannot be read";
    return std::nullopt;
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    error = "kubeconfig " + path + ": " + e.msg;
    return std::nullopt;
  }
  // yaml-cpp throws when a node has another shape than the kubeconfig format says.
  try {
    ClusterAccess access;
    access.context = context.empty() ? root["current-context"].as<std::string>("") : context;
    if (access.context.empty()) {
      error = "kubeconfig " + path + ": no current-context";
      return std::nullopt;
    }
    YAML::Node ctx = named(root["contexts"], access.context, "context");
    if (!ctx) {
      error = "kubeconfig " + path + ": no context \"" + access.context + "\"";
      return std::nullopt;
    }
    std::string cluster_name = ctx["cluster"].as<std::string>("");
    std::string user_name = ctx["user"].as<std::string>("");
    access.namespace_ = ctx["namespace"].as<std::string>("default");
    YAML::Node cluster = named(root["clusters"], cluster_name, "cluster");
    if (!cluster) {
      error = "kubeconfig " + path + ": no cluster \"" + cluster_name + "\"";
      return std::nullopt;
    }
    fs::path base = fs::path(path).parent_path();
    access.server = cluster["server"].as<std::string>("");
    access.insecure = cluster["insecure-skip-tls-verify"].as<bool>(false);
    if (!pem_field(cluster, "certificate-authority", base, access.ca_pem, error)) {
      error = "kubeconfig " + path + ": " + error;
      return std::nullopt;
    }
    YAML::Node user = named(root["users"], user_name, "user");
    if (user) {
      if (!pem_field(user, "client-certificate", base, access.client_cert_pem, error) ||
          !pem_field(user, "client-key", base, access.client_key_pem, error)) {
        error = "kubeconfig " + path + ": " + error;
        return std::nullopt;
      }
      access.token = user["token"].as<std::string>("");
      if (access.token.empty() && user["tokenFile"]) {
        fs::path file = user["tokenFile"].as<std::string>("");
        auto token = read_text(file.is_relative() ? base / file : file);
        if (!token) {
          error = "kubeconfig " + path + ": tokenFile " + file.string() + ": cannot be read";
          return std::nullopt;
        }
        access.token = token->substr(0, token->find_last_not_of(" \r\n") + 1);
      }
    }
    if (!parse_server(access.server)) {
      error = "kubeconfig " + path + ": server \"" + access.server + "\" is not an https URL";
      return std::nullopt;
    }
    return access;
  } catch (const YAML::Exception& e) {
    error = "kubeconfig " + path + ": " + e.msg;
    return std::nullopt;
  }
}

// One TLS connection; every operation runs on a private io_context with a deadline.
class RestClient::Connection {
 public:
  Connection(const ClusterAccess& access, const ClientOptions& options)
      : access_(access), options_(options), tls_(ssl::context::tls_client) {}

  bool open(std::string& error) {
    auto endpoint = parse_server(access_.server);
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
        error = "the cluster CA does not load: " + ec.message();
        return false;
      }
    }
    if (!access_.client_cert_pem.empty()) {
      tls_.use_certificate_chain(net::buffer(access_.client_cert_pem), ec);
      if (!ec) {
        tls_.use_private_key(net::buffer(access_.client_key_pem), ssl::context::pem, ec);
      }
      if (ec) {
        error = "the client certificate does not load: " + ec.message();
        return false;
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
      error = "cannot resolve " + endpoint->host + ": " + ec.message();
      return false;
    }
    bool done = false;
    beast::get_lowest_layer(*stream_).async_connect(
        results, [&](beast::error_code e, const tcp::endpoint&) {
          ec = e;
          done = true;
        });
    if (!run(done, ec, "connecting to " + access_.server, error)) {
      return false;
    }
    beast::get_lowest_layer(*stream_).socket().set_option(tcp::no_delay(true), ec);
    done = false;
    stream_->async_handshake(ssl::stream_base::client, [&](beast::error_code e) {
      ec = e;
      done = true;
    });
    return run(done, ec, "TLS handshake with " + access_.server, error);
  }

  // One exchange; `reusable` false when the connection must not be used again.
  bool exchange(const std::string& method, const std::string& target,
                const std::string& content_type, const std::string& body, Response& out,
                bool& reusable, std::string& error) {
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(target);
    req.version(11);
    req.set(http::field::host, host_header_);
    req.set(http::field::user_agent, options_.user_agent);
    req.set(http::field::accept, "application/json");
    if (!access_.token.empty()) {
      req.set(http::field::authorization, "Bearer " + access_.token);
    }
    if (!content_type.empty()) {
      req.set(http::field::content_type, content_type);
    }
    req.body() = body;
    req.keep_alive(true);
    req.prepare_payload();
    beast::error_code ec;
    bool done = false;
    http::async_write(*stream_, req, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    reusable = false;
    if (!run(done, ec, method + " " + target, error)) {
      return false;
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(options_.max_response_bytes);
    done = false;
    http::async_read(*stream_, buffer_, parser, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    if (!run(done, ec, method + " " + target, error)) {
      return false;
    }
    auto& res = parser.get();
    out.status = static_cast<int>(res.result_int());
    out.content_type = std::string(res[http::field::content_type]);
    out.body = std::move(res.body());
    reusable = res.keep_alive();
    return true;
  }

 private:
  // Runs the io_context until `done` or the deadline; the connection is closed on a timeout.
  bool run(bool& done, beast::error_code& ec, const std::string& what, std::string& error) {
    io_.restart();
    io_.run_for(options_.timeout);
    if (!done) {
      beast::get_lowest_layer(*stream_).close();
      io_.restart();
      io_.run();  // let the cancelled operation finish
      error = what + ": timed out after " + std::to_string(options_.timeout.count()) + " ms";
      return false;
    }
    if (ec) {
      error = what + ": " + ec.message();
      return false;
    }
    return true;
  }

  const ClusterAccess& access_;
  const ClientOptions& options_;
  net::io_context io_;
  ssl::context tls_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> stream_;
  beast::flat_buffer buffer_;
  std::string host_header_;
};

RestClient::RestClient(ClusterAccess access, ClientOptions options)
    : access_(std::move(access)), options_(std::move(options)) {}

RestClient::~RestClient() = default;

bool RestClient::request(const std::string& method, const std::string& target,
                         const std::string& content_type, const std::string& body,
                         Response& out, std::string& error) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool fresh = !connection_;
    if (fresh) {
      connection_ = std::make_unique<Connection>(access_, options_);
      if (!connection_->open(error)) {
        connection_.reset();
        return false;
      }
    }
    bool reusable = false;
    bool ok = connection_->exchange(method, target, content_type, body, out, reusable, error);
    if (!reusable) {
      connection_.reset();
    }
    if (ok || fresh || method == "POST") {
      return ok;
    }
    // A kept-alive connection the server had closed: once more on a new one (not for POST,
    // which may have been acted on).
  }
  return false;
}

}  // namespace console::client
