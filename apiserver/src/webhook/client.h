// The outbound side of webhooks: one HTTPS POST of a JSON document to a webhook server, as
// kube-apiserver's webhook REST client makes it (admission webhooks; CRD conversion may use it
// too), and one HTTPS request of any method (the aggregation layer's proxy to an extension API
// server and its availability and discovery checks, send()). Resolution of a clientConfig or a
// service into an address is in resolve.h.
//
// Every call runs on the caller's thread with an io_context of its own: connect, TLS handshake,
// request and response together are bounded by the call's timeout, and the answer's body by a
// size limit, so a server that hangs, trickles or floods costs at most that long and that much.
// Thread-safe: calls share nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/http.h"
#include "common/result.h"

namespace apiserver::webhook {

// Where a call goes, after resolution.
struct Target {
  // The URL as errors show it (Go's `Post "<url>": ...`): https://<host>:<port><path>?timeout=Ns
  // for a service, the configured URL (plus the timeout parameter) for a url config.
  std::string url;
  std::string connect_host;  // what is dialled: an IP address or a host name
  std::string connect_port;
  // The name the server's certificate must be valid for: `<svc>.<ns>.svc` for a service, the
  // URL's host otherwise. An IP address is checked against the certificate's IP SANs.
  std::string server_name;
  std::string host_header;
  std::string path_and_query;  // the request target
  std::string ca_pem;          // caBundle; empty: the system's trusted roots
  // The server's certificate is not checked at all (an APIService's insecureSkipTLSVerify).
  bool insecure_skip_verify = false;
  // A client certificate chain and key (PEM) to present, e.g. the aggregator's front-proxy
  // client certificate; empty: none.
  std::string client_cert_pem;
  std::string client_key_pem;
};

// One request of any method, for send().
struct Request {
  std::string method = "GET";
  // Sent as given (Host, Content-Length and Connection are the client's own).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct Response {
  int status = 0;
  std::string content_type;
  std::string body;
  // Every header of the answer but the hop-by-hop ones (Connection, Transfer-Encoding,
  // Content-Length, Keep-Alive), in order.
  std::vector<std::pair<std::string, std::string>> headers;
};

// kube-sandbox's cap on a webhook's answer (upstream reads it whole).
inline constexpr size_t kMaxResponseBytes = 3 * 1024 * 1024;

// POSTs `body` (Content-Type and Accept application/json) to `target`. The error reads as Go's
// HTTP client words its failures, `Post "<url>": <cause>`, e.g. `context deadline exceeded`,
// `dial tcp 127.0.0.1:1: connect: connection refused`,
// `tls: failed to verify certificate: x509: certificate signed by unknown authority`, `EOF`.
common::Result<Response> post_json(const Target& target, const std::string& body,
                                   std::chrono::milliseconds timeout,
                                   size_t max_response_bytes = kMaxResponseBytes);

// What Go's rest client says of an answer that is not 2xx and carries no Status, e.g. `the server
// could not find the requested resource` for a 404.
std::string rest_client_error(int status, const std::string& body);

// Sends `request` to `target` (its path_and_query) and reads the whole answer, with the same
// bounds as post_json(). Errors read as Go's client words them, after the method as Go names it
// and the URL: `Get "https://10.0.0.7:8443/apis/x/v1": dial tcp 10.0.0.7:8443: connect:
// connection refused`.
common::Result<Response> send(const Target& target, const Request& request,
                              std::chrono::milliseconds timeout, size_t max_response_bytes);

// A streamed answer: its status and headers now, its body as it comes.
struct StreamedResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // as Response::headers
  std::shared_ptr<http::ChunkStream> body;
};

// Sends `request` and returns once the answer's header is in (within `header_timeout`); a
// thread of the call's own then reads the body into `body` as it arrives, until it ends,
// `total_timeout` from now passes, the reader closes it, or more than `max_buffered` bytes wait
// unread (the client is cut off). At most 512 streams are read at once; past that the call fails
// with "too many open streams". For watches through the aggregation layer. Errors as send().
common::Result<StreamedResponse> open_stream(const Target& target, const Request& request,
                                             std::chrono::milliseconds header_timeout,
                                             std::chrono::milliseconds total_timeout,
                                             size_t max_buffered);

// Go's word for a method in its errors: "Get", "Post", "Delete" ...
std::string go_method_word(const std::string& method);

}  // namespace apiserver::webhook
