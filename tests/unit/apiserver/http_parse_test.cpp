// What the server layer parses from a request before any handler: escapes, the query, and Go
// durations (?timeout=), with hostile inputs that must be refused without throwing.
#include <catch2/catch.hpp>
#include <chrono>
#include <limits>
#include <optional>
#include <string>

#include "apiserver/http.h"

using namespace std::chrono_literals;
using apiserver::http::parse_duration;

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

TEST_CASE("durations parse as Go's time.ParseDuration", "[http]") {
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

TEST_CASE("durations at the edge of int64 nanoseconds parse or fail as Go's do", "[http]") {
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

TEST_CASE("hostile durations are refused with Go's messages", "[http]") {
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

TEST_CASE("percent escapes decode by hand, strictly for client input", "[http]") {
  using apiserver::http::percent_decode;
  using apiserver::http::unescape;
  CHECK(unescape("%41%62%2f%2F", false) == "Ab//");
  CHECK(unescape("a+b", true) == "a b");
  CHECK(unescape("a+b", false) == "a+b");
  CHECK(unescape("%e7%a7%92", false) == "\xe7\xa7\x92");
  CHECK(unescape("%00", false) == std::string(1, '\0'));
  CHECK(unescape("", false) == "");
  CHECK_FALSE(unescape("%", false));
  CHECK_FALSE(unescape("%4", false));
  CHECK_FALSE(unescape("abc%4", false));
  CHECK_FALSE(unescape("%zz", false));
  CHECK_FALSE(unescape("%+1", true));
  CHECK_FALSE(unescape("%\xe7\xa7", false));
  CHECK(percent_decode("%zz%41%", false) == "%zzA%");
  const std::string many(100000, '%');
  CHECK_FALSE(unescape(many, false));
  CHECK(percent_decode(many, false) == many);
}

TEST_CASE("queries split as Go's url.ParseQuery splits them", "[http]") {
  using apiserver::http::parse_query;
  auto q = parse_query("a=1&b=x%20y&a=2&c&d=&=e&&f=g+h");
  CHECK(q["a"] == std::vector<std::string>{"1", "2"});
  CHECK(q["b"] == std::vector<std::string>{"x y"});
  CHECK(q["c"] == std::vector<std::string>{""});
  CHECK(q["d"] == std::vector<std::string>{""});
  CHECK(q[""] == std::vector<std::string>{"e"});
  CHECK(q["f"] == std::vector<std::string>{"g h"});
  CHECK(q.size() == 6);
  // A pair with a malformed escape or a semicolon is dropped; the others stay.
  auto dropped = parse_query("bad=%zz&ok=1&x;y=1&%g=2&timeout=1%");
  CHECK(dropped.size() == 1);
  CHECK(dropped["ok"] == std::vector<std::string>{"1"});
  CHECK(parse_query("").empty());
  CHECK(parse_query("&&&").empty());
}
