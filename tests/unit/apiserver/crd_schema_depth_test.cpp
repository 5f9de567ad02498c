// Every walk of a structural schema over a value nested as deep as a request may be (10,000
// levels, kube-apiserver's decoding limit) finishes without exhausting the stack, also under
// the sanitizers; deeper values stop the walks, and schemas deeper than 1,000 levels are refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "registry/crd_schema.h"
#include "registry/objects.h"

using apiserver::registry::CrdSchema;
using apiserver::registry::render_field_errors;
using nlohmann::json;

namespace {

constexpr int kDepth = 10000;

// [[[...[leaf]...]]] with `levels` arrays.
json nested_arrays(int levels, json leaf = 1) {
  json v = std::move(leaf);
  for (int i = 0; i < levels; ++i) {
    json outer = json::array();
    outer.push_back(std::move(v));
    v = std::move(outer);
  }
  return v;
}

// {"type": "array", "items": {...}} `levels` times around a leaf schema.
json nested_array_schema(int levels, json leaf) {
  json v = std::move(leaf);
  for (int i = 0; i < levels; ++i) {
    json outer = {{"type", "array"}};
    outer["items"] = std::move(v);
    v = std::move(outer);
  }
  return v;
}

CrdSchema must_parse(const json& schema) {
  auto parsed = CrdSchema::parse(schema);
  INFO((parsed ? "" : parsed.error().message));
  REQUIRE(parsed.ok());
  return *parsed;
}

}  // namespace

TEST_CASE("unknown fields nested ten thousand deep are pruned and validated",
          "[crd_schema][depth]") {
  const CrdSchema schema =
      must_parse({{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}});
  json object = {{"kind", "K"}};
  object["a"] = nested_arrays(kDepth - 2);
  CHECK(schema.prune(object).empty());
  schema.apply_defaults(object);
  CHECK(schema.validate(object).empty());
}

TEST_CASE("a deep array where a string belongs is pruned below and refused",
          "[crd_schema][depth]") {
  const CrdSchema schema =
      must_parse({{"type", "object"}, {"properties", {{"s", {{"type", "string"}}}}}});
  json object = json::object();
  object["s"] = nested_arrays(kDepth - 2, json{{"x", 1}});
  CHECK(schema.prune(object).size() == 1);
  CHECK(render_field_errors(schema.validate(object)) ==
        "s: Invalid value: \"array\": s in body must be of type string: \"array\"");
}

TEST_CASE("a schema nested 990 levels deep walks a value as deep", "[crd_schema][depth]") {
  const int levels = 990;
  json schema = {{"type", "object"}};
  schema["properties"]["v"] =
      nested_array_schema(levels, {{"type", "integer"}, {"default", 5}, {"maximum", 3}});
  const CrdSchema parsed = must_parse(schema);
  json object = json::object();
  object["v"] = nested_arrays(levels - 1, json::array({nullptr}));
  CHECK(parsed.prune(object).empty());
  parsed.apply_defaults(object);
  const auto errors = parsed.validate(object);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message ==
        "Invalid value: 5: " + errors[0].field + " in body should be less than or equal to 3");
}

TEST_CASE("duplicates nested ten thousand deep are found and printed", "[crd_schema][depth]") {
  const CrdSchema schema = must_parse(json::parse(R"({"type": "object", "properties": {
      "set": {"type": "array", "x-kubernetes-list-type": "set",
              "items": {"x-kubernetes-preserve-unknown-fields": true}},
      "unique": {"type": "array", "uniqueItems": true,
                 "items": {"x-kubernetes-preserve-unknown-fields": true}}}})"));
  json object = json::object();
  object["set"] = json::array();
  object["unique"] = json::array();
  for (int i = 0; i < 2; ++i) {
    object["set"].push_back(nested_arrays(kDepth - 3));
    object["unique"].push_back(nested_arrays(kDepth - 3));
  }
  const std::string rendered = render_field_errors(schema.validate(object));
  CHECK_THAT(rendered, Catch::Contains("unique: Invalid value: \"\": unique in body shouldn't "
                                       "contain duplicates"));
  CHECK_THAT(rendered, Catch::Contains("set[1]: Duplicate value: []interface {}{[]interface {}{"));
}

TEST_CASE("a schema nested deeper than the walks allow is refused", "[crd_schema][depth]") {
  json schema = {{"type", "object"}};
  schema["properties"]["v"] = nested_array_schema(kDepth, {{"type", "integer"}});
  auto parsed = CrdSchema::parse(schema);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error().message == "openAPIV3Schema: nests deeper than 1000 levels");
  // A deep default or example counts as much as deep properties.
  json example = {{"type", "object"}};
  example["example"] = nested_arrays(kDepth);
  auto parsed_example = CrdSchema::parse(example);
  REQUIRE_FALSE(parsed_example.ok());
  CHECK(parsed_example.error().message == "openAPIV3Schema: nests deeper than 1000 levels");
}

TEST_CASE("a value nested twice as deep as a body may be stops the walks without harm",
          "[crd_schema][depth]") {
  const CrdSchema schema =
      must_parse({{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}});
  json object = json::object();
  object["a"] = nested_arrays(2 * kDepth, json::array({nullptr}));
  CHECK(schema.prune(object).empty());
  schema.apply_defaults(object);
  CHECK(schema.validate(object).empty());
}
