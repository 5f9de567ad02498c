// RFC 3339 times: Kubernetes' two forms both ways, Go's and RFC 3339's syntax, and the texts that
// are not times.
#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <string>

#include "common/rfc3339.h"

using common::format_rfc3339;
using common::format_rfc3339_micro;
using common::parse_rfc3339;
using common::Rfc3339Syntax;

TEST_CASE("metav1.Time and MicroTime texts are formatted in UTC", "[rfc3339]") {
  CHECK(format_rfc3339(0) == std::optional<std::string>("1970-01-01T00:00:00Z"));
  CHECK(format_rfc3339(1714557600) == std::optional<std::string>("2024-05-01T10:00:00Z"));
  CHECK(format_rfc3339(951782400) == std::optional<std::string>("2000-02-29T00:00:00Z"));
  CHECK(format_rfc3339(-1) == std::optional<std::string>("1969-12-31T23:59:59Z"));
  CHECK(format_rfc3339(-62167219200) == std::optional<std::string>("0000-01-01T00:00:00Z"));
  CHECK(format_rfc3339(253402300799) == std::optional<std::string>("9999-12-31T23:59:59Z"));
  CHECK(format_rfc3339(-62167219201) == std::nullopt);
  CHECK(format_rfc3339(253402300800) == std::nullopt);
  CHECK(format_rfc3339_micro(1714557600, 5) ==
        std::optional<std::string>("2024-05-01T10:00:00.000005Z"));
  CHECK(format_rfc3339_micro(1714557600, 999999) ==
        std::optional<std::string>("2024-05-01T10:00:00.999999Z"));
}

TEST_CASE("a clock reading is formatted to the second, rounded towards the past", "[rfc3339]") {
  using std::chrono::milliseconds;
  using std::chrono::system_clock;
  CHECK(format_rfc3339(system_clock::time_point(milliseconds(1714557600999))) ==
        "2024-05-01T10:00:00Z");
  CHECK(format_rfc3339(system_clock::time_point(milliseconds(-500))) == "1969-12-31T23:59:59Z");
}

TEST_CASE("times parse to seconds and nanoseconds since the epoch", "[rfc3339]") {
  const auto [text, seconds, nanos] = GENERATE(table<std::string, long long, int>({
      {"1970-01-01T00:00:00Z", 0, 0},
      {"2024-05-01T10:00:00Z", 1714557600, 0},
      {"2024-05-01T10:00:00.000005Z", 1714557600, 5000},
      {"2024-05-01T10:00:00.5Z", 1714557600, 500000000},
      {"2024-05-01T10:00:00.1234567891Z", 1714557600, 123456789},
      {"2024-05-01T12:30:00+02:30", 1714557600, 0},
      {"2024-05-01T07:00:00-03:00", 1714557600, 0},
      {"2000-02-29T00:00:00Z", 951782400, 0},
      {"1969-12-31T23:59:59Z", -1, 0},
      {"0000-01-01T00:00:00Z", -62167219200, 0},
  }));
  CAPTURE(text);
  const auto t = parse_rfc3339(text);
  REQUIRE(t);
  CHECK(t->seconds == seconds);
  CHECK(t->nanos == nanos);
  CHECK(parse_rfc3339(text, Rfc3339Syntax::Rfc)->seconds == seconds);
}

TEST_CASE("texts that are not times do not parse", "[rfc3339]") {
  const char* texts[] = {
      "",
      "2024-05-01",
      "2024-05-01T10:00:00",
      "2024-5-01T10:00:00Z",
      "2024-05-01 10:00:00Z",
      "2024-13-01T10:00:00Z",
      "2024-00-01T10:00:00Z",
      "2023-02-29T10:00:00Z",
      "2024-04-31T10:00:00Z",
      "2024-05-01T24:00:00Z",
      "2024-05-01T10:60:00Z",
      "2024-05-01T10:00:00.Z",
      "2024-05-01T10:00:00+0200",
      "2024-05-01T10:00:00+24:00",
      "2024-05-01T10:00:00Zjunk",
      "2024-05-01T10:00:00 Z",
      "+024-05-01T10:00:00Z",
  };
  for (const char* text : texts) {
    CAPTURE(text);
    CHECK_FALSE(parse_rfc3339(text));
    CHECK_FALSE(parse_rfc3339(text, Rfc3339Syntax::Rfc));
  }
}

TEST_CASE("RFC 3339's syntax also takes lower case letters and a leap second", "[rfc3339]") {
  for (const char* text :
       {"2024-05-01t10:00:00Z", "2024-05-01T10:00:00z", "2024-05-01T09:59:60Z"}) {
    CAPTURE(text);
    CHECK_FALSE(parse_rfc3339(text, Rfc3339Syntax::Go));
    const auto t = parse_rfc3339(text, Rfc3339Syntax::Rfc);
    REQUIRE(t);
    CHECK(t->seconds == 1714557600);
  }
}

TEST_CASE("formatting and parsing are inverse over the representable years", "[rfc3339]") {
  for (long long seconds = -62167219200; seconds <= 253402300799; seconds += 86399 * 997) {
    CAPTURE(seconds);
    const auto text = format_rfc3339(seconds);
    REQUIRE(text);
    const auto t = parse_rfc3339(*text);
    REQUIRE(t);
    CHECK(t->seconds == seconds);
  }
}
