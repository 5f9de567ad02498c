// The web console's front door: a handler for a loopback-only plain-HTTP listener that serves the
// console's page (embedded in the executable) and passes its API calls to the API server as the
// user the console acts for.
//
// Protections, as local web tools have them:
// - Login: GET /login?token=T with the console's secret token sets two cookies, named after the
//   listener's port (cookies are shared by every port of a host): `ks_session_<port>` (HttpOnly,
//   SameSite=Strict) and `ks_csrf_<port>` (SameSite=Strict, readable by the page), then redirects
//   to /. Both values are derived from the token (HMAC-SHA256), so sessions outlive a restart
//   and end when the token changes.
// - Every request: the Host header must name the listener itself (127.0.0.1, localhost or [::1]
//   with its port), against DNS rebinding; an Origin header, when sent, must be the console's own
//   origin; a request a browser marks cross-site (Sec-Fetch-Site) is refused.
// - The API (/api, /apis, /version, /openapi): the session cookie is required (401 otherwise);
//   a request that is not GET or HEAD also needs the X-CSRF-Token header holding the CSRF
//   cookie's value (403). No CORS headers are ever sent.
// - Refusals are Kubernetes Status objects; the page and its assets go out with a strict
//   Content-Security-Policy (same origin only, no inline script) and no-store caching.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "apiserver/http.h"

namespace apiserver {

struct WebConsoleOptions {
  std::string login_token;   // the secret in the first URL (Pki::web_console_token)
  std::string bearer_token;  // the API is called with it: the user the console acts for
};

class WebConsole {
 public:
  // `api` answers the forwarded API requests (ApiServer::handle).
  WebConsole(WebConsoleOptions options, http::Handler api);

  // The listener's handler. Thread-safe.
  http::Response handle(http::Request& request) const;

  // The port the listener got; until it is set, every request is refused by the Host check.
  void set_port(uint16_t port) { port_.store(port); }

 private:
  bool host_allowed(const std::string& host) const;
  bool origin_allowed(const http::Request& request) const;
  http::Response login(const http::Request& request) const;
  http::Response forward(http::Request& request) const;
  std::string cookie_name(const char* kind) const;

  WebConsoleOptions options_;
  http::Handler api_;
  std::string session_value_;  // HMAC(token, "session"), hex
  std::string csrf_value_;     // HMAC(token, "csrf"), hex
  std::atomic<uint16_t> port_{0};
};

}  // namespace apiserver
