#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "common/https_url.h"

TEST_CASE("an https URL splits into host, port and request target", "[common][url]") {
  struct Case {
    std::string url;
    std::optional<common::HttpsUrl> want;
  };
  auto c = GENERATE(values<Case>({
      {"https://example.com", common::HttpsUrl{"example.com", "443", "/"}},
      {"https://127.0.0.1:8443/check", common::HttpsUrl{"127.0.0.1", "8443", "/check"}},
      {"https://[::1]:9443/a?b=1", common::HttpsUrl{"::1", "9443", "/a?b=1"}},
      {"https://[::1]", common::HttpsUrl{"::1", "443", "/"}},
      {"https://host?x=1", common::HttpsUrl{"host", "443", "/?x=1"}},
      {"http://host/", std::nullopt},
      {"https://", std::nullopt},
      {"https://:8443/", std::nullopt},
      {"https://host:/", std::nullopt},
      {"https://host:0/", std::nullopt},
      {"https://host:65536/", std::nullopt},
      {"https://host:44x/", std::nullopt},
      {"https://[::1/", std::nullopt},
      {"https://[::1]x/", std::nullopt},
  }));
  CAPTURE(c.url);
  auto got = common::parse_https_url(c.url);
  REQUIRE(got.has_value() == c.want.has_value());
  if (got) {
    CHECK(got->host == c.want->host);
    CHECK(got->port == c.want->port);
    CHECK(got->target == c.want->target);
  }
}
