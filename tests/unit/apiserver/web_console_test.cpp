// The web console's front door: login by the URL token into cookies, the Host, Origin and CSRF
// checks, the API forwarded as the console's user and nothing of the browser's credentials, the
// page.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/web_console.h"
#include "web_console_answers.h"

using apiserver::WebConsole;
using apiserver::WebConsoleOptions;
using web_console_test::header;
using web_console_test::status_of;
namespace http = apiserver::http;

namespace {

constexpr uint16_t kPort = 6480;
const std::string kToken = "0123456789abcdef0123456789abcdef";

struct Fixture {
  std::vector<http::Request> forwarded;
  WebConsole console{WebConsoleOptions{kToken, "admin-token"}, [this](http::Request& request) {
                       forwarded.push_back(request);
                       http::Response response;
                       response.set_header("Content-Type", "application/json");
                       response.body = R"({"kind":"APIVersions"})";
                       return response;
                     }};

  Fixture() { console.set_port(kPort); }

  http::Response ask(http::Request request) { return console.handle(request); }

  static http::Request request(const std::string& method, const std::string& path,
                               const std::string& host = "127.0.0.1:6480") {
    http::Request r;
    r.method = method;
    r.path = path;
    r.target = path;
    r.headers["Host"] = host;
    return r;
  }

  // The cookies a successful login sets, as a Cookie header sends them back.
  std::string login_cookies() {
    auto r = request("GET", "/login");
    r.query["token"] = {kToken};
    http::Response response = ask(r);
    REQUIRE(response.status == 303);
    return web_console_test::cookies_of(response);
  }

  std::string csrf(const std::string& cookies) { return web_console_test::csrf_of(cookies); }
};

}  // namespace

TEST_CASE(
    "web console: login sets an HttpOnly session cookie and a CSRF cookie named after the port",
    "[webconsole]") {
  Fixture f;
  auto r = Fixture::request("GET", "/login");
  r.query["token"] = {kToken};
  http::Response response = f.ask(r);
  CHECK(response.status == 303);
  CHECK(header(response, "Location") == "/");
  std::vector<std::string> cookies;
  for (const auto& [name, value] : response.headers) {
    if (name == "Set-Cookie") {
      cookies.push_back(value);
    }
  }
  REQUIRE(cookies.size() == 2);
  CHECK(cookies[0].starts_with("ks_session_6480="));
  CHECK(cookies[0].find("HttpOnly") != std::string::npos);
  CHECK(cookies[0].find("SameSite=Strict") != std::string::npos);
  CHECK(cookies[1].starts_with("ks_csrf_6480="));
  CHECK(cookies[1].find("HttpOnly") == std::string::npos);  // the page reads it
  CHECK(cookies[1].find("SameSite=Strict") != std::string::npos);
  CHECK(cookies[0].find(kToken) == std::string::npos);  // the token itself never goes back

  SECTION("a wrong or missing token is refused") {
    auto wrong = Fixture::request("GET", "/login");
    wrong.query["token"] = {"0123456789abcdef0123456789abcdee"};
    auto refused = f.ask(wrong);
    CHECK(refused.status == 401);
    CHECK(status_of(refused)["reason"] == "Unauthorized");
    CHECK(f.ask(Fixture::request("GET", "/login")).status == 401);
  }
}

TEST_CASE("web console: the API needs the session cookie and goes on as the console's user",
          "[webconsole]") {
  Fixture f;
  auto anonymous = f.ask(Fixture::request("GET", "/api"));
  CHECK(anonymous.status == 401);
  CHECK(status_of(anonymous)["message"] == "Unauthorized");
  CHECK(f.forwarded.empty());

  std::string cookies = f.login_cookies();
  auto r = Fixture::request("GET", "/api/v1/namespaces");
  r.headers["Cookie"] = "other=1; " + cookies;
  r.headers["Authorization"] = "Bearer someone-else";
  r.headers["Impersonate-User"] = "mallory";
  r.headers["Accept"] = "application/json";
  auto response = f.ask(r);
  CHECK(response.status == 200);
  CHECK(header(response, "Cache-Control") == "no-store");
  REQUIRE(f.forwarded.size() == 1);
  const auto& sent = f.forwarded.front();
  CHECK(sent.header("Authorization") == "Bearer admin-token");
  CHECK(sent.header("Cookie").empty());
  CHECK(sent.header("Impersonate-User").empty());
  CHECK(sent.header("Accept") == "application/json");

  SECTION("a cookie for another port does not count") {
    auto other = Fixture::request("GET", "/apis");
    auto moved = cookies;
    for (auto at = moved.find("_6480="); at != std::string::npos; at = moved.find("_6480=")) {
      moved.replace(at, 6, "_6481=");
    }
    other.headers["Cookie"] = moved;
    CHECK(f.ask(other).status == 401);
  }
}

TEST_CASE("web console: writes need the CSRF token", "[webconsole]") {
  Fixture f;
  std::string cookies = f.login_cookies();
  auto post = Fixture::request("POST", "/api/v1/namespaces/default/configmaps");
  post.headers["Cookie"] = cookies;
  auto refused = f.ask(post);
  CHECK(refused.status == 403);
  CHECK(status_of(refused)["reason"] == "Forbidden");
  CHECK(f.forwarded.empty());

  post.headers["X-CSRF-Token"] = "not-it";
  CHECK(f.ask(post).status == 403);

  post.headers["X-CSRF-Token"] = f.csrf(cookies);
  CHECK(f.ask(post).status == 200);
  REQUIRE(f.forwarded.size() == 1);
  CHECK(f.forwarded.front().header("X-CSRF-Token").empty());
}

TEST_CASE("web console: foreign Host, Origin or a cross-site fetch are refused", "[webconsole]") {
  Fixture f;
  std::string cookies = f.login_cookies();
  auto with_cookies = [&](http::Request r) {
    r.headers["Cookie"] = cookies;
    return r;
  };
  // DNS rebinding: the browser thinks it talks to evil.example.
  auto rebound = f.ask(with_cookies(Fixture::request("GET", "/api", "evil.example:6480")));
  CHECK(rebound.status == 403);
  CHECK(status_of(rebound)["message"].get<std::string>().find("evil.example") != std::string::npos);
  CHECK(f.ask(Fixture::request("GET", "/login", "127.0.0.1:6481")).status == 403);
  for (const char* host : {"127.0.0.1:6480", "localhost:6480", "[::1]:6480"}) {
    CHECK(f.ask(with_cookies(Fixture::request("GET", "/api", host))).status == 200);
  }

  auto foreign = with_cookies(Fixture::request("GET", "/api"));
  foreign.headers["Origin"] = "http://evil.example";
  CHECK(f.ask(foreign).status == 403);
  auto own = with_cookies(Fixture::request("GET", "/api"));
  own.headers["Origin"] = "http://localhost:6480";
  CHECK(f.ask(own).status == 200);

  auto cross = with_cookies(Fixture::request("GET", "/api"));
  cross.headers["Sec-Fetch-Site"] = "cross-site";
  CHECK(f.ask(cross).status == 403);

  SECTION("before the listener's port is known, nothing is served") {
    WebConsole early{WebConsoleOptions{kToken, "t"},
                     [](http::Request&) { return http::Response{}; }};
    auto r = Fixture::request("GET", "/", "127.0.0.1:0");
    CHECK(early.handle(r).status == 403);
  }
}

TEST_CASE("web console: the page and its assets are served without a session", "[webconsole]") {
  Fixture f;
  // The page holds no secret; without a session it offers the sign-in. The API stays closed.
  for (bool signed_in : {false, true}) {
    auto r = Fixture::request("GET", "/");
    if (signed_in) {
      r.headers["Cookie"] = f.login_cookies();
    }
    auto page = f.ask(r);
    CHECK(page.status == 200);
    CHECK(header(page, "Content-Type") == "text/html; charset=utf-8");
    CHECK(page.body.find("app.js") != std::string::npos);
    CHECK(header(page, "Content-Security-Policy").find("script-src 'self'") != std::string::npos);
    CHECK(header(page, "Access-Control-Allow-Origin").empty());
    CHECK(header(page, "Cache-Control") == "no-store");
  }
  CHECK(f.forwarded.empty());

  auto script = f.ask(Fixture::request("GET", "/app.js"));
  CHECK(script.status == 200);
  CHECK(header(script, "Content-Type") == "text/javascript; charset=utf-8");
  CHECK(!script.body.empty());
  CHECK(f.ask(Fixture::request("GET", "/app.css")).status == 200);
  auto icon = f.ask(Fixture::request("GET", "/favicon.svg"));
  CHECK(icon.status == 200);
  CHECK(header(icon, "Content-Type") == "image/svg+xml");
  CHECK(icon.body.starts_with("<svg "));

  auto missing = f.ask(Fixture::request("GET", "/nothing-here"));
  CHECK(missing.status == 404);
  CHECK(status_of(missing)["reason"] == "NotFound");
  CHECK(f.ask(Fixture::request("POST", "/app.js")).status == 404);
}
