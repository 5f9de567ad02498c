#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <strings.h>

#include <array>
#include <string_view>

#include "apiserver/web_console.h"
#include "common/trim.h"
#include "errors/status.h"
#include "webconsole/assets.h"

namespace apiserver {
namespace {

// A cookie kept for a month: a bookmark keeps working across browser restarts.
constexpr const char* kCookieMaxAge = "2592000";

// The page may load its own script and style sheet and call its own origin, nothing else (the
// page's own meta tag says the same; frame-ancestors only counts as a header).
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string hmac_hex(const std::string& key, std::string_view message) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest.data(),
       &size);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// The value of cookie `name` in a Cookie header ("a=1; b=2"), or empty.
std::string cookie(const http::Request& request, const std::string& name) {
  std::string header = request.header("Cookie");
  std::string_view rest = header;
  while (!rest.empty()) {
    auto semicolon = rest.find(';');
    std::string_view pair = common::trim(rest.substr(0, semicolon));
    rest = semicolon == std::string_view::npos ? std::string_view{} : rest.substr(semicolon + 1);
    auto equals = pair.find('=');
    if (equals != std::string_view::npos && common::trim(pair.substr(0, equals)) == name) {
      return std::string(common::trim(pair.substr(equals + 1)));
    }
  }
  return {};
}

bool is_api_path(const std::string& path) {
  for (std::string_view prefix : {"/api", "/apis", "/version", "/openapi"}) {
    if (path == prefix ||
        (path.size() > prefix.size() && path.starts_with(prefix) && path[prefix.size()] == '/')) {
      return true;
    }
  }
  return false;
}

http::Response refuse(int code, const char* reason, const std::string& message) {
  return errors::failure(code, reason, message).response();
}

void no_store(http::Response& response) {
  response.set_header("Cache-Control", "no-store");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Referrer-Policy", "no-referrer");
}

}  // namespace

WebConsole::WebConsole(WebConsoleOptions options, http::Handler api)
    : options_(std::move(options)),
      api_(std::move(api)),
      session_value_(hmac_hex(options_.login_token, "kube-sandbox web console session")),
      csrf_value_(hmac_hex(options_.login_token, "kube-sandbox web console csrf")) {}

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
    return login(request);
  }
  const bool signed_in = same_secret(cookie(request, cookie_name("session")), session_value_);
  if (is_api_path(request.path)) {
    if (!signed_in) {
      return refuse(401, "Unauthorized", "Unauthorized");
    }
    if (request.method != "GET" && request.method != "HEAD" &&
        !same_secret(request.header("X-CSRF-Token"), csrf_value_)) {
      return refuse(403, "Forbidden",
                    "the web console needs its CSRF token (header X-CSRF-Token) on " +
                        request.method + " requests");
    }
    return forward(request);
  }
  const auto* asset = request.method == "GET" || request.method == "HEAD"
                          ? webconsole::find_asset(request.path)
                          : nullptr;
  if (!asset) {
    return errors::no_route().response();
  }
  http::Response response;
  if (asset->path == "/" && !signed_in) {
    response = refuse(401, "Unauthorized",
                      "Unauthorized: open the web console's URL as kube-sandbox serve printed it "
                      "(it carries the login token), or run kube-sandbox console --web");
  } else {
    response.set_header("Content-Type", std::string(asset->content_type));
    response.body = request.method == "HEAD" ? std::string() : std::string(asset->body);
  }
  no_store(response);
  response.set_header("Content-Security-Policy", kContentSecurityPolicy);
  response.set_header("X-Frame-Options", "DENY");
  return response;
}

http::Response WebConsole::login(const http::Request& request) const {
  if (request.method != "GET" || !same_secret(request.query_value("token"), options_.login_token)) {
    return refuse(401, "Unauthorized", "Unauthorized: the login token is missing or wrong");
  }
  http::Response response;
  response.status = 303;
  // The token leaves the address bar and the history: the next view is plain /.
  response.set_header("Location", "/");
  response.headers.emplace_back(
      "Set-Cookie", cookie_name("session") + "=" + session_value_ +
                        "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" + kCookieMaxAge);
  response.headers.emplace_back("Set-Cookie",
                                cookie_name("csrf") + "=" + csrf_value_ +
                                    "; Path=/; SameSite=Strict; Max-Age=" + kCookieMaxAge);
  no_store(response);
  return response;
}

http::Response WebConsole::forward(http::Request& request) const {
  // The browser's credentials stay here; the API sees the console's user, as it is (no
  // impersonation from the page).
  auto dropped = [](const std::string& name) {
    return strcasecmp(name.c_str(), "Cookie") == 0 ||
           strcasecmp(name.c_str(), "X-CSRF-Token") == 0 ||
           strncasecmp(name.c_str(), "Impersonate-", 12) == 0;
  };
  std::erase_if(request.headers, [&](const auto& header) { return dropped(header.first); });
  std::erase_if(request.repeated_headers,
                [&](const auto& header) { return dropped(header.first); });
  request.headers["Authorization"] = "Bearer " + options_.bearer_token;
  http::Response response = api_(request);
  no_store(response);
  return response;
}

}  // namespace apiserver
