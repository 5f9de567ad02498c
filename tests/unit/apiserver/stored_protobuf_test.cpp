// Objects that kube-apiserver stored as protobuf (its default --storage-media-type for built-in
// kinds) read through kube-sandbox as JSON: get, list and watch; a write stores JSON again; a
// value that does not decode is a 500 naming its key.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "ephemeral_store.h"
#include "protobuf/decode.h"
#include "protobuf/encode.h"
#include "protobuf_writer.h"
#include "test_api.h"
#include "watch_events.h"

using apiserver::testing::Api;
using apiserver::testing::field_bytes;
using apiserver::testing::field_varint;
using apiserver::testing::k8s_body;
using nlohmann::json;

namespace {

// A core/v1 ConfigMap as kube-apiserver stores it: ObjectMeta {1 name, 3 namespace, 5 uid,
// 8 creationTimestamp {1 seconds}} and one data entry {1 key, 2 value}; no resourceVersion.
std::string stored_config_map(const std::string& name, const std::string& value) {
  const std::string meta = field_bytes(1, name) + field_bytes(3, "default") +
                           field_bytes(5, "0b6f6f5e-3c1a-4d36-9a8e-2f0e8d1c7a01") +
                           field_bytes(8, field_varint(1, 1700000000));
  const std::string raw =
      field_bytes(1, meta) + field_bytes(2, field_bytes(1, "mode") + field_bytes(2, value));
  return k8s_body("v1", "ConfigMap", raw);
}

int64_t put(Api& api, const std::string& key, const std::string& value) {
  store::PutRequest request;
  request.key = key;
  request.value = value;
  auto written = api.db().put(request);
  REQUIRE(written.is_ok());
  return written->header.revision;
}

constexpr const char* kKey = "/registry/configmaps/default/from-kas";

}  // namespace

TEST_CASE("a ConfigMap kube-apiserver stored as protobuf is read as JSON", "[storage]") {
  Api api;
  const int64_t revision = put(api, kKey, stored_config_map("from-kas", "fast"));

  auto got = api.call("GET", "/api/v1/namespaces/default/configmaps/from-kas");
  REQUIRE(got.status == 200);
  CHECK(got.body["apiVersion"] == "v1");
  CHECK(got.body["kind"] == "ConfigMap");
  CHECK(got.body["data"] == json{{"mode", "fast"}});
  CHECK(got.body["metadata"]["uid"] == "0b6f6f5e-3c1a-4d36-9a8e-2f0e8d1c7a01");
  CHECK(got.body["metadata"]["creationTimestamp"] == "2023-11-14T22:13:20Z");
  CHECK(got.body["metadata"]["resourceVersion"] == std::to_string(revision));

  auto listed = api.call("GET", "/api/v1/namespaces/default/configmaps");
  REQUIRE(listed.status == 200);
  bool found = false;
  for (const auto& item : listed.body["items"]) {
    found = found || item["metadata"]["name"] == "from-kas";
  }
  CHECK(found);

  // a write through kube-sandbox stores JSON
  auto patched = api.patch("/api/v1/namespaces/default/configmaps/from-kas",
                           "application/merge-patch+json", R"({"data": {"mode": "safe"}})");
  REQUIRE(patched.status == 200);
  store::RangeRequest read;
  read.key = kKey;
  auto stored = api.db().range(read);
  REQUIRE(stored.is_ok());
  REQUIRE(stored->kvs.size() == 1);
  CHECK(json::parse(stored->kvs[0].value)["data"]["mode"] == "safe");
}

TEST_CASE("a watch delivers protobuf-stored changes as JSON, old values too", "[storage]") {
  Api api;
  put(api, kKey, stored_config_map("from-kas", "fast"));
  const std::string from = std::to_string(api.db().current_revision());
  auto stream =
      api.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + from);
  apiserver::testing::EventReader events(*stream);
  put(api, kKey, stored_config_map("from-kas", "slow"));
  auto modified = events.next();
  CHECK(modified["type"] == "MODIFIED");
  CHECK(modified["object"]["data"]["mode"] == "slow");
  store::DeleteRangeRequest del;
  del.key = kKey;
  REQUIRE(api.db().delete_range(del).is_ok());
  auto deleted = events.next();
  CHECK(deleted["type"] == "DELETED");
  CHECK(deleted["object"]["data"]["mode"] == "slow");  // the last state, from the previous value
}

TEST_CASE("a stored value that does not decode is a 500 that names its key", "[storage]") {
  Api api;
  put(api, kKey, std::string("k8s\0\x0a\x05", 6));
  auto got = api.call("GET", "/api/v1/namespaces/default/configmaps/from-kas");
  CHECK(got.status == 500);
  CHECK(got.body["message"].get<std::string>().find("unable to decode " + std::string(kKey)) !=
        std::string::npos);
}

namespace {

// An object's JSON without what differs between two servers (uid, times, resourceVersion).
json comparable(json object) {
  json& meta = object["metadata"];
  for (const char* field : {"uid", "creationTimestamp", "resourceVersion"}) {
    meta.erase(field);
  }
  if (meta.contains("managedFields")) {
    for (json& entry : meta["managedFields"]) {
      entry.erase("time");
    }
  }
  return object;
}

}  // namespace

TEST_CASE(
    "with --storage-media-type protobuf built-in kinds are stored as kube-apiserver stores them",
    "[storage]") {
  Api json_api;
  Api proto_api(nullptr, {}, [](apiserver::ApiServerConfig& c) {
    c.storage_media_type = "application/vnd.kubernetes.protobuf";
  });
  REQUIRE(proto_api
              .call("POST", "/api/v1/namespaces/default/configmaps",
                    apiserver::testing::configmap("cm"))
              .status == 201);
  store::RangeRequest read;
  read.key = "/registry/configmaps/default/cm";
  auto stored = proto_api.db().range(read);
  REQUIRE(stored.is_ok());
  REQUIRE(stored->kvs.size() == 1);
  CHECK(apiserver::protobuf::is_k8s_protobuf(stored->kvs[0].value));

  // Everything the bootstrap wrote (namespaces, the RBAC policy, PriorityClasses, the kubernetes
  // Service, ...) reads back from protobuf as the same objects in Go's JSON form: what the JSON
  // store holds, through the encoder and the decoder.
  for (const char* list : {"/api/v1/namespaces", "/api/v1/namespaces/default/services",
                           "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                           "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                           "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles",
                           "/apis/scheduling.k8s.io/v1/priorityclasses"}) {
    CAPTURE(list);
    auto from_json = json_api.call("GET", list);
    auto from_proto = proto_api.call("GET", list);
    REQUIRE(from_json.status == 200);
    REQUIRE(from_proto.status == 200);
    REQUIRE(from_json.body["items"].size() == from_proto.body["items"].size());
    REQUIRE_FALSE(from_json.body["items"].empty());
    const std::string kind = from_json.body["kind"].get<std::string>();
    for (size_t i = 0; i < from_json.body["items"].size(); ++i) {
      json item = from_json.body["items"][i];
      item["apiVersion"] = from_json.body["apiVersion"];
      item["kind"] = kind.substr(0, kind.size() - 4);  // "...List"
      auto encoded = apiserver::protobuf::encode_k8s_protobuf(item);
      REQUIRE(encoded.ok());
      json go_form = *apiserver::protobuf::decode_k8s_protobuf(*encoded);
      go_form.erase("apiVersion");
      go_form.erase("kind");
      CHECK(comparable(from_proto.body["items"][i]).dump() == comparable(go_form).dump());
    }
  }

  // a custom resource stays JSON, as upstream stores it
  REQUIRE(proto_api
              .call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1",
        "kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
        "spec":{"group":"example.com","scope":"Namespaced",
        "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
        "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})"))
              .status == 201);
  proto_api.settle();
  REQUIRE(proto_api
              .call("POST", "/apis/example.com/v1/namespaces/default/widgets",
                    {{"apiVersion", "example.com/v1"},
                     {"kind", "Widget"},
                     {"metadata", {{"name", "w"}}},
                     {"size", 3}})
              .status == 201);
  read.key = "/registry/example.com/widgets/default/w";
  auto widget = proto_api.db().range(read);
  REQUIRE(widget.is_ok());
  REQUIRE(widget->kvs.size() == 1);
  CHECK(json::parse(widget->kvs[0].value)["size"] == 3);
  // so does the CRD: the protobuf facts hold no apiextensions messages
  read.key = "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com";
  auto crd = proto_api.db().range(read);
  REQUIRE(crd.is_ok());
  REQUIRE(crd->kvs.size() == 1);
  CHECK_FALSE(apiserver::protobuf::is_k8s_protobuf(crd->kvs[0].value));
}

TEST_CASE("a stored value no one can decode leaves the server up, its resource's lists failing",
          "[storage]") {
  // An EndpointSlice that a v1.20 kube-apiserver stored at discovery.k8s.io/v1beta1, a version
  // v1.32 has no more: the aggregator follows EndpointSlices from the start.
  auto db = apiserver::testing::ephemeral_store();
  store::PutRequest old;
  old.key = "/registry/endpointslices/default/kubernetes";
  old.value = k8s_body("discovery.k8s.io/v1beta1", "EndpointSlice", field_bytes(1, ""));
  REQUIRE(db->put(old).is_ok());

  apiserver::ApiServerConfig config;
  config.tokens["t0ken"] = {"admin", {"system:masters"}};
  apiserver::ApiServer api(*db, config);
  api.bootstrap();
  api.set_ready(true);
  auto call = [&](const std::string& method, const std::string& target, const json& body) {
    auto request = apiserver::testing::make_request(method, target, body, "t0ken");
    auto response = api.handle(request);
    return std::pair{response.status, json::parse(response.body, nullptr, false)};
  };
  CHECK(call("GET", "/readyz", nullptr).first == 200);
  auto [status, body] = call("GET", "/apis/discovery.k8s.io/v1/endpointslices", nullptr);
  CHECK(status == 500);
  CHECK(body["message"].get<std::string>().find(
            "unable to decode /registry/endpointslices/default/kubernetes: protobuf: no protobuf "
            "message for apiVersion \"discovery.k8s.io/v1beta1\"") != std::string::npos);
  CHECK(call("POST", "/api/v1/namespaces/default/configmaps",
             apiserver::testing::configmap("still-serving"))
            .first == 201);
  CHECK(call("GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apps", nullptr).first == 200);
}
