// Go's JSON syntax errors, as encoding/json's scanner words them, and its nesting limit.
#include <catch2/catch.hpp>

#include <string>

#include "endpoints/body_decode.h"
#include "endpoints/go_json_syntax.h"

using apiserver::endpoints::go_json_syntax_error;
using apiserver::endpoints::kGoMaxNestingDepth;
using apiserver::endpoints::parse_client_json;

namespace {

std::string syntax(const std::string& text) {
  return go_json_syntax_error(text).value_or("<valid>");
}

}  // namespace

TEST_CASE("valid documents pass Go's syntax check", "[go-json]") {
  for (const char* text : {"{}", " [1, 2.5e-3, -0, true, false, null] ", "\"\\u00e9\\n\"",
                           "{\"a\":{\"b\":[{}]}}", "0", "\t\r\n{}\n"}) {
    CAPTURE(text);
    CHECK(syntax(text) == "<valid>");
  }
}

TEST_CASE("each syntax error has Go's text for its first bad byte", "[go-json]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"{name: 1}", "invalid character 'n' looking for beginning of object key string"},
      {"", "unexpected end of JSON input"},
      {"   ", "unexpected end of JSON input"},
      {"{\"a\":1", "unexpected end of JSON input"},
      {"[1,]", "invalid character ']' looking for beginning of value"},
      {"[1 2]", "invalid character '2' after array element"},
      {"{\"a\" 1}", "invalid character '1' after object key"},
      {"{\"a\":1 \"b\":2}", "invalid character '\"' after object key:value pair"},
      {"{} {}", "invalid character '{' after top-level value"},
      {"tru", "invalid character ' ' in literal true (expecting 'e')"},
      {"nul!", "invalid character '!' in literal null (expecting 'l')"},
      {"fals", "invalid character ' ' in literal false (expecting 'e')"},
      {"-", "invalid character ' ' in numeric literal"},
      {"01", "invalid character '1' after top-level value"},
      {"1.", "invalid character ' ' after decimal point in numeric literal"},
      {"1e+", "invalid character ' ' in exponent of numeric literal"},
      {"\"\\x\"", "invalid character 'x' in string escape code"},
      {"\"\\u12g4\"", "invalid character 'g' in \\u hexadecimal character escape"},
      {"\"a\tb\"", "invalid character '\\t' in string literal"},
      {"'a'", "invalid character '\\'' looking for beginning of value"},
      {"\x01", "invalid character '\\x01' looking for beginning of value"},
      {"\xc3\xa9", "invalid character '\xc3\x83' looking for beginning of value"},
      {"\x85", "invalid character '\\u0085' looking for beginning of value"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(syntax(c.text) == c.message);
  }
}

TEST_CASE("nesting deeper than 10,000 is Go's max depth error", "[go-json]") {
  const std::string deepest(kGoMaxNestingDepth, '[');
  const std::string closed = deepest + std::string(kGoMaxNestingDepth, ']');
  CHECK(syntax(closed) == "<valid>");
  CHECK(syntax("[" + closed + "]") == "invalid character '[' exceeded max depth");
  const std::string under_object(kGoMaxNestingDepth - 1, '[');
  CHECK(syntax("{\"a\":" + under_object + "{") == "invalid character '{' exceeded max depth");
}

TEST_CASE("a 10 MB body of brackets is refused without recursion", "[go-json]") {
  const std::string body(10 * 1024 * 1024, '[');
  auto parsed = parse_client_json(body);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error() == "invalid character '[' exceeded max depth");
}

TEST_CASE("a document at the depth limit parses and is freed", "[go-json]") {
  const std::string closed =
      std::string(kGoMaxNestingDepth, '[') + std::string(kGoMaxNestingDepth, ']');
  auto parsed = parse_client_json(closed);
  REQUIRE(parsed);
  CHECK(parsed->is_array());
}

TEST_CASE("strings Go accepts but the parser does not are repaired as Go decodes them",
          "[go-json]") {
  auto invalid_utf8 = parse_client_json("{\"a\":\"x\xffy\"}");
  REQUIRE(invalid_utf8);
  CHECK((*invalid_utf8)["a"] == "x\xef\xbf\xbdy");
  auto lone_surrogate = parse_client_json(R"({"a":"\ud800z","b":"\ud83d\ude00"})");
  REQUIRE(lone_surrogate);
  CHECK((*lone_surrogate)["a"] == "\xef\xbf\xbdz");
  CHECK((*lone_surrogate)["b"] == "\xf0\x9f\x98\x80");
}
