// serve's --web-listen (sandbox/src/web_console_endpoint): loopback addresses only, a port or 0,
// none; and the console's address as a browser types it, IPv6 in brackets.
#include <catch2/catch.hpp>

#include "web_console_endpoint.h"

namespace {

common::Result<sandbox::WebListen> parse(const std::vector<std::string>& args) {
  auto flags = sandbox::FlagSet({sandbox::web_listen_flag()}).parse(args);
  REQUIRE(flags);
  return sandbox::web_listen(*flags);
}

}  // namespace

TEST_CASE("serve's --web-listen takes a loopback address and a port", "[cli][web]") {
  auto fallback = parse({});
  REQUIRE(fallback);
  CHECK(*fallback->host == "127.0.0.1");
  CHECK(fallback->port == 6480);
  CHECK_FALSE(fallback->chosen);

  auto ipv6 = parse({"--web-listen=[::1]:0"});
  REQUIRE(ipv6);
  CHECK(*ipv6->host == "::1");
  CHECK(ipv6->port == 0);
  CHECK(ipv6->chosen);

  auto named = parse({"--web-listen", "localhost:7000"});
  REQUIRE(named);
  CHECK(*named->host == "127.0.0.1");

  auto off = parse({"--web-listen=none"});
  REQUIRE(off);
  CHECK_FALSE(off->host.has_value());
}

TEST_CASE("serve's --web-listen refuses other addresses and bad ports, naming the flag",
          "[cli][web]") {
  for (const char* bad : {"0.0.0.0:6480", "192.168.1.2:80", "6480", "127.0.0.1:", "127.0.0.1:70000",
                          "127.0.0.1:-1", "127.0.0.1:80x"}) {
    CAPTURE(bad);
    auto parsed = parse({std::string("--web-listen=") + bad});
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().starts_with(std::string("--web-listen ") + bad + ": "));
  }
}

TEST_CASE("the web console's address brackets IPv6", "[cli][web]") {
  for (auto [host, want] :
       {std::pair{"127.0.0.1", "http://127.0.0.1:"}, std::pair{"::1", "http://[::1]:"}}) {
    sandbox::WebListen listen;
    listen.host = host;
    listen.port = 0;
    listen.chosen = true;
    auto started = sandbox::start_web_console(
        listen, [](apiserver::http::Request&) { return apiserver::http::Response{}; }, "t0k3n",
        "admin");
    REQUIRE(started);
    const std::string url = started->url();
    CHECK(url.starts_with(want));
    CHECK(started->login_url() == url + "login?token=t0k3n");
    started->server->stop(std::chrono::milliseconds(0));
  }
}
