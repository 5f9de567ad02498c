#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "registry/custom_resources.h"
#include "registry/objects.h"
#include "test_api.h"
#include "watch_events.h"

using apiserver::testing::Api;
using apiserver::testing::EventReader;
using nlohmann::json;
using namespace apiserver::registry;

namespace {

json crd(const json& selectable, const std::string& scope = "Namespaced") {
  json version = {{"name", "v1"},
                  {"served", true},
                  {"storage", true},
                  {"schema", {{"openAPIV3Schema", json::parse(R"({"type": "object", "properties": {
           "spec": {"type": "object", "properties": {
             "color": {"type": "string", "enum": ["red", "blue"]},
             "size": {"type": "integer"},
             "on": {"type": "boolean"},
             "ratio": {"type": "number"},
             "tags": {"type": "array", "items": {"type": "string"}},
             "labels": {"type": "object", "additionalProperties": {"type": "string"}},
             "port": {"x-kubernetes-int-or-string": true}}}}})")}}}};
  if (!selectable.is_null()) {
    version["selectableFields"] = selectable;
  }
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "widgets.example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"scope", scope},
            {"names", {{"plural", "widgets"}, {"kind", "Widget"}}},
            {"versions", {version}}}}};
}

json paths(std::initializer_list<const char*> list) {
  json out = json::array();
  for (const char* p : list) {
    out.push_back({{"jsonPath", p}});
  }
  return out;
}

std::string crd_errors(const json& selectable) {
  auto errors = validate_crd(crd(selectable));
  return errors.empty() ? "" : render_field_errors(errors);
}

}  // namespace

TEST_CASE("selectableFields are validated with kube-apiserver's errors", "[crd]") {
  const std::string at = "spec.versions[0].selectableFields";
  struct Case {
    json selectable;
    std::string want;
  };
  auto c = GENERATE_COPY(values<Case>({
      {paths({".spec.color", ".spec.size", ".spec.on", ".spec.labels.x", ".spec.color"}),
       at + "[4].jsonPath: Duplicate value: \".spec.color\""},
      {paths({".spec['color']"}),
       at + "[0].jsonPath: Invalid value: \".spec['color']\": is an invalid path: array "
            "notation is not allowed"},
      {paths({".spec.color", ".spec.size", ".spec.on"}), ""},
      {json::array({json::object()}), at + "[0].jsonPath: Required value"},
      {paths({".spec.missing"}),
       at + "[0].jsonPath: Invalid value: \".spec.missing\": is an invalid path: does not refer to "
            "a valid field"},
      {paths({"spec.color"}),
       at + "[0].jsonPath: Invalid value: \"spec.color\": is an invalid path: expected [ or . but "
            "got: spec"},
      {paths({".spec.tags[0]"}),
       at + "[0].jsonPath: Invalid value: \".spec.tags[0]\": is an invalid path: array notation "
            "is not allowed"},
      {paths({".spec."}),
       at + "[0].jsonPath: Invalid value: \".spec.\": is an invalid path: unexpected end of JSON "
            "path"},
      {paths({".spec.tags"}),
       at + "[0].jsonPath: Invalid value: \".spec.tags\": must point to a field of type string, "
            "boolean or integer. Enum string fields and strings with formats are allowed."},
      {paths({".spec.ratio"}),
       at + "[0].jsonPath: Invalid value: \".spec.ratio\": must point to a field of type string, "
            "boolean or integer. Enum string fields and strings with formats are allowed."},
      {paths({".spec.port"}),
       at + "[0].jsonPath: Invalid value: \".spec.port\": must point to a field of type string, "
            "boolean or integer. Enum string fields and strings with formats are allowed."},
  }));
  CAPTURE(c.selectable.dump());
  CHECK(crd_errors(c.selectable) == c.want);
}

TEST_CASE("more than eight distinct selectable fields are too many", "[crd]") {
  json props = json::object();
  json selectable = json::array();
  for (char ch = 'a'; ch <= 'i'; ++ch) {
    props[std::string(1, ch)] = {{"type", "string"}};
    selectable.push_back({{"jsonPath", std::string(".spec.") + ch}});
  }
  json many = crd(selectable);
  many["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"] =
      props;
  CHECK(render_field_errors(validate_crd(many)) ==
        "spec.versions[0].selectableFields: Too many: 9: must have at most 8 items");
}

TEST_CASE("metadata fields are not selectable fields", "[crd]") {
  json c = crd(paths({".metadata.name"}));
  c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["metadata"] = {
      {"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}};
  auto errors = validate_crd(c);
  CHECK(render_field_errors(errors) ==
        "spec.versions[0].selectableFields[0].jsonPath: Invalid value: \".metadata.name\": must "
        "not point to fields in metadata");
}

TEST_CASE("kubectl get --field-selector selects custom resources by their selectable fields",
          "[crd]") {
  Api api;
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  REQUIRE(api.call("POST", crds, crd(paths({".spec.color", ".spec.size", ".spec.on"}))).status ==
          201);
  api.settle();
  auto make = [&](const std::string& name, const json& spec) {
    json w = {{"apiVersion", "example.com/v1"},
              {"kind", "Widget"},
              {"metadata", {{"name", name}}},
              {"spec", spec}};
    REQUIRE(api.call("POST", widgets, w).status == 201);
  };
  make("a", {{"color", "red"}, {"size", 3}, {"on", true}});
  make("b", {{"color", "blue"}, {"size", 4}});
  make("c", json::object());
  make("f", {{"size", 5.0}});  // a float64 in Go, printed as 5
  REQUIRE(api.call("GET", widgets + "/f").body["spec"]["size"].is_number_float());
  auto names = [&](const std::string& selector) {
    auto got = api.call("GET", widgets + "?fieldSelector=" + selector);
    REQUIRE(got.status == 200);
    std::string out;
    for (const auto& item : got.body["items"]) {
      out += item["metadata"]["name"].get<std::string>();
    }
    return out;
  };
  CHECK(names("spec.color%3Dred") == "a");
  CHECK(names("spec.color!%3Dred") == "bcf");
  CHECK(names("spec.size%3D5") == "f");
  CHECK(names("spec.size%3D4") == "b");
  CHECK(names("spec.on%3Dtrue") == "a");
  CHECK(names("spec.color%3D") == "cf");  // absent reads as ""
  CHECK(names("spec.color%3Dblue,metadata.namespace%3Ddefault") == "b");

  auto refused = api.call("GET", widgets + "?fieldSelector=spec.shape%3Dx");
  CHECK(refused.status == 400);
  CHECK(refused.body["message"] == "field label not supported: spec.shape");

  const std::string rv = api.call("GET", widgets).body["metadata"]["resourceVersion"];
  auto stream =
      api.watch(widgets + "?watch=true&fieldSelector=spec.color%3Dred&resourceVersion=" + rv);
  EventReader events(*stream);
  make("d", {{"color", "blue"}});
  make("e", {{"color", "red"}});
  json event = events.next();
  CHECK(event["type"] == "ADDED");
  CHECK(event["object"]["metadata"]["name"] == "e");
}

TEST_CASE("a cluster-scoped custom resource has no metadata.namespace field label", "[crd]") {
  Api api;
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  REQUIRE(api.call("POST", crds, crd(nullptr, "Cluster")).status == 201);
  api.settle();
  auto refused =
      api.call("GET", "/apis/example.com/v1/widgets?fieldSelector=metadata.namespace%3D");
  CHECK(refused.status == 400);
  CHECK(refused.body["message"] == "field label not supported: metadata.namespace");
  CHECK(api.call("GET", "/apis/example.com/v1/widgets?fieldSelector=metadata.name%3Dx").status ==
        200);
}

TEST_CASE("a new CRD is Installing (Established False) before it is Established", "[crd]") {
  Api api;
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const std::string rv = api.call("GET", crds).body["metadata"]["resourceVersion"];
  auto stream = api.watch(crds + "?watch=true&resourceVersion=" + rv);
  EventReader events(*stream);
  REQUIRE(api.call("POST", crds, crd(nullptr)).status == 201);
  auto established = [](const json& event) {
    for (const auto& c : event["object"].value("/status/conditions"_json_pointer, json::array())) {
      if (c["type"] == "Established") {
        return c["status"].get<std::string>() + "/" + c["reason"].get<std::string>() + "/" +
               c["message"].get<std::string>();
      }
    }
    return std::string();
  };
  CHECK(established(events.next()).empty());  // ADDED, without status
  CHECK(established(events.next()) == "False/Installing/the initial names have been accepted");
  CHECK(established(events.next()) ==
        "True/InitialNamesAccepted/the initial names have been accepted");
}
