// The outbound side of webhooks: one HTTPS POST of a JSON document to a webhook server, as
// kube-apiserver's webhook REST client makes it (admission webhooks now; CRD conversion and the
// aggregation layer may use it later). Resolution of a clientConfig into an address is in
// resolve.h.
//
// Every call runs on the caller's thread with an io_context of its own: connect, TLS handshake,
// request and response together are bounded by the call's timeout, and the answer's body by a
// size limit, so a server that hangs, trickles or floods costs at most that long and that much.
// Thread-safe: calls share nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

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
};

struct Response {
  int status = 0;
  std::string content_type;
  std::string body;
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

}  // namespace apiserver::webhook
