// The web console's front door: a handler for a loopback-only plain-HTTP listener that serves the
// console's page (embedded in the executable) and passes its API calls to the API server as the
// user of the browser's session.
//
// Protections, as local web tools have them:
// - Signing in, two ways; either sets two cookies named after the listener's port (cookies are
//   shared by every port of a host): `ks_session_<port>` (HttpOnly, SameSite=Strict) and
//   `ks_csrf_<port>` (SameSite=Strict, readable by the page).
//   - GET /login?token=T with the console's secret token (the URL serve prints), then a redirect
//     to /: a session as the console's own user (the admin). Both cookie values are derived from
//     the token (HMAC-SHA256), so these sessions outlive a restart and end when the token changes.
//   - POST /login from the page itself (Origin required) with {"token": "<bearer token>"}: the
//     API server is asked who the token is (a SelfSubjectReview made with it); a token it does not
//     authenticate is refused with its 401. The session then calls the API with that token, so
//     authentication and authorization apply as for that user. Such sessions are random ids kept
//     in memory (bounded, ending after an idle limit or at a restart).
//   - POST /logout (with the CSRF header) ends the session and clears the cookies.
//   Failed sign-ins are bounded: past `max_failed_logins` within `failed_login_window`, /login
//   answers 429 with Retry-After.
// - Every request: the Host header must name the listener itself (127.0.0.1, localhost or [::1]
//   with its port), against DNS rebinding; an Origin header, when sent, must be the console's own
//   origin; a request a browser marks cross-site (Sec-Fetch-Site) is refused.
// - The API (/api, /apis, /version, /openapi): a session is required (401 otherwise); a request
//   that is not GET or HEAD also needs the X-CSRF-Token header holding the session's CSRF cookie
//   value (403). The browser's cookies, CSRF header, Authorization and Impersonate-* headers are
//   dropped. No CORS headers are ever sent.
// - The page and its assets are served to anyone who passes the Host check (they hold no
//   secret; without a session the page offers the sign-in), with a strict Content-Security-Policy
//   (same origin only, no inline script) and no-store caching. Refusals are Kubernetes Status
//   objects.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/http.h"

namespace apiserver {

namespace webconsole {
class LoginThrottle;
class SessionTable;
}  // namespace webconsole

struct WebConsoleOptions {
  std::string login_token;  // the secret in the first URL (Pki::web_console_token)
  // The API is called with it for sessions signed in by the login token: the user the console
  // acts for. Empty: such calls carry no Authorization header, and the API handler adds its own
  // credentials (a gateway to another cluster).
  std::string bearer_token;
  std::size_t max_sessions = 256;  // token sign-ins kept at once
  std::chrono::seconds session_idle_limit{std::chrono::hours(12)};
  std::size_t max_failed_logins = 20;  // within failed_login_window
  std::chrono::seconds failed_login_window{60};
};

class WebConsole {
 public:
  // `api` answers the forwarded API requests (ApiServer::handle).
  WebConsole(WebConsoleOptions options, http::Handler api);
  ~WebConsole();
  WebConsole(const WebConsole&) = delete;
  WebConsole& operator=(const WebConsole&) = delete;

  // The listener's handler. Thread-safe.
  http::Response handle(http::Request& request) const;

  // The port the listener got; until it is set, every request is refused by the Host check.
  void set_port(uint16_t port) { port_.store(port); }

 private:
  // Who a request's session cookie stands for.
  struct Caller {
    std::string bearer_token;  // empty: the API handler's own credentials
    std::string csrf;
    std::string session_id;  // empty for a session by the login token
  };

  bool host_allowed(const std::string& host) const;
  bool origin_allowed(const http::Request& request) const;
  std::string cookie_name(const char* kind) const;
  std::optional<Caller> caller(const http::Request& request) const;
  // sign_in.cpp: /login and /logout.
  http::Response sign_in_by_url(const http::Request& request) const;
  http::Response sign_in_by_token(const http::Request& request) const;
  http::Response sign_out(const http::Request& request) const;
  http::Response signed_in(const std::string& session, const std::string& csrf,
                           http::Response response) const;
  http::Response forward(http::Request& request, const Caller& caller) const;

  WebConsoleOptions options_;
  http::Handler api_;
  std::string session_value_;  // HMAC(token, "session"), hex
  std::string csrf_value_;     // HMAC(token, "csrf"), hex
  std::atomic<uint16_t> port_{0};
  std::unique_ptr<webconsole::SessionTable> sessions_;
  std::unique_ptr<webconsole::LoginThrottle> throttle_;
};

}  // namespace apiserver
