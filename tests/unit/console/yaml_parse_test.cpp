#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "console/model/yaml_text.h"

using console::model::parse_yaml;
using console::model::to_yaml;
using nlohmann::json;

TEST_CASE("editor YAML reads as the API server types it", "[console][model][yaml]") {
  const auto value = parse_yaml(
      "apiVersion: v1\n"
      "kind: ConfigMap\n"
      "metadata:\n"
      "  name: cm1\n"
      "  labels: {app: web}\n"
      "data:\n"
      "  count: \"3\"\n"
      "  flag: 'true'\n"
      "spec:\n"
      "  replicas: 3\n"
      "  ratio: 0.5\n"
      "  paused: false\n"
      "  nothing: ~\n"
      "  empty:\n"
      "  list:\n"
      "  - a\n"
      "  - 2\n");
  INFO((value ? std::string() : value.error()));
  REQUIRE(value);
  CHECK((*value)["metadata"]["labels"]["app"] == "web");
  CHECK((*value)["data"]["count"] == "3");
  CHECK((*value)["data"]["flag"] == "true");
  CHECK((*value)["spec"]["replicas"] == 3);
  CHECK((*value)["spec"]["ratio"] == 0.5);
  CHECK((*value)["spec"]["paused"] == false);
  CHECK((*value)["spec"]["nothing"].is_null());
  CHECK((*value)["spec"]["empty"].is_null());
  CHECK((*value)["spec"]["list"] == json{"a", 2});
}

TEST_CASE("what to_yaml writes reads back the same", "[console][model][yaml]") {
  const json object = {{"apiVersion", "v1"},
                       {"data", {{"n", "42"}, {"yes", "yes"}, {"text", "two\nlines\n"}}},
                       {"spec", {{"replicas", 2}, {"items", {1, "x", true}}}}};
  const auto back = parse_yaml(to_yaml(object, console::model::ManagedFields::Show));
  INFO((back ? std::string() : back.error()));
  REQUIRE(back);
  CHECK(*back == object);
}

TEST_CASE("bad YAML is an error with its position, never an exception", "[console][model][yaml]") {
  const auto unclosed = parse_yaml("data: [unclosed\n");
  REQUIRE_FALSE(unclosed);
  CHECK(unclosed.error().rfind("line ", 0) == 0);
  const auto two = parse_yaml("a: 1\n---\nb: 2\n");
  REQUIRE_FALSE(two);
  CHECK(two.error() == "the editor holds 2 YAML documents; apply takes one");
  const auto empty = parse_yaml("");
  REQUIRE(empty);
  CHECK(empty->is_null());
}
