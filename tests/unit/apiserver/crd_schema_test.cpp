#include "registry/crd_schema.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "registry/objects.h"

using apiserver::registry::CrdSchema;
using apiserver::registry::FieldError;
using apiserver::registry::go_format_float;
using apiserver::registry::render_field_errors;
using nlohmann::json;

namespace {

CrdSchema must_parse(const std::string& text) {
  auto schema = CrdSchema::parse(json::parse(text));
  INFO((schema ? "" : schema.error().message));
  REQUIRE(schema.ok());
  return *schema;
}

// One schema with every validation the table below exercises.
const char* kValidationSchema = R"({
  "type": "object",
  "required": ["spec"],
  "properties": {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "required": ["name"],
      "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number", "minimum": 0.5, "exclusiveMinimum": true,
                  "maximum": 1000000, "exclusiveMaximum": true},
        "step": {"type": "number", "multipleOf": 0.5},
        "size": {"type": "string", "enum": ["small", "large"]},
        "level": {"type": "integer", "enum": [1, 2]},
        "enabled": {"type": "boolean"},
        "port": {"x-kubernetes-int-or-string": true},
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "data": {"type": "string", "format": "byte"},
        "id": {"type": "string", "format": "uuid"},
        "count": {"type": "integer", "format": "int32"},
        "tags": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string"}},
        "uniq": {"type": "array", "uniqueItems": true, "items": {"type": "number"}},
        "labels": {"type": "object", "minProperties": 1, "maxProperties": 2,
                   "additionalProperties": {"type": "string", "maxLength": 3}},
        "note": {"type": "string", "nullable": true},
        "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["port"],
                  "items": {"type": "object", "properties": {
                    "port": {"type": "integer"}, "name": {"type": "string"}}}},
        "endpoints": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["host", "port"],
                      "items": {"type": "object", "properties": {
                        "host": {"type": "string"}, "port": {"type": "integer"}}}}
      }
    }
  }
})";

std::string validate_spec(const CrdSchema& schema, const std::string& spec_text) {
  json object = {
      {"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}};
  object["spec"] = json::parse(spec_text);
  const std::vector<FieldError> errors = schema.validate(object);
  return errors.empty() ? "" : render_field_errors(errors);
}

}  // namespace

TEST_CASE("a structural schema validates custom resources with upstream's texts", "[crd_schema]") {
  const CrdSchema schema = must_parse(kValidationSchema);

  struct Row {
    const char* spec;
    const char* expected;  // render_field_errors of the errors; "" when valid
  };
  const Row row = GENERATE(values<Row>({
      {R"({"name": "ab", "replicas": 3, "size": "small", "port": "http", "note": null})", ""},
      {R"({"name": "ab", "replicas": "string"})",
       R"(spec.replicas: Invalid value: "string": spec.replicas in body must be of type )"
       R"(integer: "string")"},
      {R"({"name": "ab", "size": "huge"})",
       R"(spec.size: Unsupported value: "huge": supported values: "small", "large")"},
      {R"({})", "spec.name: Required value"},
      {R"({"name": "abcdef"})", "spec.name: Too long: may not be more than 5 bytes"},
      {R"({"name": "a"})",
       R"(spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long)"},
      {R"({"name": "AB"})",
       R"(spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$')"},
      // Upstream's string checks stop at the first failure: too long and not matching -> one.
      {R"({"name": "ABCDEFG"})", "spec.name: Too long: may not be more than 5 bytes"},
      {R"({"name": "ab", "replicas": 0})",
       "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal "
       "to 1"},
      {R"({"name": "ab", "replicas": 11})",
       "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to "
       "10"},
      {R"({"name": "ab", "replicas": 1.5})",
       R"(spec.replicas: Invalid value: "number": spec.replicas in body must be of type )"
       R"(integer: "number")"},
      // An integral float is an integer for the type check.
      {R"({"name": "ab", "replicas": 2.0})", ""},
      {R"({"name": "ab", "ratio": 0.5})",
       "spec.ratio: Invalid value: 0.5: spec.ratio in body should be greater than 0.5"},
      {R"({"name": "ab", "ratio": 1e6})",
       "spec.ratio: Invalid value: 1e+06: spec.ratio in body should be less than 1e+06"},
      // Against an int64 value the bound is printed (and compared) as an int64.
      {R"({"name": "ab", "ratio": 1000000})",
       "spec.ratio: Invalid value: 1000000: spec.ratio in body should be less than 1000000"},
      {R"({"name": "ab", "step": 0.75})",
       "spec.step: Invalid value: 0.75: spec.step in body should be a multiple of 0.5"},
      {R"({"name": "ab", "step": 1.5})", ""},
      {R"({"name": "ab", "level": 3})",
       R"(spec.level: Unsupported value: 3: supported values: "1", "2")"},
      // Go converts the value to the enum value's type: 1.5 becomes int64 1 and matches.
      {R"({"name": "ab", "level": 1.5})",
       R"(spec.level: Invalid value: "number": spec.level in body must be of type integer: )"
       R"("number")"},
      {R"({"name": "ab", "enabled": "yes"})",
       R"(spec.enabled: Invalid value: "string": spec.enabled in body must be of type boolean: )"
       R"("string")"},
      {R"({"name": "ab", "port": 8080})", ""},
      {R"({"name": "ab", "port": true})",
       R"(spec.port: Invalid value: "boolean": spec.port in body must be of type )"
       R"(integer,string: "boolean")"},
      {R"({"name": "ab", "when": "2024-02-29T10:00:00.5+01:00"})", ""},
      {R"({"name": "ab", "when": "2024-13-01T00:00:00Z"})",
       R"(spec.when: Invalid value: "2024-13-01T00:00:00Z": spec.when in body must be of type )"
       R"(date-time: "2024-13-01T00:00:00Z")"},
      {R"({"name": "ab", "when": "2024-01-01T24:00:00Z"})",
       R"(spec.when: Invalid value: "2024-01-01T24:00:00Z": spec.when in body must be of type )"
       R"(date-time: "2024-01-01T24:00:00Z")"},
      // A formatted string schema checks the format against non-string values...
      {R"({"name": "ab", "when": 5})",
       R"(spec.when: Invalid value: "int64": spec.when in body must be of type date-time: )"
       R"("int64")"},
      // ...but lets a list through unchecked, as upstream.
      {R"({"name": "ab", "when": ["x"]})", ""},
      {R"({"name": "ab", "day": "2023-02-29"})",
       R"(spec.day: Invalid value: "2023-02-29": spec.day in body must be of type date: )"
       R"("2023-02-29")"},
      {R"({"name": "ab", "day": "2024-02-29", "data": "aGVsbG8="})", ""},
      {R"({"name": "ab", "data": "abc"})",
       R"(spec.data: Invalid value: "abc": spec.data in body must be of type byte: "abc")"},
      {R"({"name": "ab", "id": "0F6A1B2C-3D4E-5F60-7182-93A4B5C6D7E8"})", ""},
      {R"({"name": "ab", "id": "not-a-uuid"})",
       R"(spec.id: Invalid value: "not-a-uuid": spec.id in body must be of type uuid: )"
       R"("not-a-uuid")"},
      // int32/int64 are among the formats upstream strips: no range check.
      {R"({"name": "ab", "count": 3000000000})", ""},
      {R"({"name": "ab", "tags": []})",
       "spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"},
      {R"({"name": "ab", "tags": ["a", "b", "c", "d"]})",
       "spec.tags: Too many: 4: must have at most 3 items"},
      {R"({"name": "ab", "tags": [1]})",
       R"(spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: )"
       R"("integer")"},
      {R"({"name": "ab", "uniq": [1, 2, 1]})",
       R"(spec.uniq: Invalid value: "": spec.uniq in body shouldn't contain duplicates)"},
      // int64 1 and float64 1 differ for reflect.DeepEqual.
      {R"({"name": "ab", "uniq": [1, 1.0]})", ""},
      {R"({"name": "ab", "labels": {}})",
       "spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties"},
      {R"({"name": "ab", "labels": {"a": "x", "b": "y", "c": "z"}})",
       "spec.labels: Too many: 3: must have at most 2 items"},
      {R"({"name": "ab", "labels": {"a": "long"}})",
       "spec.labels.a: Too long: may not be more than 3 bytes"},
      {R"({"name": null})",
       R"(spec.name: Invalid value: "null": spec.name in body must be of type string: "null")"},
      {R"({"name": "ab", "size": null})",
       R"([spec.size: Invalid value: "null": spec.size in body must be of type string: "null", )"
       R"(spec.size: Unsupported value: null: supported values: "small", "large"])"},
      {R"({"name": "ab", "set": ["a", "b", "a", "a"]})", R"(spec.set[2]: Duplicate value: "a")"},
      {R"({"name": "ab", "ports": [{"port": 80}, {"port": 80, "name": "x"}]})",
       R"(spec.ports[1]: Duplicate value: map[string]interface {}{"port":80})"},
      {R"({"name": "ab", "ports": [{"name": "a"}, {"name": "b"}]})",
       "spec.ports[1]: Duplicate value: map[string]interface {}{}"},
      {R"({"name": "ab", "ports": ["x"]})",
       R"([spec.ports[0]: Invalid value: "string": spec.ports[0] in body must be of type )"
       R"(object: "string", )"
       R"(spec.ports[0]: Invalid value: "x": must be an object for an array of list-type map])"},
      {R"({"name": "ab", "endpoints": [{"host": "a", "port": 1}, {"host": "a", "port": 1}]})",
       R"(spec.endpoints[1]: Duplicate value: map[string]interface {}{"host":"a", "port":1})"},
      {R"({"name": "ab", "endpoints": [{"host": "a", "port": 1}, {"host": "a", "port": 2}]})", ""},
      // Properties in name order, then required.
      {R"({"replicas": "x", "size": "huge"})",
       R"([spec.replicas: Invalid value: "string": spec.replicas in body must be of type )"
       R"(integer: "string", )"
       R"(spec.size: Unsupported value: "huge": supported values: "small", "large", )"
       R"(spec.name: Required value])"},
  }));
  CAPTURE(row.spec);
  CHECK(validate_spec(schema, row.spec) == row.expected);
}

TEST_CASE("crd schema errors carry the reasons render_field_errors and Status causes use",
          "[crd_schema]") {
  const CrdSchema schema = must_parse(kValidationSchema);
  using Pair = std::pair<const char*, const char*>;
  const auto [spec, reason] = GENERATE(values<Pair>({
      {R"({"name": "ab", "replicas": "x"})", "FieldValueTypeInvalid"},
      {R"({"name": "ab", "size": "x"})", "FieldValueNotSupported"},
      {R"({})", "FieldValueRequired"},
      {R"({"name": "abcdefgh"})", "FieldValueTooLong"},
      {R"({"name": "ab", "tags": ["a", "b", "c", "d"]})", "FieldValueTooMany"},
      {R"({"name": "ab", "replicas": 0})", "FieldValueInvalid"},
      {R"({"name": "ab", "set": ["a", "a"]})", "FieldValueDuplicate"},
  }));
  CAPTURE(spec);
  json object = {{"spec", json::parse(spec)}};
  const auto errors = schema.validate(object);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].reason == reason);
}

TEST_CASE("a missing required root field and a wrong root type are reported", "[crd_schema]") {
  const CrdSchema schema = must_parse(kValidationSchema);
  CHECK(render_field_errors(schema.validate(json::object())) == "spec: Required value");
  CHECK(render_field_errors(schema.validate(json{{"spec", "x"}})) ==
        R"(spec: Invalid value: "string": spec in body must be of type object: "string")");
}

TEST_CASE("pruning drops undeclared fields and reports their paths sorted", "[crd_schema]") {
  const CrdSchema schema = must_parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "properties": {
        "name": {"type": "string"},
        "note": {"type": "string", "nullable": true},
        "replicas": {"type": "integer", "default": 1},
        "ports": {"type": "array", "items": {"type": "object", "properties": {
          "port": {"type": "integer"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {
          "v": {"type": "string"}}}},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
          "known": {"type": "object", "properties": {"a": {"type": "string"}}}}},
        "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
          "spec": {"type": "object", "properties": {"x": {"type": "string"}}}}}
      }}
    }
  })");

  json object = json::parse(R"({
    "apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "w", "unknownMeta": 1},
    "foo": 1,
    "status": {"phase": "x"},
    "spec": {
      "name": null, "note": null, "replicas": null,
      "unknown": {"deep": true},
      "metadata": {"name": "nested"},
      "ports": [{"port": 80, "extra": 1}, {"port": 81}],
      "labels": {"a": {"v": "x", "w": "y"}},
      "extra": {"anything": {"goes": 1}, "known": {"a": "k", "b": "drop"}},
      "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "zzz": 1},
                   "spec": {"x": "1", "y": "2"}, "other": 3}
    }
  })");
  const std::vector<std::string> pruned = schema.prune(object);
  CHECK(pruned == std::vector<std::string>{"foo", "spec.extra.known.b", "spec.labels.a.w",
                                           "spec.metadata", "spec.ports[0].extra",
                                           "spec.template.other", "spec.template.spec.y",
                                           "spec.unknown", "status"});
  // Non-nullable nulls without a default go; nullable ones and ones with a default stay (the
  // latter for defaulting).
  CHECK(object == json::parse(R"({
    "apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "w", "unknownMeta": 1},
    "spec": {
      "note": null, "replicas": null,
      "ports": [{"port": 80}, {"port": 81}],
      "labels": {"a": {"v": "x"}},
      "extra": {"anything": {"goes": 1}, "known": {"a": "k"}},
      "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "zzz": 1},
                   "spec": {"x": "1"}}
    }
  })"));
}

TEST_CASE("a schema preserving unknown fields at the root prunes only declared ones",
          "[crd_schema]") {
  const CrdSchema schema = must_parse(R"({
    "type": "object", "x-kubernetes-preserve-unknown-fields": true,
    "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}}
  })");
  json object = json::parse(R"({"kind": "W", "anything": 1, "spec": {"a": "x", "b": "y"}})");
  CHECK(schema.prune(object) == std::vector<std::string>{"spec.b"});
  CHECK(object == json::parse(R"({"kind": "W", "anything": 1, "spec": {"a": "x"}})"));
}

TEST_CASE("structural defaulting fills missing fields, list items and map values", "[crd_schema]") {
  const CrdSchema schema = must_parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "default": {}, "properties": {
        "replicas": {"type": "integer", "default": 1},
        "mode": {"type": "string", "default": "auto"},
        "note": {"type": "string", "nullable": true, "default": "n"},
        "nested": {"type": "object", "default": {}, "properties": {
          "inner": {"type": "string", "default": "x"}}},
        "list": {"type": "array", "items": {"type": "object", "properties": {
          "p": {"type": "integer", "default": 5}}}},
        "words": {"type": "array", "items": {"type": "string", "default": "w"}},
        "map": {"type": "object", "additionalProperties": {"type": "object", "default": {},
          "properties": {"q": {"type": "string", "default": "d"}}}}
      }}
    }
  })");

  SECTION("a missing spec gets its default, then the defaults inside it") {
    json object = json::parse(R"({"kind": "W"})");
    schema.apply_defaults(object);
    CHECK(object == json::parse(R"({"kind": "W", "spec": {
      "replicas": 1, "mode": "auto", "note": "n", "nested": {"inner": "x"}}})"));
  }
  SECTION("set values stay; a non-nullable null takes the default, a nullable null stays") {
    json object = json::parse(R"({"spec": {"replicas": null, "mode": "manual", "note": null,
                                           "nested": {"inner": "set"}}})");
    schema.apply_defaults(object);
    CHECK(object == json::parse(R"({"spec": {"replicas": 1, "mode": "manual", "note": null,
                                             "nested": {"inner": "set"}}})"));
  }
  SECTION("list items and map values are defaulted; a defaulted null is not looked into") {
    json object = json::parse(R"({"spec": {
      "list": [{}, {"p": 7}], "words": [null, "a"], "map": {"k": {}, "n": null}}})");
    schema.apply_defaults(object);
    CHECK(object["spec"]["list"] == json::parse(R"([{"p": 5}, {"p": 7}])"));
    CHECK(object["spec"]["words"] == json::parse(R"(["w", "a"])"));
    CHECK(object["spec"]["map"] == json::parse(R"({"k": {"q": "d"}, "n": {}})"));
  }
}

TEST_CASE("schemas that are not usable structural schemas are refused", "[crd_schema]") {
  using Pair = std::pair<const char*, const char*>;
  const auto [text, expected] = GENERATE(values<Pair>({
      {R"([])", "openAPIV3Schema: must be an object"},
      {R"({"type": "string"})", "openAPIV3Schema.type: must be object at the root"},
      {R"({"type": "object", "properties": {"a": {}}})",
       "openAPIV3Schema.properties[a].type: must not be empty for specified fields"},
      {R"({"type": "object", "properties": {"a": {"type": "int"}}})",
       R"(openAPIV3Schema.properties[a].type: unsupported type "int")"},
      {R"({"type": "object", "properties": {"a": {"type": "array"}}})",
       "openAPIV3Schema.properties[a].items: must be specified for type array"},
      {R"({"type": "object", "properties": {"a": {"type": "object", "properties": {},
           "additionalProperties": {"type": "string"}}}})",
       "openAPIV3Schema.properties[a].additionalProperties: properties and additionalProperties "
       "are mutually exclusive"},
      {R"({"type": "object", "properties": {"a": {"type": "object",
           "additionalProperties": false}}})",
       "openAPIV3Schema.properties[a].additionalProperties: false is not allowed"},
      {R"({"type": "object", "properties": {"a": {"$ref": "#/definitions/x"}}})",
       "openAPIV3Schema.properties[a].$ref: not allowed in a structural schema"},
      {R"({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"},
           "x-kubernetes-list-type": "map"}}})",
       "openAPIV3Schema.properties[a].x-kubernetes-list-map-keys: must not be empty if list type "
       "is map"},
      {R"({"type": "object", "properties": {"a": {"type": "string", "maxLength": -1}}})",
       "openAPIV3Schema.properties[a].maxLength: must be a non-negative integer"},
  }));
  CAPTURE(text);
  auto schema = CrdSchema::parse(json::parse(text));
  REQUIRE_FALSE(schema.ok());
  CHECK(schema.error().message == expected);
}

TEST_CASE("a pattern Go's regexp rejects refuses the schema with upstream's field error",
          "[crd_schema]") {
  struct Case {
    std::string pattern;
    std::string message;
  };
  auto c = GENERATE(values<Case>({
      {"+", "error parsing regexp: missing argument to repetition operator: `+`"},
      {"(", "error parsing regexp: missing closing ): `(`"},
      {"a)", "error parsing regexp: unexpected ): `a)`"},
      {"[a", "error parsing regexp: missing closing ]: `[a`"},
      {"a**", "error parsing regexp: invalid nested repetition operator: `**`"},
      {"a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"},
      {"\\8", "error parsing regexp: invalid escape sequence: `\\8`"},
      {"(?<=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?<`"},
  }));
  CAPTURE(c.pattern);
  const json schema = {{"type", "object"},
                       {"properties", {{"a", {{"type", "string"}, {"pattern", c.pattern}}}}}};
  auto parsed = CrdSchema::parse(schema);
  REQUIRE_FALSE(parsed.ok());
  REQUIRE(parsed.error().field_error);
  const FieldError& field_error = *parsed.error().field_error;
  CHECK(field_error.reason == "FieldValueInvalid");
  CHECK(field_error.field == "openAPIV3Schema.properties[a].pattern");
  CHECK(field_error.message == "Invalid value: " + json(c.pattern).dump() +
                                   ": must be a valid regular expression, but isn't: " + c.message);
  CHECK(parsed.error().message == field_error.field + ": " + field_error.message);
}

TEST_CASE("patterns run on RE2: Go syntax compiles and hostile input matches in linear time",
          "[crd_schema]") {
  const CrdSchema schema = must_parse(R"js({"type": "object", "properties": {
      "a": {"type": "string", "pattern": "(?i)^\\pL+$"},
      "b": {"type": "string", "pattern": "^(a+)+$"},
      "c": {"type": "string", "pattern": "(?P<word>x)"}}})js");
  CHECK(schema.validate({{"a", "ÉtÉ"}, {"c", "yxz"}}).empty());
  // Exponential for a backtracking engine; RE2 answers at once.
  const std::string hostile = std::string(100000, 'a') + "!";
  CHECK(render_field_errors(schema.validate({{"b", hostile}})) ==
        "b: Invalid value: \"" + hostile + "\": b in body should match '^(a+)+$'");
}

TEST_CASE("a pattern nested a hundred thousand times deep is refused without a crash",
          "[crd_schema]") {
  const std::string pattern = std::string(100000, '(') + std::string(100000, ')');
  const json schema = {{"type", "object"},
                       {"properties", {{"a", {{"type", "string"}, {"pattern", pattern}}}}}};
  auto parsed = CrdSchema::parse(schema);
  REQUIRE_FALSE(parsed.ok());
  REQUIRE(parsed.error().field_error);
  CHECK(parsed.error().field_error->field == "openAPIV3Schema.properties[a].pattern");
}

TEST_CASE("json() returns the schema as given and copies share it", "[crd_schema]") {
  const json source = json::parse(kValidationSchema);
  const auto schema = CrdSchema::parse(source);
  REQUIRE(schema.ok());
  const CrdSchema copy = *schema;
  CHECK(copy.json() == source);
  CHECK(&copy.json() == &schema->json());
}

TEST_CASE("floats print as Go's %v", "[crd_schema]") {
  using Pair = std::pair<double, const char*>;
  const auto [value, expected] = GENERATE(values<Pair>({
      {1.5, "1.5"},
      {100000, "100000"},
      {1e6, "1e+06"},
      {1234567, "1.234567e+06"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {-2.5, "-2.5"},
      {1e21, "1e+21"},
      {0.1 + 0.2, "0.30000000000000004"},
      {0, "0"},
  }));
  CAPTURE(value);
  CHECK(go_format_float(value) == expected);
}

TEST_CASE("list-type errors inside maps name the key in brackets", "[crd_schema]") {
  const CrdSchema schema = must_parse(R"({
    "type": "object",
    "properties": {"spec": {"type": "object", "properties": {
      "groups": {"type": "object", "additionalProperties": {
        "type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}}
  })");
  const json object = json::parse(R"({"spec": {"groups": {"a": ["x", "y"], "b": ["z", "z"]}}})");
  CHECK(render_field_errors(schema.validate(object)) ==
        R"(spec.groups[b][1]: Duplicate value: "z")");
}

TEST_CASE("a write prunes, defaults, then validates", "[crd_schema]") {
  const CrdSchema schema = must_parse(R"({
    "type": "object",
    "properties": {"spec": {"type": "object", "required": ["name", "replicas"], "properties": {
      "name": {"type": "string"},
      "replicas": {"type": "integer", "default": 1}}}}
  })");
  json object = json::parse(R"({"spec": {"name": null, "replicas": null, "extra": 1}})");
  CHECK(schema.prune(object) == std::vector<std::string>{"spec.extra"});
  schema.apply_defaults(object);
  CHECK(object == json::parse(R"({"spec": {"replicas": 1}})"));
  CHECK(render_field_errors(schema.validate(object)) == "spec.name: Required value");
}
