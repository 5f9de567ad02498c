#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "registry/custom_resources.h"
#include "registry/objects.h"
#include "registry/table.h"

using nlohmann::json;
using namespace apiserver::registry;

namespace {

json crd() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "videoprocessors.media.example.com"},
    "spec": {
      "group": "media.example.com", "scope": "Namespaced",
      "names": {"plural": "videoprocessors", "kind": "VideoProcessor", "shortNames": ["vp"],
                "categories": ["media"]},
      "versions": [
        {"name": "v1", "served": true, "storage": true,
         "subresources": {"status": {}},
         "additionalPrinterColumns": [
           {"name": "Codec", "type": "string", "jsonPath": ".spec.codec"},
           {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1}],
         "schema": {"openAPIV3Schema": {"type": "object", "properties": {
           "spec": {"type": "object", "properties": {
             "codec": {"type": "string"}, "replicas": {"type": "integer"}}},
           "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}},
        {"name": "v1beta1", "served": false, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object"}}}]}})");
}

std::string rendered(const std::vector<FieldError>& errors) {
  return errors.empty() ? "" : render_field_errors(errors);
}

}  // namespace

TEST_CASE("a CRD is defaulted with its singular, list kind and conversion", "[crd]") {
  json c = crd();
  default_crd(c);
  CHECK(c["spec"]["names"]["singular"] == "videoprocessor");
  CHECK(c["spec"]["names"]["listKind"] == "VideoProcessorList");
  CHECK(c["spec"]["conversion"] == json{{"strategy", "None"}});
  CHECK(validate_crd(c).empty());
}

TEST_CASE("CRD validation names what users get wrong, with upstream's texts", "[crd]") {
  struct Case {
    const char* pointer;
    json value;
    std::string want;
  };
  auto c = GENERATE(values<Case>({
      {"/metadata/name", "processors.media.example.com",
       "metadata.name: Invalid value: \"processors.media.example.com\": must be "
       "spec.names.plural+\".\"+spec.group"},
      {"/spec/group", "media",
       "[metadata.name: Invalid value: \"videoprocessors.media.example.com\": must be "
       "spec.names.plural+\".\"+spec.group, spec.group: Invalid value: \"media\": should be a "
       "domain with at least one dot]"},
      {"/spec/scope", "Global",
       "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""},
      {"/spec/names/kind", "", "spec.names.kind: Required value"},
      {"/spec/names/plural", "", "spec.names.plural: Required value"},
      {"/spec/versions/0/storage", false,
       "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must "
       "have exactly one version marked as storage version"},
      {"/spec/versions/0/schema", json::object(),
       "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"},
  }));
  CAPTURE(c.pointer);
  json object = crd();
  object[json::json_pointer(c.pointer)] = c.value;
  CHECK(rendered(validate_crd(object)) == c.want);
}

TEST_CASE("names conflict with the accepted names of another CRD of the group", "[crd]") {
  CrdNames mine = names_of(crd());
  CrdNames other;
  other.plural = "encoders";
  other.singular = "encoder";
  other.kind = "Encoder";
  other.list_kind = "EncoderList";
  CHECK(names_conflict(mine, {other}).empty());
  other.short_names = {"vp"};
  CHECK(names_conflict(mine, {other}) == "\"vp\" is already in use");
  other.short_names.clear();
  other.kind = "VideoProcessor";
  CHECK(names_conflict(mine, {other}) == "\"VideoProcessor\" is already in use");
}

TEST_CASE("a CRD serves one row per served version, with its names and columns", "[crd]") {
  json c = crd();
  default_crd(c);
  auto rows = rows_for_crd(c, names_of(c), false);
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 1);
  const Resource& r = (*rows)[0];
  CHECK(r.group_version() == "media.example.com/v1");
  CHECK(r.resource == "videoprocessors");
  CHECK(r.kind == "VideoProcessor");
  CHECK(r.singular == "videoprocessor");
  CHECK(r.namespaced);
  CHECK(r.short_names == std::vector<std::string>{"vp"});
  CHECK(r.categories == std::vector<std::string>{"media"});
  CHECK(r.etcd_prefix == "/registry/media.example.com/videoprocessors");
  CHECK(r.storage_key("media", "hd") == "/registry/media.example.com/videoprocessors/media/hd");
  REQUIRE(r.subresource("status") != nullptr);
  CHECK(r.subresource("scale") == nullptr);
  REQUIRE(r.table_columns.size() == 3);
  CHECK(r.table_columns[0].name == "Name");
  CHECK(r.table_columns[1].json_path == ".spec.codec");
  CHECK(r.table_columns[2].priority == 1);
  REQUIRE(r.custom);
  CHECK(r.custom->crd_name == "videoprocessors.media.example.com");
  CHECK(r.custom->structural);
  CHECK_FALSE(r.custom->terminating);

  SECTION("without printer columns the table is Name and Age") {
    c["spec"]["versions"][0].erase("additionalPrinterColumns");
    auto plain = rows_for_crd(c, names_of(c), false);
    REQUIRE(plain.ok());
    REQUIRE(plain->size() == 1);
    REQUIRE((*plain)[0].table_columns.size() == 2);
    CHECK((*plain)[0].table_columns[1].name == "Age");
    CHECK((*plain)[0].table_columns[1].type == "date");
  }
}

TEST_CASE("printer column JSONPaths pick the first match", "[crd][table]") {
  json object = json::parse(R"({"metadata": {"name": "hd"}, "spec": {"codec": "h265", "n": 3},
    "status": {"conditions": [{"type": "Synced", "status": "False"},
                              {"type": "Ready", "status": "True"}]}})");
  CHECK(eval_column_path(".spec.codec", object) == "h265");
  CHECK(eval_column_path("{.spec.n}", object) == 3);
  CHECK(eval_column_path(".status.conditions[0].type", object) == "Synced");
  CHECK(eval_column_path(".status.conditions[?(@.type==\"Ready\")].status", object) == "True");
  CHECK(eval_column_path(".status.conditions[*].type", object) == "Synced");
  CHECK(eval_column_path(".spec.missing", object).is_null());
  CHECK(eval_column_path(".status.conditions[5].type", object).is_null());
  CHECK(eval_column_path("spec", object).is_null());
}

TEST_CASE("a custom resource's Table cells are typed by their columns", "[crd][table]") {
  json c = crd();
  default_crd(c);
  c["spec"]["versions"][0]["additionalPrinterColumns"] = json::parse(R"([
    {"name": "Codec", "type": "string", "jsonPath": ".spec.codec"},
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio"},
    {"name": "Live", "type": "boolean", "jsonPath": ".spec.live"},
    {"name": "Tags", "type": "string", "jsonPath": ".spec.tags"},
    {"name": "Started", "type": "date", "jsonPath": ".status.started"},
    {"name": "Missing", "type": "string", "jsonPath": ".spec.none"}])");
  auto rows = rows_for_crd(c, names_of(c), false);
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 1);
  json object =
      json::parse(R"({"metadata": {"name": "hd", "creationTimestamp": "2024-01-01T00:00:00Z"},
    "spec": {"codec": "h265", "replicas": 2.7, "ratio": 1.5, "live": "yes", "tags": ["a", "b"]},
    "status": {"started": "2024-01-01T00:00:00Z"}})");
  auto now = std::chrono::sys_days{std::chrono::year{2024} / 1 / 1} + std::chrono::minutes(5);
  CHECK(table_cells((*rows)[0], object, now) ==
        json::parse(R"(["hd", "h265", 2, 1.5, null, "[a b]", "5m", null])"));
  TableOptions options;
  options.now = now;
  json table = to_table((*rows)[0], {object}, options);
  CHECK(table["columnDefinitions"][1]["name"] == "Codec");
  CHECK(table["columnDefinitions"][1]["type"] == "string");
  CHECK(table["columnDefinitions"].size() == 8);
}
