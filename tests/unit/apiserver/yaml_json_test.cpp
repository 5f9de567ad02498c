#include "endpoints/yaml_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

using apiserver::endpoints::json_to_yaml;
using apiserver::endpoints::yaml_to_json;
using nlohmann::json;

namespace {

json must_convert(const std::string& yaml) {
  auto out = yaml_to_json(yaml);
  INFO((out ? "" : out.error()));
  REQUIRE(out.ok());
  return *out;
}

std::string convert_error(const std::string& yaml) {
  auto out = yaml_to_json(yaml);
  REQUIRE_FALSE(out.ok());
  return out.error();
}

// go-yaml v2's billion laughs: each level names the previous one nine times.
std::string laughs(int levels) {
  std::string out =
      "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (int i = 1; i < levels; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    out += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) {
      out += "," + prev;
    }
    out += "]\n";
  }
  return out;
}

}  // namespace

TEST_CASE("plain YAML scalars take YAML 1.2's core types and quoted ones stay strings", "[yaml]") {
  const json doc = must_convert(
      "i: 42\nn: -7\nf: 1.5e3\nz: 007\nb: true\nnul: ~\ns: hello\nq: \"42\"\n"
      "big: 99999999999999999999\nhuge: 1e999\nu: 18446744073709551615\n");
  CHECK(doc["i"] == 42);
  CHECK(doc["n"] == -7);
  CHECK(doc["f"] == 1500.0);
  CHECK(doc["z"] == 7.0);
  CHECK(doc["b"] == true);
  CHECK(doc["nul"].is_null());
  CHECK(doc["s"] == "hello");
  CHECK(doc["q"] == "42");
  CHECK(doc["big"] == 1e20);
  CHECK(doc["huge"] == "1e999");
  CHECK(doc["u"].is_number_unsigned());
}

TEST_CASE("aliases expand, and a billion laughs is refused as go-yaml refuses it", "[yaml]") {
  const json small = must_convert("base: &b {x: 1}\nuse: *b\nlist: [*b, *b]\n");
  CHECK(small["use"] == json{{"x", 1}});
  CHECK(small["list"].size() == 2);
  CHECK(convert_error(laughs(9)) ==
        "error converting YAML to JSON: yaml: document contains excessive aliasing");
  // Five levels expand to 9^5 nodes from 50 written ones: also past the ratio.
  CHECK(convert_error(laughs(5)) ==
        "error converting YAML to JSON: yaml: document contains excessive aliasing");
  // Three levels stay under go-yaml's 1,000 decoded nodes and convert.
  CHECK(must_convert(laughs(3))["a2"].size() == 9);
}

TEST_CASE("an anchor that contains its own alias is refused", "[yaml]") {
  CHECK(convert_error("a: &x [1, *x]\n") ==
        "error converting YAML to JSON: yaml: anchor 'x' value contains itself");
}

TEST_CASE("flow nesting deeper than ten thousand is refused with go-yaml's text", "[yaml]") {
  CHECK(convert_error(std::string(1000 * 1024, '[')) ==
        "error converting YAML to JSON: yaml: exceeded max depth of 10000");
  CHECK(convert_error("x: " + std::string(1000 * 1024, '{')) ==
        "error converting YAML to JSON: yaml: exceeded max depth of 10000");
  CHECK(convert_error("a: 1\nb: " + std::string(10001, '[')) ==
        "error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000");
  // Brackets inside scalars are text, not nesting.
  const std::string text(20000, '[');
  CHECK(must_convert("s: a" + text + "\nq: '" + text + "'\n")["q"] == text);
}

TEST_CASE("a deep block nesting ends in an error, never in a crash", "[yaml]") {
  std::string yaml;
  for (int i = 0; i < 20000; ++i) {
    yaml += "- ";
  }
  yaml += "x\n";
  auto out = yaml_to_json(yaml);
  REQUIRE_FALSE(out.ok());
  CHECK_FALSE(out.error().empty());
}

TEST_CASE("JSON to YAML quotes strings that would read back as something else", "[yaml]") {
  struct Case {
    std::string value;
    std::string yaml;
  };
  auto c = GENERATE(values<Case>({
      {"[", "v: '['\n"},
      {"{a", "v: '{a'\n"},
      {"a: b", "v: 'a: b'\n"},
      {"- x", "v: '- x'\n"},
      {"# no", "v: '# no'\n"},
      {"true", "v: \"true\"\n"},
      {"yes", "v: \"yes\"\n"},
      {"42", "v: \"42\"\n"},
      {"1.5", "v: \"1.5\"\n"},
      {"", "v: \"\"\n"},
      {"~", "v: \"~\"\n"},
      {"plain text", "v: plain text\n"},
      {"a:b", "v: a:b\n"},
  }));
  CAPTURE(c.value);
  const json doc = {{"v", c.value}};
  const std::string yaml = json_to_yaml(doc);
  CHECK(yaml == c.yaml);
  CHECK(must_convert(yaml) == doc);
}

TEST_CASE("JSON to YAML round-trips awkward strings, keys and deep values", "[yaml]") {
  json doc = {{"data",
               {{"[", "["},
                {"multi", "line one\nline two\n"},
                {" lead", "trail "},
                {"tab", "a\tb"},
                {"quote'", "it's \"x\""},
                {"empty", json::object()},
                {"list", json::array()}}}};
  CHECK(must_convert(json_to_yaml(doc)) == doc);
  json deep = 1;
  for (int i = 0; i < 10000; ++i) {
    json outer = json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  const std::string yaml = json_to_yaml(deep);
  CHECK(yaml.size() > 10000);
}

TEST_CASE("YAML that is not valid UTF-8 is refused with go-yaml's reader texts", "[yaml]") {
  CHECK(convert_error("a: \xff\n") ==
        "error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
  CHECK(convert_error("a: \xc3") ==
        "error converting YAML to JSON: yaml: incomplete UTF-8 octet sequence");
  CHECK(convert_error("a: \xc3(\n") ==
        "error converting YAML to JSON: yaml: invalid trailing UTF-8 octet");
  CHECK(convert_error("a: \xc0\xaf\n") ==
        "error converting YAML to JSON: yaml: invalid length of a UTF-8 sequence");
  CHECK(convert_error("a: \xed\xa0\x80\n") ==
        "error converting YAML to JSON: yaml: invalid Unicode character");
  CHECK(convert_error(std::string("\0\0\0\na: 1\n", 9)) ==
        "error converting YAML to JSON: yaml: control characters are not allowed");
  CHECK(convert_error("a: \xc2\x80\n") ==
        "error converting YAML to JSON: yaml: control characters are not allowed");
  CHECK(must_convert("a: \xc3\xa9\n")["a"] == "\xc3\xa9");
}

TEST_CASE("double-quoted escapes give UTF-8 text, \\N and \\_ included", "[yaml]") {
  // yaml-cpp writes \N and \_ as the bytes 0x85 and 0xA0; go-yaml reads U+0085 and U+00A0.
  const json doc = must_convert(
      "n: \"a\\Nb\"\nnbsp: \"\\_\"\nboth: \"\xc2\xa9\\N\\_\xef\xbf\xbd\"\nls: \"\\L\\P\"\n"
      "u: \"\\u00e9\\x41\\U0001F600\"\n");
  CHECK(doc["n"] ==
        "a\xc2\x85"
        "b");
  CHECK(doc["nbsp"] == "\xc2\xa0");
  CHECK(doc["both"] == "\xc2\xa9\xc2\x85\xc2\xa0\xef\xbf\xbd");
  CHECK(doc["ls"] == "\xe2\x80\xa8\xe2\x80\xa9");
  CHECK(doc["u"] ==
        "\xc3\xa9"
        "A"
        "\xf0\x9f\x98\x80");
  CHECK_NOTHROW(doc.dump());
  // The fuzz finding: an unterminated string with \N is an error, not an exception.
  CHECK_NOTHROW(yaml_to_json(" \"b\\\\a;uf\\NULL\n"));
}
