// WebConsole: the Host, Origin and session checks every request passes, the page, and the API
// forwarded as the session's user. Signing in and out is in sign_in.cpp.
#include <strings.h>

#include <string_view>

#include "apiserver/web_console.h"
#include "errors/status.h"
#include "webconsole/assets.h"
#include "webconsole/cookies.h"
#include "webconsole/login_throttle.h"
#include "webconsole/sessions.h"

namespace apiserver {
namespace {

using webconsole::no_store;
using webconsole::refuse;

// The page may load its own script, style sheet and icon and call its own origin, nothing else
// (the page's own meta tag says the same; frame-ancestors only counts as a header).
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

bool is_api_path(const std::string& path) {
  for (std::string_view prefix : {"/api", "/apis", "/version", "/openapi"}) {
    if (path == prefix ||
        (path.size() > prefix.size() && path.starts_with(prefix) && path[prefix.size()] == '/')) {
      return true;
    }
  }
  return false;
}

// A session id is 64 hex digits (random_secret); the login token's session value is too, but
// it is told apart by comparison first.
bool looks_like_session_id(const std::string& value) {
  return value.size() == 64 && value.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

WebConsole::WebConsole(WebConsoleOptions options, http::Handler api)
    : options_(std::move(options)),
      api_(std::move(api)),
      session_value_(
          webconsole::hmac_hex(options_.login_token, "kube-sandbox web console session")),
      csrf_value_(webconsole::hmac_hex(options_.login_token, "kube-sandbox web console csrf")),
      sessions_(std::make_unique<webconsole::SessionTable>(
          options_.max_sessions, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     options_.session_idle_limit))),
      throttle_(std::make_unique<webconsole::LoginThrottle>(
          options_.max_failed_logins,
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              options_.failed_login_window))) {}

WebConsole::~WebConsole() = default;

std::string WebConsole::cookie_name(const char* kind) const {
  return std::string("ks_") + kind + "_" + std::to_string(port_.load());
}

bool WebConsole::host_allowed(const std::string& host) const {
  const std::string port = std::to_string(port_.load());
  return port_.load() != 0 &&
         (host == "127.0.0.1:" + port || host == "localhost:" + port || host == "[::1]:" + port);
}

bool WebConsole::origin_allowed(const http::Request& request) const {
  // Browsers send Origin on every cross-origin request and on same-origin writes.
  auto origins = request.header_values("Origin");
  for (const auto& origin : origins) {
    if (!origin.starts_with("http://") || !host_allowed(origin.substr(7))) {
      return false;
    }
  }
  // Fetch metadata, where the browser sends it: only the console's own pages may call it.
  std::string site = request.header("Sec-Fetch-Site");
  return site.empty() || site == "same-origin" || site == "none";
}

std::optional<WebConsole::Caller> WebConsole::caller(const http::Request& request) const {
  const std::string value = webconsole::cookie(request, cookie_name("session"));
  if (webconsole::same_secret(value, session_value_)) {
    return Caller{options_.bearer_token, csrf_value_, ""};
  }
  if (!looks_like_session_id(value)) {
    return std::nullopt;
  }
  auto session = sessions_->find(value, std::chrono::steady_clock::now());
  if (!session) {
    return std::nullopt;
  }
  return Caller{session->bearer_token, session->csrf, value};
}

http::Response WebConsole::handle(http::Request& request) const {
  std::string host = request.header("Host");
  if (!host_allowed(host)) {
    return refuse(403, "Forbidden",
                  "the web console answers only on its loopback address: Host \"" + host +
                      "\" is not allowed");
  }
  if (!origin_allowed(request)) {
    return refuse(403, "Forbidden",
                  "the web console refuses requests from other sites (Origin \"" +
                      request.header("Origin") + "\")");
  }
  if (request.path == "/login") {
    return request.method == "POST" ? sign_in_by_token(request) : sign_in_by_url(request);
  }
  if (request.path == "/logout") {
    return sign_out(request);
  }
  if (is_api_path(request.path)) {
    auto who = caller(request);
    if (!who) {
      return refuse(401, "Unauthorized", "Unauthorized");
    }
    if (request.method != "GET" && request.method != "HEAD" &&
        !webconsole::same_secret(request.header("X-CSRF-Token"), who->csrf)) {
      return refuse(403, "Forbidden",
                    "the web console needs its CSRF token (header X-CSRF-Token) on " +
                        request.method + " requests");
    }
    return forward(request, *who);
  }
  const auto* asset = request.method == "GET" || request.method == "HEAD"
                          ? webconsole::find_asset(request.path)
                          : nullptr;
  if (!asset) {
    return errors::no_route().response();
  }
  // The page holds no secret: without a session it offers the sign-in.
  http::Response response;
  response.set_header("Content-Type", std::string(asset->content_type));
  response.body = request.method == "HEAD" ? std::string() : std::string(asset->body);
  no_store(response);
  response.set_header("Content-Security-Policy", kContentSecurityPolicy);
  response.set_header("X-Frame-Options", "DENY");
  return response;
}

http::Response WebConsole::forward(http::Request& request, const Caller& caller) const {
  // The browser's credentials stay here; the API sees the session's user, as it is (no
  // impersonation from the page).
  auto dropped = [](const std::string& name) {
    return strcasecmp(name.c_str(), "Cookie") == 0 ||
           strcasecmp(name.c_str(), "X-CSRF-Token") == 0 ||
           strcasecmp(name.c_str(), "Authorization") == 0 ||
           strncasecmp(name.c_str(), "Impersonate-", 12) == 0;
  };
  std::erase_if(request.headers, [&](const auto& header) { return dropped(header.first); });
  std::erase_if(request.repeated_headers,
                [&](const auto& header) { return dropped(header.first); });
  if (!caller.bearer_token.empty()) {
    request.headers["Authorization"] = "Bearer " + caller.bearer_token;
  }
  http::Response response = api_(request);
  no_store(response);
  return response;
}

}  // namespace apiserver
