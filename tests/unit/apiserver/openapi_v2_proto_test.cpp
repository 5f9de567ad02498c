#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "endpoints/openapi.h"
#include "endpoints/openapi_v2_proto.h"
#include "test_request.h"

using apiserver::endpoints::encode_openapi_v2;
using apiserver::endpoints::OpenApi;
using nlohmann::json;

namespace {

// ---- a small protobuf wire reader, enough to walk the encoder's output ----

struct WireField {
  std::uint32_t number = 0;
  std::uint32_t wire = 0;
  std::uint64_t varint = 0;  // wire type 0
  std::string bytes;         // wire types 1 (8 raw bytes) and 2
};

std::vector<WireField> read_message(std::string_view data) {
  std::vector<WireField> out;
  std::size_t i = 0;
  auto varint = [&](std::uint64_t& v) {
    v = 0;
    for (int shift = 0;; shift += 7) {
      REQUIRE(shift < 64);
      REQUIRE(i < data.size());
      const auto b = static_cast<unsigned char>(data[i++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return;
      }
    }
  };
  while (i < data.size()) {
    std::uint64_t key = 0;
    varint(key);
    WireField f;
    f.number = static_cast<std::uint32_t>(key >> 3);
    f.wire = static_cast<std::uint32_t>(key & 7);
    REQUIRE(f.number != 0);
    if (f.wire == 0) {
      varint(f.varint);
    } else if (f.wire == 1) {
      REQUIRE(data.size() - i >= 8);
      f.bytes = std::string(data.substr(i, 8));
      i += 8;
    } else if (f.wire == 2) {
      std::uint64_t n = 0;
      varint(n);
      REQUIRE(n <= data.size() - i);
      f.bytes = std::string(data.substr(i, n));
      i += n;
    } else {
      FAIL("unexpected wire type " << f.wire);
    }
    out.push_back(std::move(f));
  }
  return out;
}

// Every value of field `number`, in order.
std::vector<WireField> all(std::string_view message, std::uint32_t number) {
  std::vector<WireField> out;
  for (auto& f : read_message(message)) {
    if (f.number == number) {
      out.push_back(std::move(f));
    }
  }
  return out;
}

bool has(std::string_view message, std::uint32_t number) {
  return !all(message, number).empty();
}

// The bytes of the one length-delimited field `number`.
std::string one(std::string_view message, std::uint32_t number) {
  auto found = all(message, number);
  CAPTURE(number);
  REQUIRE(found.size() == 1);
  REQUIRE(found.front().wire == 2);
  return found.front().bytes;
}

std::uint64_t varint_of(std::string_view message, std::uint32_t number) {
  auto found = all(message, number);
  CAPTURE(number);
  REQUIRE(found.size() == 1);
  REQUIRE(found.front().wire == 0);
  return found.front().varint;
}

std::vector<std::string> strings_of(std::string_view message, std::uint32_t number) {
  std::vector<std::string> out;
  for (const auto& f : all(message, number)) {
    REQUIRE(f.wire == 2);
    out.push_back(f.bytes);
  }
  return out;
}

// The names of the (name = 1, value = 2) pairs in field `number`.
std::vector<std::string> names(std::string_view message, std::uint32_t number) {
  std::vector<std::string> out;
  for (const auto& f : all(message, number)) {
    out.push_back(one(f.bytes, 1));
  }
  return out;
}

// The value of the pair called `name` in field `number`.
std::string named(std::string_view message, std::uint32_t number, const std::string& name) {
  for (const auto& f : all(message, number)) {
    if (one(f.bytes, 1) == name) {
      return one(f.bytes, 2);
    }
  }
  FAIL("no pair " << name << " in field " << number);
  return "";
}

// Any.yaml of the vendor extension `name` in field `number`.
std::string extension(std::string_view message, std::uint32_t number, const std::string& name) {
  const std::string any = named(message, number, name);
  CHECK_FALSE(has(any, 1));  // Any.value stays unset
  return one(any, 2);
}

const json kSmall = json::parse(R"({
  "swagger": "2.0",
  "info": {"title": "Kubernetes", "version": "v1.32.0"},
  "paths": {
    "/api/v1/namespaces/{namespace}/pods": {
      "get": {
        "operationId": "listCoreV1NamespacedPod",
        "tags": ["core_v1"],
        "consumes": ["*/*"],
        "produces": ["application/json", "application/yaml"],
        "schemes": ["https"],
        "parameters": [
          {"name": "limit", "in": "query", "type": "integer", "uniqueItems": true},
          {"name": "body", "in": "body", "required": true,
           "schema": {"$ref": "#/definitions/io.k8s.api.core.v1.Pod"}},
          {"name": "dryRun", "in": "query", "type": "string", "required": false},
          {"name": "odd", "in": "cookie", "type": "string"}
        ],
        "responses": {
          "200": {"description": "OK",
                  "schema": {"$ref": "#/definitions/io.k8s.api.core.v1.PodList"}},
          "401": {"description": "Unauthorized"}
        },
        "x-kubernetes-action": "list",
        "x-kubernetes-group-version-kind": {"group": "", "kind": "Pod", "version": "v1"}
      },
      "parameters": [
        {"name": "namespace", "in": "path", "required": true, "type": "string",
         "uniqueItems": true},
        {"$ref": "#/parameters/pretty"}
      ]
    },
    "notAPath": {}
  },
  "definitions": {
    "io.k8s.api.core.v1.PodSpec": {
      "type": "object",
      "required": ["containers"],
      "properties": {
        "anything": {"additionalProperties": true},
        "containers": {
          "type": "array",
          "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"},
          "x-kubernetes-list-type": "atomic",
          "x-kubernetes-patch-merge-key": "name",
          "x-kubernetes-patch-strategy": "merge"
        },
        "nodeSelector": {
          "type": "object",
          "additionalProperties": {"type": "string"},
          "x-kubernetes-map-type": "atomic"
        },
        "priority": {"type": "integer", "format": "int32", "minimum": -1.5, "maxLength": 7}
      },
      "x-kubernetes-group-version-kind": [{"group": "", "kind": "Pod", "version": "v1"}]
    }
  },
  "security": [{"BearerToken": []}],
  "securityDefinitions": {
    "BearerToken": {"type": "apiKey", "name": "authorization", "in": "header"}
  },
  "x-top": "yes",
  "notAField": 5
})");

}  // namespace

TEST_CASE("The v2 protobuf Document carries the swagger version, info, security and extensions",
          "[openapi][openapi-proto]") {
  const std::string doc = encode_openapi_v2(kSmall);

  CHECK(one(doc, 1) == "2.0");  // swagger
  const std::string info = one(doc, 2);
  CHECK(one(info, 1) == "Kubernetes");
  CHECK(one(info, 2) == "v1.32.0");

  // security = 12: SecurityRequirement{(name, StringArray)} with an empty but present array
  const std::string requirement = one(doc, 12);
  CHECK(names(requirement, 1) == std::vector<std::string>{"BearerToken"});
  CHECK(named(requirement, 1, "BearerToken").empty());

  // securityDefinitions = 13 -> NamedSecurityDefinitionsItem -> api_key_security = 2
  const std::string api_key = one(named(one(doc, 13), 1, "BearerToken"), 2);
  CHECK(one(api_key, 1) == "apiKey");
  CHECK(one(api_key, 2) == "authorization");
  CHECK(one(api_key, 3) == "header");

  // vendor_extension = 16; an unknown key ("notAField") is left out
  CHECK(names(doc, 16) == std::vector<std::string>{"x-top"});
  CHECK(extension(doc, 16, "x-top") == "\"yes\"\n");
  for (const auto& f : read_message(doc)) {
    CHECK(((f.number >= 1 && f.number <= 2) || (f.number >= 8 && f.number <= 16)));
  }
}

TEST_CASE("The v2 protobuf Document carries paths, operations, parameters and responses",
          "[openapi][openapi-proto]") {
  const std::string paths = one(encode_openapi_v2(kSmall), 8);
  CHECK(names(paths, 2) == std::vector<std::string>{"/api/v1/namespaces/{namespace}/pods"});
  CHECK_FALSE(has(paths, 1));
  const std::string item = named(paths, 2, "/api/v1/namespaces/{namespace}/pods");

  SECTION("path-level parameters: a path parameter and a $ref") {
    auto params = all(item, 9);
    REQUIRE(params.size() == 2);
    // ParametersItem.parameter = 1 -> Parameter.non_body_parameter = 2 -> path = 4
    const std::string path = one(one(one(params[0].bytes, 1), 2), 4);
    CHECK(varint_of(path, 1) == 1);  // required
    CHECK(one(path, 2) == "path");
    CHECK(one(path, 4) == "namespace");
    CHECK(one(path, 5) == "string");
    CHECK(varint_of(path, 19) == 1);  // uniqueItems
    // ParametersItem.json_reference = 2
    CHECK(one(one(params[1].bytes, 2), 1) == "#/parameters/pretty");
  }

  SECTION("the operation's own fields") {
    const std::string get = one(item, 2);
    CHECK_FALSE(has(item, 3));  // no put
    CHECK(one(get, 5) == "listCoreV1NamespacedPod");
    CHECK(strings_of(get, 1) == std::vector<std::string>{"core_v1"});
    CHECK(strings_of(get, 7) == std::vector<std::string>{"*/*"});
    CHECK(strings_of(get, 6) == std::vector<std::string>{"application/json", "application/yaml"});
    CHECK(strings_of(get, 10) == std::vector<std::string>{"https"});
    CHECK(names(get, 13) ==
          std::vector<std::string>{"x-kubernetes-action", "x-kubernetes-group-version-kind"});
    CHECK(extension(get, 13, "x-kubernetes-action") == "list\n");
    CHECK(extension(get, 13, "x-kubernetes-group-version-kind") ==
          "{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}\n");

    // parameters = 8; the one with an unknown "in" is left out
    auto params = all(get, 8);
    REQUIRE(params.size() == 3);
    const std::string limit = one(one(one(params[0].bytes, 1), 2), 3);  // query = 3
    CHECK(one(limit, 4) == "limit");
    CHECK(one(limit, 2) == "query");
    CHECK(one(limit, 6) == "integer");
    CHECK(varint_of(limit, 20) == 1);  // uniqueItems
    CHECK_FALSE(has(limit, 1));        // not required

    const std::string body = one(one(params[1].bytes, 1), 1);  // body_parameter = 1
    CHECK(one(body, 2) == "body");
    CHECK(one(body, 3) == "body");
    CHECK(varint_of(body, 4) == 1);
    CHECK(one(one(body, 5), 1) == "#/definitions/io.k8s.api.core.v1.Pod");

    const std::string dry_run = one(one(one(params[2].bytes, 1), 2), 3);
    CHECK(one(dry_run, 4) == "dryRun");
    CHECK_FALSE(has(dry_run, 1));  // false is proto3's zero value: not written

    // responses = 9 -> response_code = 1 (NamedResponseValue) -> ResponseValue.response = 1
    const std::string responses = one(get, 9);
    CHECK(names(responses, 1) == std::vector<std::string>{"200", "401"});
    const std::string ok = one(named(responses, 1, "200"), 1);
    CHECK(one(ok, 1) == "OK");
    // Response.schema = 2 -> SchemaItem.schema = 1 -> Schema._ref = 1
    CHECK(one(one(one(ok, 2), 1), 1) == "#/definitions/io.k8s.api.core.v1.PodList");
    const std::string unauthorized = one(named(responses, 1, "401"), 1);
    CHECK(one(unauthorized, 1) == "Unauthorized");
    CHECK_FALSE(has(unauthorized, 2));
  }
}

TEST_CASE("The v2 protobuf Document carries definitions as gnostic Schemas",
          "[openapi][openapi-proto]") {
  const std::string definitions = one(encode_openapi_v2(kSmall), 9);
  const std::string spec = named(definitions, 1, "io.k8s.api.core.v1.PodSpec");

  CHECK(strings_of(one(spec, 22), 1) == std::vector<std::string>{"object"});  // TypeItem
  CHECK(strings_of(spec, 19) == std::vector<std::string>{"containers"});      // required
  CHECK(extension(spec, 31, "x-kubernetes-group-version-kind") ==
        "[{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}]\n");

  const std::string properties = one(spec, 25);
  CHECK(names(properties, 1) ==
        std::vector<std::string>{"anything", "containers", "nodeSelector", "priority"});

  SECTION("items is an ItemsItem holding one schema; extensions as plain YAML scalars") {
    const std::string containers = named(properties, 1, "containers");
    CHECK(strings_of(one(containers, 22), 1) == std::vector<std::string>{"array"});
    const auto items = all(one(containers, 23), 1);
    REQUIRE(items.size() == 1);
    CHECK(one(items.front().bytes, 1) == "#/definitions/io.k8s.api.core.v1.Container");
    CHECK(extension(containers, 31, "x-kubernetes-list-type") == "atomic\n");
    CHECK(extension(containers, 31, "x-kubernetes-patch-merge-key") == "name\n");
    CHECK(extension(containers, 31, "x-kubernetes-patch-strategy") == "merge\n");
  }
  SECTION("additionalProperties is a schema or a bool") {
    const std::string node_selector = named(properties, 1, "nodeSelector");
    const std::string schema = one(one(node_selector, 21), 1);
    CHECK(strings_of(one(schema, 22), 1) == std::vector<std::string>{"string"});
    CHECK(extension(node_selector, 31, "x-kubernetes-map-type") == "atomic\n");

    const std::string anything = named(properties, 1, "anything");
    CHECK(varint_of(one(anything, 21), 2) == 1);
  }
  SECTION("format, and numbers as double and int64") {
    const std::string priority = named(properties, 1, "priority");
    CHECK(one(priority, 2) == "int32");
    auto minimum = all(priority, 9);
    REQUIRE(minimum.size() == 1);
    REQUIRE(minimum.front().wire == 1);
    double d = 0;
    std::memcpy(&d, minimum.front().bytes.data(), sizeof d);  // little-endian host
    CHECK(d == -1.5);
    CHECK(varint_of(priority, 11) == 7);
  }
}

TEST_CASE("Any.yaml holds each JSON value as YAML that reads back the same",
          "[openapi][openapi-proto]") {
  auto [value, yaml] = GENERATE(table<json, std::string>({
      {"merge", "merge\n"},
      {"io.k8s/v1-beta_2", "io.k8s/v1-beta_2\n"},
      {"yes", "\"yes\"\n"},
      {"Off", "\"Off\"\n"},
      {"null", "\"null\"\n"},
      {"", "\"\"\n"},
      {"a b", "\"a b\"\n"},
      {"1.5", "\"1.5\"\n"},
      {"say \"hi\"", "\"say \\\"hi\\\"\"\n"},
      {5, "5\n"},
      {-2.5, "-2.5\n"},
      {true, "true\n"},
      {nullptr, "null\n"},
      {json::array(), "[]\n"},
      {json::object(), "{}\n"},
      {json{{"b", json::array({1, "x"})}}, "{\"b\":[1,\"x\"]}\n"},
  }));
  CAPTURE(value);
  const json document = {
      {"definitions", {{"D", {{"default", value}, {"enum", json::array({value})}}}}}};
  const std::string schema = named(one(encode_openapi_v2(document), 9), 1, "D");
  CHECK(one(one(schema, 5), 2) == yaml);  // default = 5 -> Any.yaml = 2
  const auto enums = all(schema, 20);
  REQUIRE(enums.size() == 1);
  CHECK(one(enums.front().bytes, 2) == yaml);
}

TEST_CASE("Values of the wrong JSON type and non-objects are left out",
          "[openapi][openapi-proto]") {
  CHECK(encode_openapi_v2(json::array()).empty());
  CHECK(encode_openapi_v2(json("2.0")).empty());
  const json document = {{"swagger", 2},
                         {"info", "Kubernetes"},
                         {"paths", {{"/x", {{"get", {{"tags", "a"}, {"deprecated", "yes"}}}}}}},
                         {"definitions", {{"D", {{"required", {"a", 1}}, {"maxLength", 1.5}}}}}};
  const std::string doc = encode_openapi_v2(document);
  CHECK_FALSE(has(doc, 1));
  CHECK_FALSE(has(doc, 2));
  const std::string get = one(named(one(doc, 8), 2, "/x"), 2);
  CHECK(get.empty());
  const std::string schema = named(one(doc, 9), 1, "D");
  CHECK(strings_of(schema, 19) == std::vector<std::string>{"a"});
  CHECK_FALSE(has(schema, 11));
}

TEST_CASE("Nesting deeper than the limit is cut off without failing", "[openapi][openapi-proto]") {
  json schema = {{"type", "string"}};
  for (int i = 0; i < 300; ++i) {
    schema = {{"type", "array"}, {"items", schema}};
  }
  const std::string doc = encode_openapi_v2({{"definitions", {{"Deep", schema}}}});
  // Walk down items = 23 -> ItemsItem.schema = 1 until it stops.
  std::string s = named(one(doc, 9), 1, "Deep");
  int levels = 0;
  while (has(s, 23) && has(one(s, 23), 1)) {
    s = one(one(s, 23), 1);
    ++levels;
  }
  CHECK(levels > 10);
  CHECK(levels < 300);
}

TEST_CASE("The built-in v2 document encodes to a Document with every path and definition",
          "[openapi][openapi-proto]") {
  auto snapshot = apiserver::registry::Registry::builtin()->snapshot();
  OpenApi openapi;
  const json document = json::parse(openapi.v2_document(*snapshot));
  std::string doc;
  REQUIRE_NOTHROW(doc = encode_openapi_v2(document));
  CHECK(doc.size() > 100'000);
  CHECK(doc.size() < openapi.v2_document(*snapshot).size());

  CHECK(one(doc, 1) == "2.0");
  CHECK(all(one(doc, 8), 2).size() == document["paths"].size());
  CHECK(all(one(doc, 9), 1).size() == document["definitions"].size());

  const std::string scale = named(one(doc, 9), 1, "io.k8s.api.autoscaling.v1.Scale");
  CHECK(extension(scale, 31, "x-kubernetes-group-version-kind") ==
        "[{\"group\":\"autoscaling\",\"kind\":\"Scale\",\"version\":\"v1\"}]\n");
}

namespace {

apiserver::http::Request get_v2(const std::string& accept) {
  return apiserver::testing::get_request("/openapi/v2", accept);
}

using apiserver::testing::response_header;

constexpr const char* kProtobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr const char* kProtobufContentType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

}  // namespace

TEST_CASE("GET /openapi/v2 answers protobuf for a protobuf Accept, as kube-openapi's handler",
          "[openapi][openapi-proto]") {
  auto snapshot = apiserver::registry::Registry::builtin()->snapshot();
  OpenApi openapi;
  const std::string json_text = openapi.v2_document(*snapshot);
  const std::string expected = encode_openapi_v2(json::parse(json_text));
  auto json_response = openapi.serve(get_v2("application/json"), *snapshot);
  REQUIRE(json_response);
  const std::string etag = response_header(*json_response, "ETag");

  SECTION("either protobuf subtype; same ETag as the JSON, Vary: Accept") {
    auto accept = GENERATE(as<std::string>{}, kProtobuf,
                           "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                           "application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.9",
                           "text/html, application/com.github.proto-openapi.spec.v2@v1.0+protobuf");
    CAPTURE(accept);
    auto r = openapi.serve(get_v2(accept), *snapshot);
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(response_header(*r, "Content-Type") == kProtobufContentType);
    CHECK(response_header(*r, "ETag") == etag);
    CHECK(response_header(*r, "Vary") == "Accept");
    CHECK(r->body == expected);
  }
  SECTION("the answer is built once and then served from the cache") {
    auto first = openapi.serve(get_v2(kProtobuf), *snapshot);
    auto second = openapi.serve(get_v2(kProtobuf), *snapshot);
    CHECK(first->body == second->body);
  }
  SECTION("If-None-Match with the ETag gives 304; HEAD gives headers only") {
    auto request = get_v2(kProtobuf);
    request.headers["If-None-Match"] = etag;
    auto r = openapi.serve(request, *snapshot);
    CHECK(r->status == 304);
    CHECK(r->body.empty());

    auto head = get_v2(kProtobuf);
    head.method = "HEAD";
    auto h = openapi.serve(head, *snapshot);
    CHECK(h->status == 200);
    CHECK(response_header(*h, "Content-Type") == kProtobufContentType);
    CHECK(h->body.empty());
  }
  SECTION("the first acceptable clause by q and order wins; wildcards mean JSON") {
    auto [accept, content_type] = GENERATE(table<std::string, std::string>({
        {"", "application/json"},
        {"*/*", "application/json"},
        {"application/*", "application/json"},
        {std::string(kProtobuf) + ", application/json", kProtobufContentType},
        {"application/json, " + std::string(kProtobuf), "application/json"},
        {std::string(kProtobuf) + ";q=0.5, application/json", "application/json"},
        {"application/json;q=0.5, " + std::string(kProtobuf), kProtobufContentType},
        // q=0 orders a range last but keeps it, as goautoneg does.
        {"application/json;q=0", "application/json"},
        {"application/json;q=0, " + std::string(kProtobuf) + ";q=0.1", kProtobufContentType},
        {"*", "application/json"},
    }));
    CAPTURE(accept);
    auto r = openapi.serve(get_v2(accept), *snapshot);
    CHECK(r->status == 200);
    CHECK(response_header(*r, "Content-Type") == content_type);
  }
  SECTION("neither JSON nor protobuf acceptable: 406 with an empty body") {
    // "application" has no subtype: goautoneg drops the range.
    auto accept = GENERATE(as<std::string>{}, "text/plain", "application/yaml",
                           "application/vnd.kubernetes.protobuf", "application");
    CAPTURE(accept);
    auto r = openapi.serve(get_v2(accept), *snapshot);
    CHECK(r->status == 406);
    CHECK(r->body.empty());
  }
}
