// The Accept header: how it splits into media ranges, the encoding of resource responses and
// whether a Table is asked for, as kubectl and client-go send them.
#include <catch2/catch.hpp>

#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "endpoints/accept.h"

using apiserver::endpoints::accepted_encoding;
using apiserver::endpoints::parse_accept;
using apiserver::endpoints::wants_table;

namespace {

// The ranges of `header` in negotiation order, each as "type/subtype;q=Q".
std::vector<std::string> ordered(const std::string& header) {
  std::vector<std::string> out;
  for (const auto& range : parse_accept(header)) {
    std::ostringstream text;
    text << range.type << "/" << range.subtype << ";q=" << range.q;
    out.push_back(text.str());
  }
  return out;
}

}  // namespace

TEST_CASE("an Accept header splits into media types and parameters as goautoneg reads it",
          "[accept]") {
  const auto ranges =
      parse_accept(" application/json ; as=Table;v = v1 ;g=meta.k8s.io,application/yaml;q=0.5");
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].type == "application");
  CHECK(ranges[0].subtype == "json");
  CHECK(ranges[0].q == 1.0);
  CHECK(ranges[0].params.size() == 3);
  CHECK(*ranges[0].param("v") == "v1");
  CHECK(*ranges[0].param("g") == "meta.k8s.io");
  CHECK(ranges[0].param("q") == nullptr);
  CHECK(ranges[1].subtype == "yaml");
  CHECK(ranges[1].q == 0.5);
  CHECK(ranges[1].params.empty());

  SECTION("a later parameter of the same name wins; malformed ones are dropped") {
    const auto range = parse_accept("a/b;x=1;x=2;flag;empty=;two=1=2;end=3=;q=0.5;q=0.25")[0];
    CHECK(range.params ==
          std::map<std::string, std::string, std::less<>>{{"x", "2"}, {"end", "3"}});
    CHECK(range.q == 0.25);
  }
  SECTION("types keep their case; only spaces are trimmed") {
    const auto range = parse_accept("Application/JSON")[0];
    CHECK(range.type == "Application");
    CHECK(range.subtype == "JSON");
    CHECK(parse_accept("\tapplication/json")[0].type == "\tapplication");
  }
}

TEST_CASE("a range without a subtype is dropped unless it is *, which means */*", "[accept]") {
  auto [header, ranges] = GENERATE(table<std::string, std::vector<std::string>>({
      {"*", {"*/*;q=1"}},
      {" * ;q=0.5", {"*/*;q=0.5"}},
      {"application", {}},
      {"application/", {}},
      {"application, text/html", {"text/html;q=1"}},
      {"a/b/c", {}},
      {"a/b/", {"a/b;q=1"}},
      {"/json", {"/json;q=1"}},
      {"", {}},
      {",,", {}},
      {"a/b,", {"a/b;q=1"}},
  }));
  CAPTURE(header);
  CHECK(ordered(header) == ranges);
}

TEST_CASE("q=0 keeps a range, ordered last, as kube-apiserver negotiates", "[accept]") {
  CHECK(ordered("application/json;q=0") == std::vector<std::string>{"application/json;q=0"});
  CHECK(ordered("application/json;q=0, text/html;q=0.1") ==
        std::vector<std::string>{"text/html;q=0.1", "application/json;q=0"});
  // An unreadable q is ParseFloat's zero, not a dropped range.
  CHECK(ordered("a/b;q=high, c/d;q= 0.5") == std::vector<std::string>{"a/b;q=0", "c/d;q=0"});
}

TEST_CASE("ranges are ordered by q, then a concrete type, then a concrete subtype", "[accept]") {
  auto [header, ranges] = GENERATE(table<std::string, std::vector<std::string>>({
      {"a/b;q=0.5, c/d", {"c/d;q=1", "a/b;q=0.5"}},
      {"*/*, a/*, a/b", {"a/b;q=1", "a/*;q=1", "*/*;q=1"}},
      {"*/b, a/*", {"a/*;q=1", "*/b;q=1"}},
      {"*/*;q=0.9, a/b;q=0.1", {"*/*;q=0.9", "a/b;q=0.1"}},
      // The header's order among equals.
      {"c/d, a/b, e/f;q=1", {"c/d;q=1", "a/b;q=1", "e/f;q=1"}},
      {"a/b;q=0.5, c/d;q=.5", {"a/b;q=0.5", "c/d;q=0.5"}},
  }));
  CAPTURE(header);
  CHECK(ordered(header) == ranges);
}

TEST_CASE("resource responses are JSON unless only YAML is accepted", "[accept]") {
  const auto [header, encoding] = GENERATE(table<std::string, std::string>({
      {"", "json"},
      {"application/json", "json"},
      {"*/*", "json"},
      {"application/*", "json"},
      {"application/json;q=0", "json"},
      {"application/yaml", "yaml"},
      {"application/yaml, application/json", "json"},
      {"application/yaml;q=0.9,\t*/*\t", "json"},
      {"application/vnd.kubernetes.protobuf, application/yaml", "yaml"},
      {"application/vnd.kubernetes.protobuf", ""},
      {"text/html", ""},
      {"Application/JSON", ""},
      {",", ""},
  }));
  CAPTURE(header);
  CHECK(accepted_encoding(header) == encoding);
}

TEST_CASE("a Table is asked for with as=Table, g=meta.k8s.io and v=v1", "[accept]") {
  const auto [header, is_table] = GENERATE(table<std::string, bool>({
      {"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
       "g=meta.k8s.io,application/json",
       true},
      {"application/json; as=Table; g=meta.k8s.io; v=v1", true},
      {"application/yaml;as=Table;v=v1;g=meta.k8s.io", true},
      {"application/json;as=Table;v=v1beta1;g=meta.k8s.io", false},
      {"application/json;as=Table;v=v1alpha1;g=meta.k8s.io", false},
      {"application/json;as=Table;v=v1", false},
      {"application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", false},
      {"application/json;as=Table;v=v1;g=meta.k8s.io.example", false},
      {"application/json", false},
      {"", false},
  }));
  CAPTURE(header);
  CHECK(wants_table(header) == is_table);
}

TEST_CASE("an Accept quality reads as Go's ParseFloat at 32 bits, and anything else is 0",
          "[accept]") {
  using apiserver::endpoints::accept_quality;
  auto [text, q] = GENERATE(table<std::string, double>({
      {"1", 1.0},
      {"0.5", 0.5},
      {".5", 0.5},
      {"+1", 1.0},
      {"5e-1", 0.5},
      {"0", 0.0},
      {"-1", -1.0},
      {"0.1", static_cast<double>(0.1f)},
      {"1e39", std::numeric_limits<double>::infinity()},
      {"inf", std::numeric_limits<double>::infinity()},
      {"nan", 0.0},
      {"", 0.0},
      {" .5 ", 0.0},
      {"0.5 ", 0.0},
      {"+-1", 0.0},
      {"0.5x", 0.0},
      {"x", 0.0},
      {"1,0", 0.0},
  }));
  CAPTURE(text);
  CHECK(accept_quality(text) == q);
}
