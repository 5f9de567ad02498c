// A Kubernetes REST client: what a kubeconfig context says about a cluster, and one HTTPS
// connection to it that sends requests one at a time. Used by the console's background threads
// and by `kube-sandbox seed`; it knows nothing of the sandbox, so it works against any cluster.
//
// Every request has a deadline (connect, TLS handshake, write and read together) and a response
// size limit. The connection is kept alive between requests; a request (other than POST) that
// fails on a kept connection is sent once more on a new one. Not thread-safe: one client per thread.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "common/result.h"

namespace console::client {

namespace detail {
class HttpsConnection;
}

// A kubeconfig context resolved to what a connection needs.
struct ClusterAccess {
  std::string context;
  std::string server;      // "https://host:port"
  std::string ca_pem;      // certificate-authority(-data); empty: the system's roots
  bool insecure = false;   // insecure-skip-tls-verify
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;       // bearer token (token or tokenFile)
  std::string namespace_;  // the context's namespace, "default" when unset
};

// The kubeconfig to use when none is named: $KUBECONFIG (its first entry), else ~/.kube/config.
std::string default_kubeconfig_path();

// Reads `path` and resolves `context` (empty: current-context). Relative file references are
// taken from the kubeconfig's directory. The error when the file, the context, its cluster or its
// user is missing, or a referenced file cannot be read.
common::Result<ClusterAccess> load_kubeconfig(const std::string& path, const std::string& context);

struct Request {
  std::string method = "GET";
  std::string target;  // the path with its query
  std::string content_type;
  std::string accept = "application/json";
  std::string body;
};

struct Response {
  int status = 0;
  std::string body;
  std::string content_type;
};

struct ClientOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};  // per request
  size_t max_response_bytes = 256 * 1024 * 1024;
  std::string user_agent = "kube-sandbox";
  // When set, a request in progress gives up (error "cancelled") within ~100 ms of it turning
  // true. Must outlive the client; another thread may set it.
  const std::atomic<bool>* cancel = nullptr;
};

class RestClient {
 public:
  explicit RestClient(ClusterAccess access, ClientOptions options = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  // One request (`target` is the path with its query): the response, or the error on a transport
  // failure (connection, TLS, timeout, response too large); HTTP errors are responses.
  common::Result<Response> request(const std::string& method, const std::string& target,
                                   const std::string& content_type, const std::string& body);
  // The same with an Accept header of the caller's choosing.
  common::Result<Response> request(const Request& request);

  const ClusterAccess& access() const { return access_; }

 private:
  ClusterAccess access_;
  ClientOptions options_;
  std::unique_ptr<detail::HttpsConnection> connection_;
};

}  // namespace console::client
