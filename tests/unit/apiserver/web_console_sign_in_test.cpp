// The web console's sign-ins by a user's bearer token: the API server is asked who the token is,
// the session calls the API with that token, sign-out ends it, failures are bounded; and the
// session table and the failure bound on their own.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/remote_cluster.h"
#include "apiserver/web_console.h"
#include "web_console_answers.h"
#include "webconsole/login_throttle.h"
#include "webconsole/sessions.h"

using apiserver::WebConsole;
using apiserver::WebConsoleOptions;
namespace http = apiserver::http;
namespace webconsole = apiserver::webconsole;
using namespace std::chrono_literals;
using web_console_test::cookies_of;
using web_console_test::csrf_of;
using web_console_test::header;
using web_console_test::status_of;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

// A fake API server that knows two tokens: alice's, and bob's, who may not review himself.
struct Fixture {
  std::vector<http::Request> forwarded;
  WebConsoleOptions options() {
    WebConsoleOptions o{kToken, "admin-token"};
    o.max_failed_logins = 3;
    return o;
  }
  WebConsole console{
      options(), [this](http::Request& request) {
        forwarded.push_back(request);
        http::Response response;
        response.set_header("Content-Type", "application/json");
        const std::string who = request.header("Authorization");
        if (who != "Bearer alice-token" && who != "Bearer bob-token" &&
            who != "Bearer admin-token") {
          response.status = 401;
          response.body =
              R"({"kind":"Status","apiVersion":"v1","metadata":{},)"
              R"("status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})";
        } else if (request.path == "/apis/authentication.k8s.io/v1/selfsubjectreviews") {
          response.status = who == "Bearer bob-token" ? 403 : 201;
          response.body =
              R"({"kind":"SelfSubjectReview","status":{"userInfo":{"username":"alice"}}})";
        } else {
          response.body = R"({"kind":"APIVersions"})";
        }
        return response;
      }};

  Fixture() { console.set_port(6480); }

  http::Response ask(http::Request r) { return console.handle(r); }

  static http::Request request(const std::string& method, const std::string& path) {
    http::Request r;
    r.method = method;
    r.path = path;
    r.target = path;
    r.headers["Host"] = "127.0.0.1:6480";
    return r;
  }

  http::Response sign_in(const std::string& token, bool with_origin = true) {
    auto r = request("POST", "/login");
    if (with_origin) {
      r.headers["Origin"] = "http://127.0.0.1:6480";
    }
    r.headers["Content-Type"] = "application/json";
    r.body = nlohmann::json{{"token", token}}.dump();
    return console.handle(r);
  }

  http::Response api(const std::string& method, const std::string& cookies,
                     const std::string& csrf = "") {
    auto r = request(method, "/api/v1/namespaces/default/pods");
    r.headers["Cookie"] = cookies;
    if (!csrf.empty()) {
      r.headers["X-CSRF-Token"] = csrf;
    }
    return console.handle(r);
  }
};

}  // namespace

TEST_CASE("web console: a bearer token signs in as its user, and the API sees that token",
          "[webconsole]") {
  Fixture f;
  auto answer = f.sign_in("alice-token");
  REQUIRE(answer.status == 200);
  CHECK(status_of(answer)["message"] == "signed in as \"alice\"");
  // The API server was asked who the token is, with the token.
  REQUIRE(f.forwarded.size() == 1);
  CHECK(f.forwarded[0].method == "POST");
  CHECK(f.forwarded[0].path == "/apis/authentication.k8s.io/v1/selfsubjectreviews");
  CHECK(f.forwarded[0].header("Authorization") == "Bearer alice-token");

  const std::string cookies = cookies_of(answer);
  CHECK(cookies.find("alice-token") == std::string::npos);  // the token stays on the server
  auto read = f.api("GET", cookies);
  CHECK(read.status == 200);
  CHECK(f.forwarded.back().header("Authorization") == "Bearer alice-token");

  // Writes need this session's own CSRF value; the login token's does not do.
  const std::string csrf = csrf_of(cookies);
  CHECK(f.api("POST", cookies, "not-it").status == 403);
  CHECK(f.api("POST", cookies, csrf).status == 200);

  SECTION("signing out ends the session and clears the cookies") {
    auto r = Fixture::request("POST", "/logout");
    r.headers["Cookie"] = cookies;
    CHECK(f.console.handle(r).status == 403);  // without the CSRF header
    r.headers["X-CSRF-Token"] = csrf;
    auto out = f.console.handle(r);
    CHECK(out.status == 200);
    CHECK(header(out, "Set-Cookie").find("Max-Age=0") != std::string::npos);
    CHECK(f.api("GET", cookies).status == 401);
  }
  SECTION("two sign-ins are two sessions") {
    auto again = f.sign_in("alice-token");
    REQUIRE(again.status == 200);
    CHECK(cookies_of(again) != cookies);
    CHECK(f.api("GET", cookies).status == 200);
  }
}

TEST_CASE("web console: token sign-ins the API server refuses, or that are not the page's",
          "[webconsole]") {
  Fixture f;
  SECTION("a token the API does not know: its 401, and no cookie") {
    auto refused = f.sign_in("mallory-token");
    CHECK(refused.status == 401);
    CHECK(status_of(refused)["reason"] == "Unauthorized");
    CHECK(header(refused, "Set-Cookie").empty());
  }
  SECTION("a token whose user may not review itself still signs in") {
    auto answer = f.sign_in("bob-token");
    REQUIRE(answer.status == 200);
    CHECK(status_of(answer)["message"] == "signed in");
    f.api("GET", cookies_of(answer));
    CHECK(f.forwarded.back().header("Authorization") == "Bearer bob-token");
  }
  SECTION("the console's login token signs in as the console's user") {
    auto answer = f.sign_in(kToken);
    REQUIRE(answer.status == 200);
    CHECK(f.forwarded.empty());
    f.api("GET", cookies_of(answer));
    CHECK(f.forwarded.back().header("Authorization") == "Bearer admin-token");
  }
  SECTION("without Origin (not fetch from the page), or another site's") {
    CHECK(f.sign_in("alice-token", false).status == 403);
    auto r = Fixture::request("POST", "/login");
    r.headers["Origin"] = "http://evil.example";
    r.body = R"({"token":"alice-token"})";
    CHECK(f.console.handle(r).status == 403);
    CHECK(f.forwarded.empty());
  }
  SECTION("a body that is not {\"token\": \"...\"}") {
    for (const char* body : {"", "token=alice-token", "[]", R"({"token":7})", R"({"token":""})",
                             R"({"token":"two words"})"}) {
      auto r = Fixture::request("POST", "/login");
      r.headers["Origin"] = "http://127.0.0.1:6480";
      r.body = body;
      auto answer = f.console.handle(r);
      CHECK(answer.status == 400);
      CHECK(status_of(answer)["reason"] == "BadRequest");
    }
    CHECK(f.forwarded.empty());
  }
  SECTION("GET and POST are the only methods of /login; POST the only one of /logout") {
    CHECK(f.ask(Fixture::request("PUT", "/login")).status == 405);
    CHECK(f.ask(Fixture::request("GET", "/logout")).status == 405);
    CHECK(f.ask(Fixture::request("POST", "/logout")).status == 401);
  }
}

TEST_CASE("web console: failed sign-ins are bounded, then answered 429 with Retry-After",
          "[webconsole]") {
  Fixture f;  // three failures allowed a minute
  for (int i = 0; i < 3; ++i) {
    CHECK(f.sign_in("mallory-token").status == 401);
  }
  auto limited = f.sign_in("alice-token");
  CHECK(limited.status == 429);
  CHECK(status_of(limited)["reason"] == "TooManyRequests");
  CHECK(status_of(limited)["details"]["retryAfterSeconds"].get<int>() >= 1);
  CHECK(!header(limited, "Retry-After").empty());
  auto by_url = Fixture::request("GET", "/login");
  by_url.query["token"] = {kToken};
  CHECK(f.console.handle(by_url).status == 429);
  CHECK(f.forwarded.size() == 3);  // no more questions to the API server
}

TEST_CASE("web console sessions: bounded, least recently used first, ended when idle",
          "[webconsole]") {
  const auto t0 = std::chrono::steady_clock::time_point{} + 1h;
  webconsole::SessionTable table(2, 10min);
  auto a = table.open({"a-token", "a", "a-csrf"}, t0);
  auto b = table.open({"b-token", "b", "b-csrf"}, t0 + 1s);
  CHECK(a.size() == 64);
  CHECK(a != b);
  REQUIRE(table.find(a, t0 + 2s));  // a is now the most recently used
  auto c = table.open({"c-token", "c", "c-csrf"}, t0 + 3s);
  CHECK(table.size() == 2);
  CHECK(!table.find(b, t0 + 4s));
  REQUIRE(table.find(a, t0 + 4s));
  CHECK(table.find(a, t0 + 4s)->bearer_token == "a-token");
  CHECK(table.find(c, t0 + 4s)->csrf == "c-csrf");
  CHECK(!table.find(c, t0 + 4s + 10min));  // idle too long
  table.close(a);
  CHECK(!table.find(a, t0 + 5s));
  CHECK(!table.find("", t0));
}

TEST_CASE("web console: the failure bound forgets failures older than its window", "[webconsole]") {
  const auto t0 = std::chrono::steady_clock::time_point{} + 1h;
  webconsole::LoginThrottle throttle(2, 60s);
  CHECK(throttle.wait(t0) == 0s);
  throttle.failed(t0);
  throttle.failed(t0 + 10s);
  CHECK(throttle.wait(t0 + 10s) == 50s);
  CHECK(throttle.wait(t0 + 59500ms) == 1s);
  CHECK(throttle.wait(t0 + 60s) == 0s);
  throttle.failed(t0 + 61s);
  CHECK(throttle.wait(t0 + 61s) == 9s);
}

TEST_CASE(
    "web console gateway: another cluster's server must be an https URL, and an "
    "unreachable one answers 503",
    "[webconsole]") {
  apiserver::RemoteCluster plain;
  plain.server = "http://127.0.0.1:8080";
  auto refused = apiserver::remote_cluster_handler(plain);
  REQUIRE(!refused);
  CHECK(refused.error().find("not an https:// URL") != std::string::npos);

  apiserver::RemoteCluster closed;
  closed.server = "https://127.0.0.1:1/prefix/";
  closed.timeout = 5s;
  auto handler = apiserver::remote_cluster_handler(closed);
  REQUIRE(handler);
  auto r = Fixture::request("GET", "/api");
  auto answer = (*handler)(r);
  CHECK(answer.status == 503);
  auto status = status_of(answer);
  CHECK(status["reason"] == "ServiceUnavailable");
  CHECK(status["message"].get<std::string>().find("https://127.0.0.1:1/prefix/api") !=
        std::string::npos);
  CHECK(status["message"].get<std::string>().find("connection refused") != std::string::npos);
}
