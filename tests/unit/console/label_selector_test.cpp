#include "console/model/label_selector.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using console::model::LabelOperator;
using console::model::LabelSelector;
using nlohmann::json;

namespace {

LabelSelector parsed(const std::string& text) {
  auto selector = LabelSelector::parse(text);
  INFO((selector.ok() ? "" : selector.error()));
  REQUIRE(selector.ok());
  return *selector;
}

std::string parse_error(const std::string& text) {
  auto selector = LabelSelector::parse(text);
  REQUIRE_FALSE(selector.ok());
  return selector.error();
}

const std::string kNameRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

}  // namespace

TEST_CASE("label selectors match label sets per operator", "[console][model][selector]") {
  struct Row {
    std::string selector;
    json labels;
    bool matches;
  };
  const json web = {{"app", "web"}, {"tier", "fe"}, {"replicas", "3"}};
  const auto row = GENERATE_REF(values<Row>({
      {"", json(), true},
      {"", web, true},
      {"app=web", web, true},
      {"app=db", web, false},
      {"app=web", json(), false},
      {"app==web", web, true},
      {"app!=web", web, false},
      {"app!=db", web, true},
      {"app!=web", json::object(), true},  // a missing key is "not equal"
      {"app=", {{"app", ""}}, true},
      {"app=", json::object(), false},
      {"app in (db,web)", web, true},
      {"app in (db,cache)", web, false},
      {"app in (web)", json(), false},
      {"app notin (db,web)", web, false},
      {"app notin (db)", web, true},
      {"app notin (db)", json(), true},  // a missing key is "not in"
      {"app in ()", {{"app", ""}}, true},
      {"app in ()", web, false},
      {"app in (,web)", web, true},
      {"app", web, true},
      {"app", json::object(), false},
      {"!app", web, false},
      {"!app", json::object(), true},
      {"!canary", web, true},
      {"replicas>2", web, true},
      {"replicas>3", web, false},
      {"replicas<4", web, true},
      {"replicas<3", web, false},
      {"app>1", web, false},      // the label is not an integer
      {"missing<9", web, false},  // > and < need the label
      {"app=web,tier=fe", web, true},
      {"app=web,tier=be", web, false},
      {"app=web,!canary,tier in (fe,be)", web, true},
      {"  app = web ,  tier  in(fe)  ", web, true},
      {"\tapp\n!=\rdb", web, true},
      {"in=notin", {{"in", "notin"}}, true},  // keywords are plain words as keys and values
      {"notin in (in)", {{"notin", "in"}}, true},
      {"example.com/owner=me", {{"example.com/owner", "me"}}, true},
      {"app=WEB", web, false},           // values are case-sensitive
      {"app=web", {{"app", 1}}, false},  // a non-string value counts as absent
  }));
  CAPTURE(row.selector, row.labels.dump());
  CHECK(parsed(row.selector).matches(row.labels) == row.matches);
}

TEST_CASE("label selector syntax errors name the token and what was expected",
          "[console][model][selector]") {
  struct Row {
    std::string selector;
    std::string error;
  };
  const std::string req = "unable to parse requirement: ";
  const auto row = GENERATE_REF(values<Row>({
      {",", "found ',', expected: !, identifier, or 'end of string'"},
      {"=a", "found '=', expected: !, identifier, or 'end of string'"},
      {"(a)", "found '(', expected: !, identifier, or 'end of string'"},
      {"a,", "found '', expected: identifier after ','"},
      {"a,,b", "found ',', expected: identifier after ','"},
      {"a=b,=c", "found '=', expected: identifier after ','"},
      {"a=b c", "found 'c', expected: ',' or 'end of string'"},
      {"a=b=c", "found '=', expected: ',' or 'end of string'"},
      {"!a=b", "found '=', expected: ',' or 'end of string'"},
      {"a in (b) c", "found 'c', expected: ',' or 'end of string'"},
      {"a b", req + "found 'b', expected: =, ==, !=, in, notin, >, <"},
      {"a (b)", req + "found '(', expected: =, ==, !=, in, notin, >, <"},
      {"a ! b", req + "found '!', expected: =, ==, !=, in, notin, >, <"},
      {"!!a", req + "found '!', expected: identifier"},
      {"!", req + "found '', expected: identifier"},
      {"a=(b)", req + "found '(', expected: identifier"},
      {"a in b", req + "found 'b', expected: '('"},
      {"a in", req + "found '', expected: '('"},
      {"a in (", req + "found '', expected: ',', ')' or identifier"},
      {"a in (b", req + "found '', expected: ',' or ')'"},
      {"a in (b c)", req + "found 'c', expected: ',' or ')'"},
      {"a in (b,=)", req + "found '=', expected: ',', ')' or identifier"},
      {"a>b", req + "for '>' and '<' the value must be an integer, found 'b'"},
      {"a<", req + "for '>' and '<' the value must be an integer, found ''"},
      {"a>-1", req + "invalid label value \"-1\": must be empty or " + kNameRule},
      {"-a=b", req + "invalid label key \"-a\": name part " + kNameRule},
      {"a_=b", req + "invalid label key \"a_\": name part " + kNameRule},
      {"a=b.", req + "invalid label value \"b.\": must be empty or " + kNameRule},
      {"a in (ok,b@d)", req + "invalid label value \"b@d\": must be empty or " + kNameRule},
      {"/a=b", req + "invalid label key \"/a\": prefix part must be non-empty"},
      {"a/=b", req + "invalid label key \"a/\": name part must be non-empty"},
      {"Example.com/a", req + "invalid label key \"Example.com/a\": prefix part must be a "
                              "lowercase RFC 1123 subdomain"},
      {"a..b/c", req + "invalid label key \"a..b/c\": prefix part must be a lowercase RFC "
                       "1123 subdomain"},
      {"a/b/c", req + "invalid label key \"a/b/c\": a qualified name is a name part with an "
                      "optional prefix and one '/'"},
      {std::string(64, 'k'), req + "invalid label key \"" + std::string(64, 'k') +
                                 "\": name part must be no more than 63 characters"},
      {"k=" + std::string(64, 'v'), req + "invalid label value \"" + std::string(64, 'v') +
                                        "\": must be no more than 63 characters"},
      {std::string(254, 'p') + "/k", req + "invalid label key \"" + std::string(254, 'p') +
                                         "/k\": prefix part must be no more than 253 "
                                         "characters"},
  }));
  CAPTURE(row.selector);
  CHECK(parse_error(row.selector) == row.error);
}

TEST_CASE("label selector limits accept their largest values", "[console][model][selector]") {
  CHECK(parsed(std::string(63, 'k') + "=" + std::string(63, 'v')).requirements().size() == 1);
  CHECK(parsed("a.b-c.d/k").requirements().front().key == "a.b-c.d/k");
}

TEST_CASE("label selectors keep requirements in order with sorted unique values",
          "[console][model][selector]") {
  struct Row {
    std::string selector;
    LabelOperator op;
    std::vector<std::string> values;
  };
  const auto row = GENERATE_REF(values<Row>({
      {"k=v", LabelOperator::Equals, {"v"}},
      {"k==v", LabelOperator::Equals, {"v"}},
      {"k=", LabelOperator::Equals, {""}},
      {"k!=v", LabelOperator::NotEquals, {"v"}},
      {"k in (c,a,c,b)", LabelOperator::In, {"a", "b", "c"}},
      {"k in ()", LabelOperator::In, {""}},
      {"k in (a,)", LabelOperator::In, {"", "a"}},
      {"k in (a,,b)", LabelOperator::In, {"", "a", "b"}},
      {"k notin (b,a)", LabelOperator::NotIn, {"a", "b"}},
      {"k", LabelOperator::Exists, {}},
      {"!k", LabelOperator::DoesNotExist, {}},
      {"k>5", LabelOperator::GreaterThan, {"5"}},
      {"k<5", LabelOperator::LessThan, {"5"}},
  }));
  CAPTURE(row.selector);
  const LabelSelector selector = parsed(row.selector);
  REQUIRE(selector.requirements().size() == 1);
  CHECK(selector.requirements()[0].key == "k");
  CHECK(selector.requirements()[0].op == row.op);
  CHECK(selector.requirements()[0].values == row.values);

  const LabelSelector three = parsed("z=1,a,!m");
  REQUIRE(three.requirements().size() == 3);
  CHECK(three.requirements()[0].key == "z");
  CHECK(three.requirements()[1].key == "a");
  CHECK(three.requirements()[2].key == "m");
}

TEST_CASE("a selector has an operator unless it is only bare keys", "[console][model][selector]") {
  struct Row {
    std::string selector;
    bool has_operator;
  };
  const auto row = GENERATE_REF(values<Row>({
      {"", false},
      {"nginx", false},
      {"a,b", false},
      {"app=web", true},
      {"app!=web", true},
      {"app in (a)", true},
      {"app notin (a)", true},
      {"!canary", true},
      {"nginx,!canary", true},
      {"replicas>1", true},
  }));
  CAPTURE(row.selector);
  const LabelSelector selector = parsed(row.selector);
  CHECK(selector.has_operator() == row.has_operator);
  CHECK(selector.empty() == row.selector.empty());
}
