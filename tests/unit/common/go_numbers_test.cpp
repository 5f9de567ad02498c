// Go's strconv.Atoi and time.ParseDuration (common/go_numbers.h), with hostile inputs that must
// be refused with Go's messages, never by overflowing or throwing.
#include "common/go_numbers.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <limits>
#include <optional>
#include <string>

using namespace std::chrono_literals;
using common::parse_duration;

namespace {

// What `text` parses to; nullopt when it does not.
std::optional<std::chrono::nanoseconds> duration(const std::string& text) {
  auto parsed = parse_duration(text);
  return parsed ? std::optional(*parsed) : std::nullopt;
}

// The error text of a duration that must not parse.
std::string duration_error(const std::string& text) {
  auto parsed = parse_duration(text);
  REQUIRE_FALSE(parsed);
  return parsed.error();
}

}  // namespace

TEST_CASE("durations parse as Go's time.ParseDuration", "[go_numbers]") {
  auto [text, want] = GENERATE(table<std::string, std::chrono::nanoseconds>({
      {"60s", 60s},
      {"1m30s", 90s},
      {"1.5h", 90min},
      {"250ms", 250ms},
      {"2us", 2us},
      {"2\xc2\xb5s", 2us},
      {"2\xce\xbcs", 2us},
      {"3ns", 3ns},
      {"0", 0s},
      {"+0", 0s},
      {"-0", 0s},
      {".5s", 500ms},
      {"5.s", 5s},
      {"-1s", -1s},
      {"+2m", 2min},
      {"1h1m1s1ms1us1ns", 1h + 1min + 1s + 1ms + 1us + 1ns},
      // Fraction digits beyond what fits are ignored, not an error.
      {"1.0000000000000000000000000000000000000001s", 1s},
      {"0.0000000001s", 0s},
  }));
  CAPTURE(text);
  CHECK(duration(text) == want);
}

TEST_CASE("durations at the edge of int64 nanoseconds parse or fail as Go's do", "[go_numbers]") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  CHECK(duration("9223372036854775807ns") == std::chrono::nanoseconds(kMax));
  CHECK(duration("-9223372036854775808ns") == std::chrono::nanoseconds(kMin));
  CHECK(duration_error("9223372036854775808ns") ==
        "time: invalid duration \"9223372036854775808ns\"");
  CHECK(duration_error("-9223372036854775809ns") ==
        "time: invalid duration \"-9223372036854775809ns\"");
  CHECK(duration_error("2562048h") == "time: invalid duration \"2562048h\"");
  CHECK(duration("2562047h") == 2562047h);
  // Sums that overflow only once added up.
  CHECK(duration_error("2562047h2562047h") == "time: invalid duration \"2562047h2562047h\"");
  CHECK(duration_error("9223372036854775807ns1ns") ==
        "time: invalid duration \"9223372036854775807ns1ns\"");
  CHECK(duration_error("2562047.9999999h") == "time: invalid duration \"2562047.9999999h\"");
}

TEST_CASE("hostile durations are refused with Go's messages", "[go_numbers]") {
  const std::string digits(400, '9');
  CHECK(duration_error(digits + "s") == "time: invalid duration \"" + digits + "s\"");
  CHECK(duration_error("0." + digits) == "time: missing unit in duration \"0." + digits + "\"");
  CHECK(duration_error("1e999s") == "time: unknown unit \"e\" in duration \"1e999s\"");
  CHECK(duration_error("") == "time: invalid duration \"\"");
  CHECK(duration_error("-") == "time: invalid duration \"-\"");
  CHECK(duration_error("+") == "time: invalid duration \"+\"");
  CHECK(duration_error("60") == "time: missing unit in duration \"60\"");
  CHECK(duration_error("1d") == "time: unknown unit \"d\" in duration \"1d\"");
  CHECK(duration_error("s") == "time: invalid duration \"s\"");
  CHECK(duration_error(".s") == "time: invalid duration \".s\"");
  CHECK(duration_error("-.s") == "time: invalid duration \"-.s\"");
  CHECK(duration_error("1.s5") == "time: missing unit in duration \"1.s5\"");
  CHECK(duration_error("--1s") == "time: invalid duration \"--1s\"");
  CHECK(duration_error(" 1s") == "time: invalid duration \" 1s\"");
  CHECK(duration_error("1s ") == "time: unknown unit \"s \" in duration \"1s \"");
  CHECK(duration_error("inf") == "time: invalid duration \"inf\"");
  CHECK(duration_error("NaNs") == "time: invalid duration \"NaNs\"");
  CHECK(duration_error("0x10s") == "time: unknown unit \"x\" in duration \"0x10s\"");
  // Quotes and backslashes are escaped; control and non-ASCII bytes are written as \xNN, one
  // per byte, valid UTF-8 or not.
  CHECK(duration_error("1\"s") == "time: unknown unit \"\\\"s\" in duration \"1\\\"s\"");
  CHECK(duration_error("1\\s") == "time: unknown unit \"\\\\s\" in duration \"1\\\\s\"");
  CHECK(duration_error("5\xe7\xa7\x92") ==
        "time: unknown unit \"\\xe7\\xa7\\x92\" in duration \"5\\xe7\\xa7\\x92\"");
  CHECK(duration_error("1\ts") == "time: unknown unit \"\\x09s\" in duration \"1\\x09s\"");
  CHECK(duration_error("1\xffs") == "time: unknown unit \"\\xffs\" in duration \"1\\xffs\"");
  CHECK(duration_error(std::string("1\0s", 3)) ==
        "time: unknown unit \"\\x00s\" in duration \"1\\x00s\"");
  CHECK(duration_error("\xf0\x9f\x98\x80") == "time: invalid duration \"\\xf0\\x9f\\x98\\x80\"");
}

TEST_CASE("integers parse as Go's strconv.Atoi", "[go_numbers]") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    std::string text;
    int64_t value;
    std::string error;
  };
  auto c = GENERATE(values<Case>({
      {"42", 42, ""},
      {"+7", 7, ""},
      {"-0", 0, ""},
      {"-12", -12, ""},
      {"9223372036854775807", kMax, ""},
      {"-9223372036854775808", kMin, ""},
      {"9223372036854775808", kMax,
       "strconv.Atoi: parsing \"9223372036854775808\": value out of range"},
      {"-99999999999999999999", kMin,
       "strconv.Atoi: parsing \"-99999999999999999999\": value out of range"},
      {"", 0, "strconv.Atoi: parsing \"\": invalid syntax"},
      {"+", 0, "strconv.Atoi: parsing \"+\": invalid syntax"},
      {"1 ", 0, "strconv.Atoi: parsing \"1 \": invalid syntax"},
      {"0x10", 0, "strconv.Atoi: parsing \"0x10\": invalid syntax"},
      {"--1", 0, "strconv.Atoi: parsing \"--1\": invalid syntax"},
  }));
  CAPTURE(c.text);
  const common::GoAtoi parsed = common::go_atoi(c.text);
  CHECK(parsed.value == c.value);
  CHECK(parsed.error == c.error);
}
