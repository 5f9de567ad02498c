#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "endpoints/patch/strategic_merge.h"
#include "registry/schema_index.h"

using apiserver::endpoints::patch::apply_strategic_merge_patch;
using apiserver::endpoints::patch::SmpError;
using apiserver::endpoints::patch::SmpErrorKind;
using apiserver::endpoints::patch::to_http_status;
using apiserver::registry::SchemaIndex;
using nlohmann::json;

namespace {

// "Pod", "Deployment", ... by their group/version; "" means no schema at all.
const json* schema_of(const std::string& kind) {
  const SchemaIndex& index = SchemaIndex::builtin();
  if (kind == "Deployment" || kind == "ControllerRevision") {
    return index.kind("apps", "v1", kind);
  }
  if (kind == "PodDisruptionBudget") {
    return index.kind("policy", "v1", kind);
  }
  if (kind.empty()) {
    return nullptr;
  }
  return index.kind("", "v1", kind);
}

std::variant<json, SmpError> apply(const std::string& kind, const std::string& original,
                                   const std::string& patch) {
  const json* schema = schema_of(kind);
  if (!kind.empty()) {
    REQUIRE(schema != nullptr);
  }
  return apply_strategic_merge_patch(SchemaIndex::builtin(), schema, json::parse(original),
                                     json::parse(patch));
}

std::string kind_name(SmpErrorKind kind) {
  switch (kind) {
    case SmpErrorKind::BadRequest:
      return "BadRequest";
    case SmpErrorKind::Unprocessable:
      return "Unprocessable";
    case SmpErrorKind::Internal:
      return "Internal";
    case SmpErrorKind::Panic:
      return "Panic";
  }
  return "?";
}

struct Merge {
  std::string description;
  std::string kind;
  std::string original;
  std::string patch;
  std::string expected;
};

struct Failure {
  std::string description;
  std::string kind;
  std::string original;
  std::string patch;
  SmpErrorKind error_kind;
  std::string message;
};

}  // namespace

TEST_CASE("strategic merge patches merge objects and lists as kube-apiserver does", "[smp]") {
  auto row = GENERATE(values<Merge>({
      {"objects merge recursively, null deletes a key, last-applied annotation is added",
       "ConfigMap", R"({"metadata":{"name":"c","labels":{"a":"1"}},"data":{"a":"1","b":"1"}})",
       R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
           "data":{"b":"2","a":null}})",
       R"({"metadata":{"name":"c","labels":{"a":"1"},
           "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
           "data":{"b":"2"}})"},
      {"null for a key the live object lacks is dropped", "ConfigMap", R"({"data":{"a":"1"}})",
       R"({"data":{"zz":null},"binaryData":null})", R"({"data":{"a":"1"}})"},
      {"a value for a key the live object lacks loses its nulls and $patch maps", "Pod",
       R"({"metadata":{"name":"p"}})",
       R"({"spec":{"nodeSelector":{"a":"1","b":null},
                   "tolerations":[{"key":"t","$patch":"delete"},{"key":"u","value":null}]},
           "metadata":{"labels":{"$patch":"replace","x":"1"}}})",
       R"({"metadata":{"name":"p"},"spec":{"nodeSelector":{"a":"1"},"tolerations":[{"key":"u"}]}})"},
      {"a value of another type replaces without its directives", "ConfigMap",
       R"({"data":"not a map"})", R"({"data":{"a":"1","b":{"$patch":"delete"}}})",
       R"({"data":{"a":"1"}})"},
      {"$deleteFromPrimitiveList for a list the live object lacks or holds as a scalar does "
       "nothing",
       "Pod", R"({"metadata":{"name":"p","finalizers":"x"}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["x"],
                       "$deleteFromPrimitiveList/labels":"y"}})",
       R"({"metadata":{"name":"p","finalizers":"x"}})"},
      {"a list without a merge strategy is replaced (tolerations, args)", "Pod",
       R"({"spec":{"tolerations":[{"key":"a"},{"key":"b"}],
                   "containers":[{"name":"app","args":["x","y"]}]}})",
       R"({"spec":{"tolerations":[{"key":"c"}],"containers":[{"name":"app","args":["z"]}]}})",
       R"({"spec":{"tolerations":[{"key":"c"}],"containers":[{"name":"app","args":["z"]}]}})"},
      {"kubectl set image: the container is merged by name, $setElementOrder keeps the order",
       "Deployment",
       R"({"spec":{"replicas":2,"template":{"spec":{"containers":[
           {"name":"app","image":"nginx:1.25","ports":[{"containerPort":80}]},
           {"name":"sidecar","image":"busybox"}]}}}})",
       R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],"containers":[{"image":"nginx:1.26","name":"app"}]}}}})",
       R"({"spec":{"replicas":2,"template":{"spec":{"containers":[
           {"name":"app","image":"nginx:1.26","ports":[{"containerPort":80}]},
           {"name":"sidecar","image":"busybox"}]}}}})"},
      {"a container new to the list comes first", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})",
       R"({"spec":{"containers":[{"name":"c","image":"z"}]}})",
       R"({"spec":{"containers":[{"name":"c","image":"z"},{"name":"a","image":"x"},
                                 {"name":"b","image":"y"}]}})"},
      {"$setElementOrder puts a new container where the order says", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"c"}],
                   "containers":[{"name":"c","image":"z"}]}})",
       R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"},
                                 {"name":"c","image":"z"}]}})"},
      {"$setElementOrder alone reorders the live list", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})",
       R"({"spec":{"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})"},
      {"a server-only container keeps its place between ordered ones", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"s"},{"name":"b","image":"old"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],
                   "containers":[{"name":"b","image":"new"}]}})",
       R"({"spec":{"containers":[{"name":"a"},{"name":"s"},{"name":"b","image":"new"}]}})"},
      // Upstream deletes b from the live slice in place and appends d into the freed tail, so
      // the live order it sorts server-only items by reads [a s d]: s lands before d.
      {"deleting and adding around a server-only container follows upstream's in-place slices",
       "Pod", R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"s"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"d"}],
                   "containers":[{"name":"d","image":"z"},{"$patch":"delete","name":"b"}]}})",
       R"({"spec":{"containers":[{"name":"a"},{"name":"s"},{"name":"d","image":"z"}]}})"},
      {"$patch: delete removes the container with that name", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
       R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})",
       R"({"spec":{"containers":[{"name":"b"}]}})"},
      {"$patch: replace in a list item replaces the whole list", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}]}})",
       R"({"spec":{"containers":[{"name":"c","image":"z"},{"$patch":"replace"}]}})",
       R"({"spec":{"containers":[{"name":"c","image":"z"}]}})"},
      {"$patch: replace in an object replaces the object", "Deployment",
       R"({"spec":{"selector":{"matchLabels":{"a":"1"},
           "matchExpressions":[{"key":"k","operator":"Exists"}]}}})",
       R"({"spec":{"selector":{"$patch":"replace","matchLabels":{"b":"2"}}}})",
       R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})"},
      {"$patch: delete in an object leaves it empty", "Pod",
       R"({"metadata":{"name":"p","labels":{"a":"1"}}})",
       R"({"metadata":{"labels":{"$patch":"delete"}}})",
       R"({"metadata":{"name":"p","labels":{}}})"},
      {"$patch: replace at the top level replaces the object", "ConfigMap",
       R"({"metadata":{"name":"c"},"data":{"a":"1"}})", R"({"$patch":"replace","data":{"b":"2"}})",
       R"({"data":{"b":"2"}})"},
      {"ports merge by containerPort; a new port follows the ones already there", "Pod",
       R"({"spec":{"containers":[{"name":"app","ports":[{"containerPort":80,"name":"http"},
                                                         {"containerPort":443,"name":"https"}]}]}})",
       R"({"spec":{"containers":[{"name":"app","ports":[{"containerPort":443,"name":"tls"},
                                                         {"containerPort":8080}]}]}})",
       R"({"spec":{"containers":[{"name":"app","ports":[{"containerPort":80,"name":"http"},
           {"containerPort":443,"name":"tls"},{"containerPort":8080}]}]}})"},
      {"env merges by name inside the container it belongs to", "Deployment",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"app",
           "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},{"name":"other"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"app",
           "env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"app",
           "env":[{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}]},
           {"name":"other"}]}}}})"},
      {"volumes merge by name; $retainKeys swaps the volume source", "Pod",
       R"({"spec":{"volumes":[{"name":"data","hostPath":{"path":"/d"}},
                              {"name":"cfg","configMap":{"name":"c"}}]}})",
       R"({"spec":{"volumes":[{"$retainKeys":["emptyDir","name"],"emptyDir":{},"name":"data"}]}})",
       R"({"spec":{"volumes":[{"name":"data","emptyDir":{}},
                              {"name":"cfg","configMap":{"name":"c"}}]}})"},
      {"$retainKeys on the Deployment strategy drops rollingUpdate", "Deployment",
       R"({"spec":{"strategy":{"type":"RollingUpdate",
           "rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}})",
       R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":null,"type":"Recreate"}}})",
       R"({"spec":{"strategy":{"type":"Recreate"}}})"},
      {"$retainKeys in a value the live object lacks is copied as it is", "Deployment",
       R"({"spec":{"replicas":1}})",
       R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
       R"({"spec":{"replicas":1,"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})"},
      {"finalizers merge as a set", "ConfigMap", R"({"metadata":{"finalizers":["a","b"]}})",
       R"({"metadata":{"finalizers":["b","c"]}})", R"({"metadata":{"finalizers":["a","b","c"]}})"},
      {"a finalizer new to the list comes first", "ConfigMap",
       R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"finalizers":["c"]}})",
       R"({"metadata":{"finalizers":["c","a"]}})"},
      {"$deleteFromPrimitiveList removes finalizers", "ConfigMap",
       R"({"metadata":{"finalizers":["a","b","c"]}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})",
       R"({"metadata":{"finalizers":["a","c"]}})"},
      {"kubectl apply on finalizers: order, additions and deletions together", "ConfigMap",
       R"({"metadata":{"finalizers":["a","b"]}})",
       R"({"metadata":{"$setElementOrder/finalizers":["a","c"],
                       "$deleteFromPrimitiveList/finalizers":["b"],"finalizers":["c"]}})",
       R"({"metadata":{"finalizers":["a","c"]}})"},
      {"$deleteFromPrimitiveList for a list the live object lacks adds nothing (since 1.23)",
       "ConfigMap", R"({"metadata":{"name":"c"}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}})",
       R"({"metadata":{"name":"c"}})"},
      {"$setElementOrder with a list the live object lacks", "Pod", R"({"spec":{}})",
       R"({"spec":{"$setElementOrder/initContainers":[{"name":"i"},{"name":"j"}],
                   "initContainers":[{"name":"i","image":"busybox"},{"name":"j"}]}})",
       R"({"spec":{"initContainers":[{"name":"i","image":"busybox"},{"name":"j"}]}})"},
      {"service ports merge by port", "Service",
       R"({"spec":{"type":"ClusterIP","ports":[
           {"name":"http","port":80,"protocol":"TCP","targetPort":8080},
           {"name":"https","port":443,"protocol":"TCP","targetPort":8443}]}})",
       R"({"spec":{"type":"NodePort","ports":[{"port":80,"targetPort":9090}]}})",
       R"({"spec":{"type":"NodePort","ports":[
           {"name":"http","port":80,"protocol":"TCP","targetPort":9090},
           {"name":"https","port":443,"protocol":"TCP","targetPort":8443}]}})"},
      {"a value whose JSON type changes is replaced", "Deployment",
       R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%"}},"template":{"metadata":{}}}})",
       R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":1}},"template":{"metadata":"x"}}})",
       R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":1}},"template":{"metadata":"x"}}})"},
      {"patch strategy replace (PodDisruptionBudget selector) replaces the object",
       "PodDisruptionBudget", R"({"spec":{"selector":{"matchLabels":{"a":"1"}},"minAvailable":1}})",
       R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})",
       R"({"spec":{"selector":{"matchLabels":{"b":"2"}},"minAvailable":1}})"},
      {"ownerReferences merge by uid", "ConfigMap",
       R"({"metadata":{"ownerReferences":[{"uid":"1","name":"a"},{"uid":"2","name":"b"}]}})",
       R"({"metadata":{"ownerReferences":[{"uid":"2","name":"c"}]}})",
       R"({"metadata":{"ownerReferences":[{"uid":"1","name":"a"},{"uid":"2","name":"c"}]}})"},
      {"without a schema objects merge and lists are replaced", "",
       R"({"a":{"b":1,"c":[1,2]},"d":[{"name":"x"}]})",
       R"({"a":{"c":[3],"e":null},"d":[{"name":"y"}]})",
       R"({"a":{"b":1,"c":[3]},"d":[{"name":"y"}]})"},
      {"a null patch changes nothing", "ConfigMap", R"({"data":{"a":"1"}})", "null",
       R"({"data":{"a":"1"}})"},
  }));
  CAPTURE(row.description, row.patch);
  auto result = apply(row.kind, row.original, row.patch);
  if (auto* error = std::get_if<SmpError>(&result)) {
    FAIL_CHECK(kind_name(error->kind) << ": " << error->message);
    return;
  }
  CHECK(std::get<json>(result).dump() == json::parse(row.expected).dump());
}

TEST_CASE("strategic merge patch errors carry upstream's text", "[smp]") {
  auto row = GENERATE(values<Failure>({
      {"an unknown $patch in an object", "Pod", R"({"metadata":{"labels":{"x":"1"}}})",
       R"({"metadata":{"labels":{"$patch":"foo","a":"1"}}})", SmpErrorKind::Internal,
       "unknown patch type: foo in map: map[$patch:foo a:1]"},
      {"an unknown $patch that is not a string", "Pod", R"({"metadata":{"labels":{"x":"1"}}})",
       R"({"metadata":{"labels":{"$patch":5}}})", SmpErrorKind::Internal,
       "unknown patch type: %!s(int64=5) in map: map[$patch:5]"},
      {"$patch: merge in an object", "Pod", R"({"metadata":{"labels":{"x":"1"}}})",
       R"({"metadata":{"labels":{"$patch":"merge"}}})", SmpErrorKind::Internal,
       "unknown patch type: merge in map: map[$patch:merge]"},
      {"an unknown $patch in a list item", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"name":"a","$patch":"foo"}]}})", SmpErrorKind::Internal,
       "unknown patch type: foo in map: map[$patch:foo name:a]"},
      {"$patch: merge in a list item", "Pod", R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"name":"b","$patch":"merge"}]}})", SmpErrorKind::Internal,
       "merging lists cannot yet be specified in the patch"},
      {"a container without its merge key", "Pod",
       R"({"spec":{"containers":[{"name":"a","image":"x"}]}})",
       R"({"spec":{"containers":[{"image":"nginx"}]}})", SmpErrorKind::Internal,
       "map: map[image:nginx] does not contain declared merge key: name"},
      {"a delete directive without the merge key", "Pod",
       R"({"spec":{"containers":[{"name":"a"}]}})",
       R"({"spec":{"containers":[{"$patch":"delete"}]}})", SmpErrorKind::Internal,
       "map: map[$patch:delete] does not contain declared merge key: name"},
      {"a port without containerPort renders numbers as Go does", "Pod",
       R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}})",
       R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":8080,"x":1000000.0,"y":0.5,
           "z":null}]}]}})",
       SmpErrorKind::Internal,
       "map: map[hostPort:8080 x:1e+06 y:0.5 z:<nil>] does not contain declared merge key: "
       "containerPort"},
      {"$retainKeys that is not a list", "Deployment", R"({"spec":{"strategy":{}}})",
       R"({"spec":{"strategy":{"$retainKeys":"type"}}})", SmpErrorKind::BadRequest,
       "invalid patch format of retainKeys"},
      {"$retainKeys missing a key the patch sets", "Deployment",
       R"({"spec":{"strategy":{"type":"RollingUpdate"}}})",
       R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"RollingUpdate",
           "rollingUpdate":{"maxSurge":1}}}})",
       SmpErrorKind::BadRequest, "invalid patch format of retainKeys"},
      {"$deleteFromPrimitiveList without a field", "ConfigMap",
       R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"$deleteFromPrimitiveList":["a"]}})",
       SmpErrorKind::BadRequest, "invalid patch format of primitive list"},
      {"$setElementOrder without a field", "Pod", R"({"spec":{}})",
       R"({"spec":{"$setElementOrder":[]}})", SmpErrorKind::BadRequest,
       "invalid patch format of setElementOrder list"},
      {"$setElementOrder that is not a list", "Pod", R"({"spec":{}})",
       R"({"spec":{"$setElementOrder/containers":"x"}})", SmpErrorKind::Internal,
       "expected a []interface {}, but received a string"},
      {"a patch list out of the $setElementOrder order", "Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
       R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],
                   "containers":[{"name":"b","image":"x"}]}})",
       SmpErrorKind::Internal,
       "The order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder "
       "list:\n[map[name:a]]\n"},
      {"$setElementOrder for a field PodSpec does not have", "Pod", R"({"spec":{}})",
       R"({"spec":{"$setElementOrder/nope":[]}})", SmpErrorKind::Internal,
       "unable to find api field in struct PodSpec for the json field \"nope\""},
      {"$setElementOrder for a field that is not a list", "Pod", R"({"spec":{}})",
       R"({"spec":{"$setElementOrder/nodeName":[]}})", SmpErrorKind::Internal,
       "expected slice or array type, but got: struct"},
      {"a list of lists", "ConfigMap", R"({"metadata":{"finalizers":[]}})",
       R"({"metadata":{"finalizers":[["a"]]}})", SmpErrorKind::Unprocessable,
       "lists of lists are not supported"},
      {"list items of different types", "ConfigMap", R"({"metadata":{"finalizers":["a"]}})",
       R"({"metadata":{"finalizers":[1]}})", SmpErrorKind::Internal,
       "list element types are not identical: [[a] [1]]"},
      {"objects in a list of strings with merge strategy", "ConfigMap",
       R"({"metadata":{"finalizers":[]}})", R"({"metadata":{"finalizers":[{"a":1}]}})",
       SmpErrorKind::Internal, "cannot merge lists without merge key for string"},
      {"nested objects inside a RawExtension", "ControllerRevision", R"({"data":{"spec":{"a":1}}})",
       R"({"data":{"spec":{"b":2}}})", SmpErrorKind::Internal,
       "unable to find api field in struct RawExtension for the json field \"spec\""},
      {"a patch body that is not an object", "Pod", R"({})", R"([])", SmpErrorKind::BadRequest,
       "json: cannot unmarshal array into Go value of type map[string]interface {}"},
      {"$setElementOrder on a list of objects without merge key panics upstream", "Pod",
       R"({"spec":{"tolerations":[{"key":"a"}]}})",
       R"({"spec":{"$setElementOrder/tolerations":[{"key":"a"}],"tolerations":[{"key":"a"}]}})",
       SmpErrorKind::Panic, "runtime error: comparing uncomparable type map[string]interface {}"},
      {"$retainKeys holding an object panics upstream", "Deployment", R"({"spec":{"strategy":{}}})",
       R"({"spec":{"strategy":{"$retainKeys":[{"a":1}]}}})", SmpErrorKind::Panic,
       "runtime error: hash of unhashable type map[string]interface {}"},
  }));
  CAPTURE(row.description, row.patch);
  auto result = apply(row.kind, row.original, row.patch);
  if (auto* merged = std::get_if<json>(&result)) {
    FAIL_CHECK("merged: " << merged->dump());
    return;
  }
  const SmpError& error = std::get<SmpError>(result);
  CHECK(kind_name(error.kind) == kind_name(row.error_kind));
  CHECK(error.message == row.message);
}

TEST_CASE("errors map to kube-apiserver's status codes", "[smp]") {
  auto bad = to_http_status({SmpErrorKind::BadRequest, "invalid patch format of retainKeys"});
  CHECK(bad.code == 400);
  CHECK(bad.reason == "BadRequest");
  CHECK(bad.message == "invalid patch format of retainKeys");
  CHECK_FALSE(bad.empty_details);
  CHECK_FALSE(bad.plain_text);

  auto invalid = to_http_status({SmpErrorKind::Unprocessable, "lists of lists are not supported"});
  CHECK(invalid.code == 422);
  CHECK(invalid.reason == "Invalid");
  CHECK(invalid.message == "the server rejected our request due to an error in our request");
  CHECK(invalid.empty_details);

  auto internal = to_http_status({SmpErrorKind::Internal,
                                  "map: map[a:1] does not contain declared merge "
                                  "key: name"});
  CHECK(internal.code == 500);
  CHECK(internal.reason.empty());
  CHECK(internal.message == "map: map[a:1] does not contain declared merge key: name");

  auto panic = to_http_status({SmpErrorKind::Panic, "runtime error"});
  CHECK(panic.code == 500);
  CHECK(panic.plain_text);
  CHECK(panic.message == "This request caused apiserver to panic. Look in the logs for details.\n");
}

TEST_CASE("the inputs are left untouched", "[smp]") {
  const json original = json::parse(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})");
  const json patch = json::parse(
      R"({"spec":{"$setElementOrder/containers":[{"name":"b"}],
                  "containers":[{"name":"a","$patch":"delete"}]}})");
  const json original_copy = original;
  const json patch_copy = patch;
  auto result =
      apply_strategic_merge_patch(SchemaIndex::builtin(), schema_of("Pod"), original, patch);
  REQUIRE(std::holds_alternative<json>(result));
  CHECK(std::get<json>(result) == json::parse(R"({"spec":{"containers":[{"name":"b"}]}})"));
  CHECK(original == original_copy);
  CHECK(patch == patch_copy);
}

TEST_CASE("$setElementOrder orders long lists (Go's stable merge sort past 20 items)", "[smp]") {
  json containers = json::array();
  json reversed = json::array();
  json order = json::array();
  for (int i = 0; i < 45; ++i) {
    containers.push_back({{"name", "c" + std::to_string(i)}});
  }
  for (int i = 44; i >= 0; --i) {
    std::string name = "c" + std::to_string(i);
    reversed.push_back({{"name", name}});
    order.push_back({{"name", name}});
  }
  // Every item is in the patch too, so the merged list is sorted by the order alone.
  json patch = {{"spec", {{"$setElementOrder/containers", order}, {"containers", reversed}}}};
  auto result = apply_strategic_merge_patch(SchemaIndex::builtin(), schema_of("Pod"),
                                            {{"spec", {{"containers", containers}}}}, patch);
  REQUIRE(std::holds_alternative<json>(result));
  CHECK(std::get<json>(result)["spec"]["containers"] == reversed);
}
