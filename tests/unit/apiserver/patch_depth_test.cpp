// Every patch algorithm on inputs as deep as a request body may be (Go's decoder, and so the
// endpoints, accept 10,000 levels of nesting). Under ASan a walk that recursed with large frames
// would overflow the stack here.
#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "endpoints/patch/field_manager.h"
#include "endpoints/patch/json_patch.h"
#include "endpoints/patch/merge_patch.h"
#include "endpoints/patch/strategic_merge.h"
#include "registry/schema_index.h"

using namespace apiserver::endpoints::patch;
using apiserver::registry::SchemaIndex;
using nlohmann::json;

namespace {

constexpr int kBodyDepth = 10000;

// `levels` objects nested under key `key`, innermost holding `leaf`: {"a":{"a":...leaf}}.
// Built bottom-up with moves only, so building never recurses.
json nested(int levels, json leaf, const std::string& key = "a") {
  json v = std::move(leaf);
  for (int i = 0; i < levels; ++i) {
    json o = json::object();
    o[key] = std::move(v);
    v = std::move(o);
  }
  return v;
}

// The nesting depth of `v` (a scalar is 0), without recursion.
int depth_of(const json& v) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> stack{{&v, 0}};
  while (!stack.empty()) {
    auto [node, d] = stack.back();
    stack.pop_back();
    if (!node->is_structured()) {
      deepest = std::max(deepest, d);
      continue;
    }
    deepest = std::max(deepest, d + 1);
    for (const json& child : *node) {
      stack.push_back({&child, d + 1});
    }
  }
  return deepest;
}

// A JSON patch operation with a value, built without copying the value.
json operation(const std::string& op, const std::string& path, json value) {
  json out = {{"op", op}, {"path", path}};
  out["value"] = std::move(value);
  return out;
}

json config_map_with(json extra) {
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "cm"}, {"namespace", "default"}}}};
  cm["x"] = std::move(extra);
  return cm;
}

}  // namespace

TEST_CASE("json patch applies operations whose value and document are 10000 levels deep",
          "[json-patch][depth]") {
  // The document: {"x": 9998 levels}; the patch body: [{"op":..,"value": 9997 levels}].
  json document = json::object();
  document["x"] = nested(kBodyDepth - 2, 1);
  REQUIRE(depth_of(document) == kBodyDepth - 1);
  json patch = json::array();
  patch.push_back(operation("add", "/y", nested(kBodyDepth - 3, 2)));
  patch.push_back(operation("test", "/x", nested(kBodyDepth - 2, 1)));
  patch.push_back({{"op", "copy"}, {"from", "/x"}, {"path", "/z"}});
  patch.push_back({{"op", "move"}, {"from", "/z"}, {"path", "/w"}});
  REQUIRE(depth_of(patch) <= kBodyDepth);
  auto result = apply_json_patch(document, patch);
  if (auto* error = std::get_if<PatchError>(&result)) {
    FAIL(error->detail);
  }
  const json& patched = std::get<json>(result);
  CHECK(depth_of(patched) == kBodyDepth - 1);
  CHECK(patched.contains("w"));
  CHECK_FALSE(patched.contains("z"));
}

TEST_CASE("a json patch that would nest the object deeper than 10000 levels is a 422",
          "[json-patch][depth]") {
  // Copying a subtree into itself doubles its depth: 5001 levels under /x land 5000 levels down.
  json document = json::object();
  document["x"] = nested(5001, 1);
  std::string path = "/x";
  for (int i = 1; i < 5000; ++i) {
    path += "/a";
  }
  json patch = json::array({{{"op", "copy"}, {"from", "/x"}, {"path", path}}});
  auto result = apply_json_patch(document, patch);
  REQUIRE(std::holds_alternative<PatchError>(result));
  const PatchError& error = std::get<PatchError>(result);
  CHECK(error.code == 422);
  CHECK(error.reason == "Invalid");
  CHECK(error.message == "the server rejected our request due to an error in our request");
  CHECK(error.detail ==
        "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth");

  // One level less still fits.
  json document_ok = json::object();
  document_ok["x"] = nested(5000, 1);
  auto fits = apply_json_patch(document_ok, patch);
  CHECK(std::holds_alternative<json>(fits));
}

TEST_CASE("merge patch merges a 10000 levels deep patch into a deep document",
          "[merge-patch][depth]") {
  json document = json::object();
  document["x"] = nested(kBodyDepth - 2, 1);
  // Merged level by level under "x", copied whole under "y".
  json patch = json::object();
  patch["x"] = nested(kBodyDepth - 2, 2);
  patch["y"] = nested(kBodyDepth - 2, nullptr);
  auto result = apply_merge_patch(document, patch);
  REQUIRE(std::holds_alternative<json>(result));
  const json& merged = std::get<json>(result);
  CHECK(depth_of(merged) == kBodyDepth - 1);
  // The null leaf of "y" is pruned, its empty parent kept.
  CHECK(depth_of(merged["y"]) == kBodyDepth - 2);

  json diff = create_merge_patch(document, merged);
  CHECK(depth_of(diff) == kBodyDepth - 1);
}

TEST_CASE("strategic merge patch merges 10000 levels deep patches with and without a schema",
          "[strategic-merge][depth]") {
  const SchemaIndex& index = SchemaIndex::builtin();
  const json* schema =
      GENERATE(as<const json*>{}, nullptr, SchemaIndex::builtin().kind("", "v1", "ConfigMap"));
  const json original = config_map_with(nested(kBodyDepth - 2, 1));
  json patch = json::object();
  patch["x"] = nested(kBodyDepth - 2, 2);
  auto result = apply_strategic_merge_patch(index, schema, original, patch);
  REQUIRE(std::holds_alternative<json>(result));
  CHECK(depth_of(std::get<json>(result)) == kBodyDepth - 1);
}

TEST_CASE("strategic merge patch errors render 10000 levels deep values",
          "[strategic-merge][depth]") {
  const SchemaIndex& index = SchemaIndex::builtin();
  const json original = config_map_with(nested(kBodyDepth - 2, 1));
  // An unknown $patch directive: upstream prints the map holding it, all of it, with %v.
  json directive = {{"$patch", "foo"}};
  directive["k"] = nested(kBodyDepth - 3, 1);
  json patch = json::object();
  patch["x"] = std::move(directive);
  REQUIRE(depth_of(patch) == kBodyDepth - 1);
  auto result = apply_strategic_merge_patch(index, nullptr, original, patch);
  REQUIRE(std::holds_alternative<SmpError>(result));
  std::string expected = "unknown patch type: foo in map: map[$patch:foo k:";
  for (int i = 0; i < kBodyDepth - 3; ++i) {
    expected += "map[a:";
  }
  expected += "1" + std::string(kBodyDepth - 2, ']');
  CHECK(std::get<SmpError>(result).message == expected);
}

TEST_CASE("server-side apply takes a 10000 levels deep configuration", "[ssa][depth]") {
  auto type = ObjectType::builtin("", "v1", "ConfigMap");
  REQUIRE(type.has_value());
  Writer writer{"kubectl", "v1", "", "2024-05-01T10:00:00Z", {}};
  json config = config_map_with(nested(kBodyDepth - 2, 1));
  ApplyResult created = apply(*type, nullptr, config, writer, false);
  REQUIRE(created.outcome == ApplyResult::Outcome::Ok);
  CHECK(depth_of(created.object["x"]) == kBodyDepth - 2);

  // A second apply that changes the deepest leaf and drops nothing: merge, compare, prune.
  json again = config_map_with(nested(kBodyDepth - 2, 2));
  writer.now = "2024-05-01T10:05:00Z";
  ApplyResult updated = apply(*type, &created.object, again, writer, false);
  REQUIRE(updated.outcome == ApplyResult::Outcome::Ok);
  CHECK(updated.changed);

  // An update by another manager that removes the deep field.
  json removed = config_map_with(1);
  removed.erase("x");
  Writer other{"editor", "v1", "", "2024-05-01T10:10:00Z", {}};
  json result = update_managed_fields(*type, &updated.object, removed, other);
  CHECK_FALSE(result.contains("x"));
}

TEST_CASE("managedFields with a 10000 levels deep fieldsV1 set are decoded", "[ssa][depth]") {
  auto type = ObjectType::builtin("", "v1", "ConfigMap");
  REQUIRE(type.has_value());
  // managedFields[0].fieldsV1 sits at depth 4 of the object.
  json fields = nested(kBodyDepth - 5, json::object(), "f:a");
  json entry = {
      {"manager", "m"}, {"operation", "Update"}, {"apiVersion", "v1"}, {"fieldsType", "FieldsV1"}};
  entry["fieldsV1"] = std::move(fields);
  json sent = config_map_with(1);
  sent["metadata"]["managedFields"] = json::array();
  sent["metadata"]["managedFields"].push_back(std::move(entry));
  REQUIRE(depth_of(sent) <= kBodyDepth);
  Writer writer{"kubectl", "v1", "", "2024-05-01T10:00:00Z", {}};
  json result = update_managed_fields(*type, nullptr, sent, writer);
  REQUIRE(result["metadata"]["managedFields"].is_array());
}

TEST_CASE("field sets of values with invalid UTF-8 are built without throwing", "[ssa][depth]") {
  auto type = ObjectType::builtin("", "v1", "ConfigMap");
  REQUIRE(type.has_value());
  // YAML bodies can carry bytes that are not UTF-8; finalizers are a set list keyed by value.
  json config = config_map_with(1);
  config.erase("x");
  config["metadata"]["finalizers"] = json::array({std::string("a\xff")});
  Writer writer{"kubectl", "v1", "", "2024-05-01T10:00:00Z", {}};
  ApplyResult result;
  REQUIRE_NOTHROW(result = apply(*type, nullptr, config, writer, false));
  CHECK(result.outcome == ApplyResult::Outcome::Ok);
}
