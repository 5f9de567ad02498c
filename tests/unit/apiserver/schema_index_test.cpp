#include <catch2/catch.hpp>

#include "registry/schema_index.h"

using apiserver::registry::SchemaIndex;

TEST_CASE("schema index finds kinds and follows references", "[schema]") {
  const SchemaIndex& index = SchemaIndex::builtin();
  const auto* deployment = index.kind("apps", "v1", "Deployment");
  REQUIRE(deployment != nullptr);
  CHECK(index.kind("apps", "v1", "NoSuchKind") == nullptr);

  const auto* spec = index.property(deployment, "spec");
  REQUIRE(spec != nullptr);
  const auto* pod_spec = index.property(index.property(spec, "template"), "spec");
  const auto* containers = index.property(pod_spec, "containers");
  REQUIRE(containers != nullptr);
  CHECK(index.type(containers) == "array");
  CHECK(*index.extension(containers, "x-kubernetes-patch-merge-key") == "name");
  CHECK(*index.extension(containers, "x-kubernetes-list-type") == "map");

  const auto* container = index.items(containers);
  CHECK(index.type(container) == "object");
  CHECK(index.type(index.property(container, "image")) == "string");
  CHECK(index.property(container, "nope") == nullptr);

  const auto* labels = index.property(index.property(deployment, "metadata"), "labels");
  CHECK(index.type(labels) == "object");
  CHECK(index.type(index.additional_properties(labels)) == "string");
  CHECK(index.items(labels) == nullptr);
}

TEST_CASE("schema index reads extensions on the reference and on its target", "[schema]") {
  SchemaIndex index(std::string_view(R"({"definitions": {
    "A": {"type": "object", "properties": {"b": {"$ref": "B", "x-kubernetes-map-type": "atomic"},
                                             "c": {"$ref": "B"}, "d": {"$ref": "Missing"}}},
    "B": {"type": "object", "x-kubernetes-map-type": "granular",
          "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "B"}]}}})"));
  const auto* a = index.definition("A");
  REQUIRE(a != nullptr);
  CHECK(*index.extension(index.property(a, "b"), "x-kubernetes-map-type") == "atomic");
  CHECK(*index.extension(index.property(a, "c"), "x-kubernetes-map-type") == "granular");
  CHECK(index.resolve(index.property(a, "d")) == nullptr);
  CHECK(index.type(index.property(a, "d")).empty());
  CHECK(index.kind("", "v1", "B") == index.definition("B"));
}
