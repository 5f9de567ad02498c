#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "registry/crd_schema.h"
#include "registry/objects.h"

using apiserver::registry::CrdSchema;
using apiserver::registry::render_field_errors;
using nlohmann::json;

namespace {

CrdSchema schema() {
  auto parsed = CrdSchema::parse(json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "maxLength": 5},
        "size": {"type": "integer", "maximum": 10},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                 "maxProperties": 1},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"},
                    "port": {"type": "integer", "maximum": 100}}}},
        "set": {"type": "array", "x-kubernetes-list-type": "set",
                "items": {"type": "string"}},
        "mode": {"type": "string", "not": {"enum": ["off"]}}}}}})"));
  REQUIRE(parsed.ok());
  return *parsed;
}

std::string update(const json& now_spec, const json& old_spec) {
  auto errors = schema().validate_update({{"spec", now_spec}}, {{"spec", old_spec}});
  return errors.empty() ? "" : render_field_errors(errors);
}

}  // namespace

TEST_CASE("an update keeps unchanged invalid values and refuses new ones (ratcheting)",
          "[crd_schema]") {
  const json old = {{"name", "toolong"}, {"size", 11}};
  // Unchanged invalid name, size changed to a valid value: accepted.
  CHECK(update({{"name", "toolong"}, {"size", 3}}, old).empty());
  // The same update validated as a create is refused.
  CHECK(render_field_errors(schema().validate({{"spec", {{"name", "toolong"}, {"size", 3}}}})) ==
        "spec.name: Too long: may not be more than 5 bytes");
  // A changed invalid value is refused; the unchanged one still is not reported.
  CHECK(update({{"name", "toolong"}, {"size", 12}}, old) ==
        "spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10");
  CHECK(update({{"name", "toolonger"}, {"size", 11}}, old) ==
        "spec.name: Too long: may not be more than 5 bytes");
  // int64 11 and float64 11.0 are not equal: the value changed.
  CHECK(update({{"name", "ok"}, {"size", 11.0}}, {{"name", "ok"}, {"size", 11}}) ==
        "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10");
}

TEST_CASE("ratcheting correlates map values and map-list items, not other list items",
          "[crd_schema]") {
  SECTION("additionalProperties values correlate by key") {
    const json old = {{"name", "a"}, {"labels", {{"x", "long"}}}};
    CHECK(update({{"name", "a"}, {"labels", {{"x", "long"}, {"y", "ok"}}}}, old).empty());
    CHECK(update({{"name", "a"}, {"labels", {{"x", "long"}, {"y", "long"}}}}, old) ==
          "spec.labels.y: Too long: may not be more than 3 bytes");
  }
  SECTION("map-list items correlate by their keys, wherever they moved") {
    const json old = {{"name", "a"},
                      {"ports", {{{"name", "web"}, {"port", 200}}, {{"name", "db"}, {"port", 1}}}}};
    CHECK(update({{"name", "a"},
                  {"ports", {{{"name", "db"}, {"port", 2}}, {{"name", "web"}, {"port", 200}}}}},
                 old)
              .empty());
    CHECK(update({{"name", "a"}, {"ports", {{{"name", "new"}, {"port", 200}}}}}, old) ==
          "spec.ports[0].port: Invalid value: 200: spec.ports[0].port in body should be less "
          "than or equal to 100");
  }
  SECTION("atomic list items do not correlate: a changed list reports its old bad items") {
    const json old = {{"name", "a"}, {"tags", {"long"}}};
    CHECK(update({{"name", "a"}, {"tags", {"long"}}}, old).empty());
    CHECK(update({{"name", "a"}, {"tags", {"long", "ok"}}}, old) ==
          "spec.tags[0]: Too long: may not be more than 3 bytes");
  }
  SECTION("a value's own checks ratchet only when the whole value is unchanged") {
    // spec changed (size), so spec's missing name is reported.
    CHECK(update({{"size", 1}}, {{"size", 2}}) == "spec.name: Required value");
    CHECK(update({{"size", 2}}, {{"size", 2}}).empty());
    // Fields the schema does not declare never correlate: free's own check is reported.
    CHECK(update({{"name", "a"}, {"free", {{"p", 1}, {"q", 2}}}},
                 {{"name", "a"}, {"free", {{"p", 1}, {"q", 2}}}}) ==
          "spec.free: Too many: 2: must have at most 1 item");
  }
  SECTION("junctor errors ratchet with their value") {
    CHECK(update({{"name", "a"}, {"mode", "off"}, {"size", 1}},
                 {{"name", "a"}, {"mode", "off"}, {"size", 2}})
              .empty());
    CHECK(update({{"name", "a"}, {"mode", "off"}}, {{"name", "a"}, {"mode", "on"}}) ==
          "<nil>: Invalid value: \"\": \"spec.mode\" must not validate the schema (not)");
  }
  SECTION("list-type errors are reported only when the old object had none") {
    const json dup = {{"name", "a"}, {"set", {"x", "x"}}};
    CHECK(update({{"name", "a"}, {"set", {"y", "y"}}}, dup).empty());
    CHECK(update({{"name", "a"}, {"set", {"y", "y"}}}, {{"name", "a"}}) ==
          "spec.set[1]: Duplicate value: \"y\"");
  }
}
