#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "registry/crd_schema.h"
#include "registry/objects.h"

using apiserver::registry::CrdSchema;
using apiserver::registry::render_field_errors;
using nlohmann::json;

namespace {

CrdSchema must_parse(const json& schema) {
  auto parsed = CrdSchema::parse(schema);
  INFO((parsed ? "" : parsed.error().message));
  REQUIRE(parsed.ok());
  return *parsed;
}

std::string rendered(const CrdSchema& schema, const json& object) {
  auto errors = schema.validate(object);
  return errors.empty() ? "" : render_field_errors(errors);
}

// spec.shape is either a circle (radius) or a square (side), never both; spec.mode is not "off";
// spec.size is all of: at least 1, at most 10.
json shapes_schema() {
  return json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "properties": {
        "shape": {"type": "object",
                  "properties": {"radius": {"type": "integer"}, "side": {"type": "integer"}},
                  "oneOf": [{"required": ["radius"]}, {"required": ["side"]}]},
        "mode": {"type": "string", "not": {"enum": ["off"]}},
        "size": {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 10}]},
        "port": {"x-kubernetes-int-or-string": true,
                 "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "name": {"type": "string", "anyOf": [{"pattern": "^a"}, {"maxLength": 2}]}}}}})");
}

}  // namespace

TEST_CASE("allOf, anyOf, oneOf and not validate with kube-apiserver's messages", "[crd_schema]") {
  const CrdSchema schema = must_parse(shapes_schema());
  struct Case {
    const char* spec;
    std::string want;
  };
  auto c = GENERATE(values<Case>({
      {R"({"shape": {"radius": 1}, "mode": "on", "size": 5, "port": 80, "name": "ab"})", ""},
      {R"({"shape": {"side": 2}, "port": "http", "name": "abcdef"})", ""},
      {R"({"shape": {}})",
       "[<nil>: Invalid value: \"\": \"spec.shape\" must validate one and only one schema "
       "(oneOf). Found none valid, spec.shape.radius: Required value]"},
      {R"({"shape": {"radius": 1, "side": 1}})",
       "<nil>: Invalid value: \"\": \"spec.shape\" must validate one and only one schema (oneOf). "
       "Found 2 valid alternatives"},
      {R"({"mode": "off"})",
       "<nil>: Invalid value: \"\": \"spec.mode\" must not validate the schema (not)"},
      {R"({"size": 0})",
       "[spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1, "
       "<nil>: Invalid value: \"\": \"spec.size\" must validate all the schemas (allOf)]"},
      {R"({"name": "bcd"})",
       "[<nil>: Invalid value: \"\": \"spec.name\" must validate at least one schema (anyOf), "
       "spec.name: Invalid value: \"bcd\": spec.name in body should match '^a']"},
      {R"({"port": true})",
       "[spec.port: Invalid value: \"boolean\": spec.port in body must be of type "
       "integer,string: \"boolean\", <nil>: Invalid value: \"\": \"spec.port\" must validate at "
       "least one schema (anyOf), spec.port: Invalid value: \"boolean\": spec.port in body must "
       "be of type integer: \"boolean\"]"},
  }));
  CAPTURE(c.spec);
  CHECK(rendered(schema, {{"spec", json::parse(c.spec)}}) == c.want);
}

TEST_CASE("allOf with no schema passing says none validated; a null skips the junctors",
          "[crd_schema]") {
  const CrdSchema schema = must_parse(json::parse(R"({"type": "object", "properties": {
      "n": {"type": "integer", "nullable": true,
            "allOf": [{"minimum": 5}, {"multipleOf": 2}]}}})"));
  CHECK(rendered(schema, {{"n", 3}}) ==
        "[n: Invalid value: 3: n in body should be greater than or equal to 5, n: Invalid value: "
        "3: n in body should be a multiple of 2, <nil>: Invalid value: \"\": \"n\" must validate "
        "all the schemas (allOf). None validated]");
  CHECK(rendered(schema, {{"n", nullptr}}).empty());
}

TEST_CASE("junctors reach into fields: a nested property's check applies to its value",
          "[crd_schema]") {
  const CrdSchema schema = must_parse(json::parse(R"({"type": "object", "properties": {
      "spec": {"type": "object",
               "properties": {"kind": {"type": "string"}, "url": {"type": "string"}},
               "anyOf": [{"properties": {"kind": {"enum": ["Git"]}}, "required": ["url"]},
                         {"properties": {"kind": {"enum": ["Local"]}}}]}}})"));
  CHECK(rendered(schema, {{"spec", {{"kind", "Git"}, {"url", "x"}}}}).empty());
  CHECK(rendered(schema, {{"spec", {{"kind", "Local"}}}}).empty());
  // Both fail; each ran as many checks, so the first one's errors are reported.
  CHECK(rendered(schema, {{"spec", {{"kind", "Svn"}}}}) ==
        "[<nil>: Invalid value: \"\": \"spec\" must validate at least one schema (anyOf), "
        "spec.kind: Unsupported value: \"Svn\": supported values: \"Git\", spec.url: Required "
        "value]");
}

TEST_CASE("schemas under junctors follow upstream's structural rules", "[crd_schema]") {
  struct Case {
    const char* schema;
    std::string field;
    std::string message;
  };
  auto c = GENERATE(values<Case>({
      {R"({"type": "object", "properties": {"a": {"type": "string",
           "oneOf": [{"type": "string"}]}}})",
       "openAPIV3Schema.properties[a].oneOf[0].type", "Forbidden: must be empty to be structural"},
      {R"({"type": "object", "properties": {"a": {"type": "object",
           "x-kubernetes-preserve-unknown-fields": true,
           "allOf": [{"additionalProperties": {"type": "string"}}]}}})",
       "openAPIV3Schema.properties[a].allOf[0].additionalProperties",
       "Forbidden: must be undefined to be structural"},
      {R"({"type": "object", "properties": {"a": {"type": "string",
           "not": {"default": "x"}}}})",
       "openAPIV3Schema.properties[a].not.default",
       "Forbidden: must be undefined to be structural"},
      {R"({"type": "object", "properties": {"a": {"type": "string",
           "anyOf": [{"description": "d"}]}}})",
       "openAPIV3Schema.properties[a].anyOf[0].description",
       "Forbidden: must be empty to be structural"},
      {R"({"type": "object", "properties": {"a": {"type": "string",
           "anyOf": [{"nullable": true}]}}})",
       "openAPIV3Schema.properties[a].anyOf[0].nullable",
       "Forbidden: must be false to be structural"},
      {R"({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"},
           "allOf": [{"x-kubernetes-list-type": "set"}]}}})",
       "openAPIV3Schema.properties[a].allOf[0].x-kubernetes-list-type",
       "Forbidden: must be undefined to be structural"},
      {R"({"type": "object", "anyOf": [{"properties": {"metadata": {"required": ["name"]}}}]})",
       "openAPIV3Schema.anyOf[0].properties[metadata]",
       "Forbidden: must not be specified in a nested context"},
      {R"({"type": "object", "properties": {"a": {"type": "string"}},
           "oneOf": [{"properties": {"b": {"maxLength": 1}}}]})",
       "openAPIV3Schema.properties[b]",
       "Required value: because it is defined in openAPIV3Schema.oneOf[0].properties[b]"},
      {R"({"type": "object", "properties": {"a": {"type": "string"}},
           "not": {"properties": {"a": {"items": {"maxLength": 1}}}}})",
       "openAPIV3Schema.properties[a].items",
       "Required value: because it is defined in openAPIV3Schema.not.properties[a].items"},
      // The int-or-string exception holds one level down only.
      {R"({"type": "object", "properties": {"a": {"x-kubernetes-int-or-string": true,
           "oneOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}]}}})",
       "openAPIV3Schema.properties[a].oneOf[0].anyOf[0].type",
       "Forbidden: must be empty to be structural"},
  }));
  CAPTURE(c.schema);
  auto parsed = CrdSchema::parse(json::parse(c.schema));
  REQUIRE_FALSE(parsed.ok());
  REQUIRE(parsed.error().field_error.has_value());
  CHECK(parsed.error().field_error->field == c.field);
  CHECK(parsed.error().field_error->message == c.message);
}

TEST_CASE("the int-or-string patterns keep their types under anyOf and the first allOf",
          "[crd_schema]") {
  const CrdSchema schema = must_parse(json::parse(R"({"type": "object", "properties": {
      "a": {"x-kubernetes-int-or-string": true,
            "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]},
                      {"pattern": "^[0-9a-z]+$"}]}}})"));
  CHECK(rendered(schema, {{"a", "abc"}}).empty());
  CHECK(rendered(schema, {{"a", 8}}).empty());
  CHECK(rendered(schema, {{"a", "A"}}) ==
        "[a: Invalid value: \"A\": a in body should match '^[0-9a-z]+$', <nil>: Invalid value: "
        "\"\": \"a\" must validate all the schemas (allOf)]");
}

TEST_CASE("junctors nested a hundred thousand levels deep are refused without a crash",
          "[crd_schema]") {
  json deep = json::object();
  json* at = &deep;
  for (int i = 0; i < 100000; ++i) {
    (*at)["not"] = json::object();
    at = &(*at)["not"];
  }
  deep["type"] = "object";
  CHECK_FALSE(CrdSchema::parse(deep).ok());
}
