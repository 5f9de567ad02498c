// The protobuf encoder (protobuf/encode.h): what it writes decodes back to the same JSON, for the
// objects kubectl 1.32 sends and for the special types; kinds without a message and values of
// the wrong JSON type are refused with the field's name.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "protobuf/decode.h"
#include "protobuf/encode.h"
#include "protobuf_writer.h"

using apiserver::protobuf::decode_k8s_protobuf;
using apiserver::protobuf::encode_k8s_protobuf;
using nlohmann::json;

namespace {

json round_trip(const json& object) {
  auto encoded = encode_k8s_protobuf(object);
  INFO((encoded ? "" : encoded.error()));
  REQUIRE(encoded.ok());
  CHECK(apiserver::protobuf::is_k8s_protobuf(*encoded));
  auto decoded = decode_k8s_protobuf(*encoded);
  INFO((decoded ? "" : decoded.error()));
  REQUIRE(decoded.ok());
  return *decoded;
}

}  // namespace

TEST_CASE("kubectl's objects encode to protobuf that decodes to the same JSON", "[protobuf]") {
  const std::string name =
      GENERATE(as<std::string>{}, "configmap_literal", "configmap_file", "secret_generic",
               "namespace", "deployment", "deployment_zero", "service_clusterip", "service_named",
               "job", "cronjob", "serviceaccount", "role", "pdb", "priorityclass");
  CAPTURE(name);
  const json object = json::parse(apiserver::testing::read_protobuf_data(name + ".json"));
  CHECK(round_trip(object).dump() == object.dump());
}

TEST_CASE("the special types take their Go JSON forms back", "[protobuf]") {
  // a stored Pod: times, quantities, int-or-string ports, managedFields, a pointer to zero
  const json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", "p"},
        {"namespace", "default"},
        {"uid", "5f0c0e6e-0000-4000-8000-000000000001"},
        {"creationTimestamp", "2026-11-27T10:00:00Z"},
        {"deletionGracePeriodSeconds", 0},
        {"labels", {{"app", "web"}}},
        {"managedFields",
         json::array(
             {{{"manager", "kubectl"},
               {"operation", "Apply"},
               {"apiVersion", "v1"},
               {"time", "2026-11-27T10:00:00Z"},
               {"fieldsType", "FieldsV1"},
               {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:app", json::object()}}}}}}}}})}}},
      {"spec",
       {{"containers",
         json::array({{{"name", "c"},
                       {"image", "nginx"},
                       {"resources", {{"limits", {{"cpu", "500m"}, {"memory", "128Mi"}}}}},
                       {"livenessProbe",
                        {{"httpGet", {{"path", "/"}, {"port", "http"}, {"scheme", "HTTP"}}},
                         {"periodSeconds", 10}}},
                       {"readinessProbe", {{"tcpSocket", {{"port", 8080}}}}}}})}}},
      {"status", {{"phase", "Pending"}}}};
  const json back = round_trip(pod);
  CHECK(back["metadata"]["creationTimestamp"] == "2026-11-27T10:00:00Z");
  CHECK(back["metadata"]["deletionGracePeriodSeconds"] == 0);
  CHECK(back["metadata"]["managedFields"] == pod["metadata"]["managedFields"]);
  const json& c = back["spec"]["containers"][0];
  CHECK(c["resources"]["limits"] == pod["spec"]["containers"][0]["resources"]["limits"]);
  CHECK(c["livenessProbe"]["httpGet"]["port"] == "http");
  CHECK(c["readinessProbe"]["tcpSocket"]["port"] == 8080);

  // MicroTime keeps microseconds (a Lease's renewTime)
  const json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", {{"name", "node-1"}, {"namespace", "kube-node-lease"}}},
                      {"spec",
                       {{"holderIdentity", "node-1"},
                        {"leaseDurationSeconds", 40},
                        {"renewTime", "2026-11-27T10:00:00.123456Z"}}}};
  CHECK(round_trip(lease)["spec"]["renewTime"] == "2026-11-27T10:00:00.123456Z");

  // RawExtension: a ControllerRevision's data
  const json revision = {{"apiVersion", "apps/v1"},
                         {"kind", "ControllerRevision"},
                         {"metadata", {{"name", "r"}}},
                         {"data", {{"spec", {{"template", {{"x", 1}}}}}}},
                         {"revision", 3}};
  CHECK(round_trip(revision)["data"] == revision["data"]);
}

TEST_CASE("kinds without a message and ill-typed values are refused", "[protobuf]") {
  CHECK(apiserver::protobuf::has_message("v1", "ConfigMap"));
  CHECK_FALSE(apiserver::protobuf::has_message("example.com/v1", "Widget"));
  auto custom = encode_k8s_protobuf({{"apiVersion", "example.com/v1"}, {"kind", "Widget"}});
  REQUIRE_FALSE(custom.ok());
  CHECK(custom.error() ==
        "protobuf: no protobuf message for apiVersion \"example.com/v1\" kind \"Widget\"");
  auto untyped = encode_k8s_protobuf(json::object());
  REQUIRE_FALSE(untyped.ok());
  CHECK(untyped.error() == "protobuf: the object has no apiVersion or kind");
  auto bad = encode_k8s_protobuf({{"apiVersion", "v1"},
                                  {"kind", "ConfigMap"},
                                  {"metadata", {{"name", "x"}}},
                                  {"data", {{"a", 5}}}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "protobuf: k8s.io.api.core.v1.ConfigMap.data: not a JSON string");
  auto when = encode_k8s_protobuf({{"apiVersion", "v1"},
                                   {"kind", "ConfigMap"},
                                   {"metadata", {{"name", "x"}, {"creationTimestamp", "today"}}}});
  REQUIRE_FALSE(when.ok());
  CHECK(when.error().find("not an RFC 3339 time") != std::string::npos);
}
