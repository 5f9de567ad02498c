#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "protobuf/decode.h"
#include "protobuf_writer.h"

using apiserver::protobuf::decode_k8s_protobuf;
using apiserver::testing::field_bytes;
using apiserver::testing::field_varint;
using apiserver::testing::k8s_body;
using apiserver::testing::varint;
using nlohmann::json;

// tests/unit/apiserver/data/protobuf/NAME.pb is the body kubectl v1.32 POSTed for one command
// (captured from a local HTTP listener that served minimal discovery), NAME.json what the same
// command prints with --dry-run=client -o json: Go's JSON encoding of the same object.

namespace {

json decode_ok(std::string_view body) {
  auto out = decode_k8s_protobuf(body);
  INFO((out ? "" : out.error()));
  REQUIRE(out.ok());
  return *out;
}

std::string decode_error(std::string_view body) {
  auto out = decode_k8s_protobuf(body);
  REQUIRE_FALSE(out.ok());
  return out.error();
}

}  // namespace

TEST_CASE("kubectl 1.32 protobuf create bodies decode to the JSON kubectl would send",
          "[protobuf]") {
  const std::string name =
      GENERATE(as<std::string>{}, "configmap_literal", "configmap_file", "secret_generic",
               "namespace", "deployment", "deployment_zero", "service_clusterip", "service_named",
               "job", "cronjob", "serviceaccount", "role", "pdb", "priorityclass");
  CAPTURE(name);
  const json expected = json::parse(apiserver::testing::read_protobuf_data(name + ".json"));
  const json decoded = decode_ok(apiserver::testing::read_protobuf_data(name + ".pb"));
  CHECK(decoded.dump() == expected.dump());
}

TEST_CASE("decoded kubectl bodies carry the expected values", "[protobuf]") {
  SECTION("configmap --from-literal keeps an empty value") {
    const json cm = decode_ok(apiserver::testing::read_protobuf_data("configmap_literal.pb"));
    CHECK(cm.at("apiVersion") == "v1");
    CHECK(cm.at("kind") == "ConfigMap");
    CHECK(cm.at("metadata") == json::parse(R"({"name":"game-config","creationTimestamp":null})"));
    CHECK(cm.at("data") == json::parse(R"({"a":"b","empty":""})"));
    CHECK_FALSE(cm.contains("binaryData"));
    CHECK_FALSE(cm.contains("immutable"));
  }
  SECTION("configmap --from-file puts non-UTF-8 files in binaryData, base64") {
    const json cm = decode_ok(apiserver::testing::read_protobuf_data("configmap_file.pb"));
    CHECK(cm.at("data") == json::parse(R"({"text.txt":"hello\n"})"));
    CHECK(cm.at("binaryData") == json::parse(R"({"bin.dat":"AP/+Ymlu"})"));
  }
  SECTION("secret data is base64") {
    const json s = decode_ok(apiserver::testing::read_protobuf_data("secret_generic.pb"));
    CHECK(s.at("data") == json::parse(R"({"pass":"czNjcjN0","user":"YWRtaW4="})"));
    CHECK_FALSE(s.contains("type"));  // kubectl leaves it empty; omitempty drops it
  }
  SECTION("deployment: pointer replicas kept at 0, value structs present") {
    const json d = decode_ok(apiserver::testing::read_protobuf_data("deployment_zero.pb"));
    CHECK(d.at("apiVersion") == "apps/v1");
    CHECK(d.at("spec").at("replicas") == 0);
    CHECK(d.at("spec").at("strategy") == json::object());
    CHECK(d.at("status") == json::object());
    const json& c = d.at("spec").at("template").at("spec").at("containers").at(0);
    CHECK(c.at("command") == json::parse(R"(["sleep","3600"])"));
    CHECK(c.at("resources") == json::object());
  }
  SECTION("service: IntOrString targetPort as number and as name") {
    CHECK(decode_ok(apiserver::testing::read_protobuf_data("service_clusterip.pb"))
              .at("spec")
              .at("ports")
              .at(0) ==
          json::parse(R"({"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080})"));
    CHECK(decode_ok(apiserver::testing::read_protobuf_data("service_named.pb"))
              .at("spec")
              .at("ports")
              .at(0)
              .at("targetPort") == "https");
  }
  SECTION("pdb: IntOrString percentage") {
    CHECK(
        decode_ok(apiserver::testing::read_protobuf_data("pdb.pb")).at("spec").at("minAvailable") ==
        "50%");
  }
  SECTION("auth can-i sends a SelfSubjectAccessReview") {
    const json r = decode_ok(apiserver::testing::read_protobuf_data("can_i.pb"));
    CHECK(r.at("apiVersion") == "authorization.k8s.io/v1");
    CHECK(r.at("kind") == "SelfSubjectAccessReview");
    CHECK(r.at("spec") == json::parse(R"({"resourceAttributes":
        {"namespace":"default","verb":"create","resource":"pods"}})"));
    CHECK(r.at("status") == json::parse(R"({"allowed":false})"));
  }
}

TEST_CASE("special types decode to their Go JSON forms", "[protobuf]") {
  SECTION("Time, Quantity map values, IntOrString string, inline probe handler") {
    const std::string creation = field_varint(1, 1700000000) + field_varint(2, 999);
    const std::string meta = field_bytes(1, "p") + field_bytes(8, creation);
    const std::string quantity = field_bytes(1, "500m");
    const std::string limits = field_bytes(1, "cpu") + field_bytes(2, quantity);
    const std::string port = field_varint(1, 1) + field_bytes(3, "http");
    const std::string probe = field_bytes(1, field_bytes(2, field_bytes(2, port)));
    const std::string container =
        field_bytes(1, "c") + field_bytes(8, field_bytes(1, limits)) + field_bytes(10, probe);
    const std::string pod = field_bytes(1, meta) + field_bytes(2, field_bytes(2, container));
    const json p = decode_ok(k8s_body("v1", "Pod", pod));
    CHECK(p.at("metadata").at("creationTimestamp") == "2023-11-14T22:13:20Z");
    const json& c = p.at("spec").at("containers").at(0);
    CHECK(c.at("resources") == json::parse(R"({"limits":{"cpu":"500m"}})"));
    CHECK(c.at("livenessProbe") == json::parse(R"({"httpGet":{"port":"http"}})"));
    CHECK(p.at("status") == json::object());
  }
  SECTION("MicroTime keeps microseconds") {
    const std::string when = field_varint(1, 1700000000) + field_varint(2, 123456789);
    const json e = decode_ok(k8s_body("events.k8s.io/v1", "Event", field_bytes(2, when)));
    CHECK(e.at("eventTime") == "2023-11-14T22:13:20.123456Z");
    CHECK(e.at("metadata") == json::parse(R"({"creationTimestamp":null})"));
    CHECK(e.at("regarding") == json::object());
  }
  SECTION("RawExtension embeds its JSON; a non-omitempty int64 stays at 0") {
    const std::string raw = field_bytes(1, R"({"spec":{"x":1}})");
    const json r = decode_ok(k8s_body("apps/v1", "ControllerRevision", field_bytes(2, raw)));
    CHECK(r.at("data") == json::parse(R"({"spec":{"x":1}})"));
    CHECK(r.at("revision") == 0);
  }
  SECTION("negative int32 and unknown field numbers") {
    const std::string spec = field_varint(1, static_cast<std::uint64_t>(-5)) +
                             field_varint(999, 7) + field_bytes(998, "junk");
    const json d = decode_ok(k8s_body("apps/v1", "Deployment", field_bytes(2, spec)));
    CHECK(d.at("spec").at("replicas") == -5);
  }
  SECTION("invalid UTF-8 in a string becomes U+FFFD, as Go's JSON encoder writes it") {
    const json n = decode_ok(k8s_body("v1", "Namespace", field_bytes(1, field_bytes(1, "a\xff"))));
    CHECK(n.at("metadata").at("name") == "a\xEF\xBF\xBD");
    CHECK_NOTHROW(n.dump());
  }
}

TEST_CASE("malformed protobuf bodies are errors, never crashes", "[protobuf]") {
  const std::string good = apiserver::testing::read_protobuf_data("deployment.pb");
  SECTION("wrong or missing magic") {
    CHECK(decode_error("") == "protobuf: body does not start with the \"k8s\\x00\" prefix");
    CHECK(decode_error("{\"kind\":\"Pod\"}") ==
          "protobuf: body does not start with the \"k8s\\x00\" prefix");
    CHECK(decode_error(std::string("k8s\1", 4) + good.substr(4)) ==
          "protobuf: body does not start with the \"k8s\\x00\" prefix");
  }
  SECTION("every truncation of a real body fails or decodes, without crashing") {
    for (std::size_t n = 0; n < good.size(); ++n) {
      (void)decode_k8s_protobuf(std::string_view(good).substr(0, n));
    }
    // The last field is an empty contentType: its length byte is what goes missing.
    CHECK(decode_error(good.substr(0, good.size() - 1)) ==
          "protobuf: runtime.Unknown: truncated field 4");
    CHECK(decode_error(good.substr(0, 40)) == "protobuf: runtime.Unknown: truncated field 2");
  }
  SECTION("every single-byte corruption fails or decodes, without crashing") {
    for (std::size_t i = 4; i < good.size(); ++i) {
      for (int v : {0x00, 0x7F, 0x80, 0xFF}) {
        std::string bad = good;
        bad[i] = static_cast<char>(v);
        auto out = decode_k8s_protobuf(bad);
        if (out) {
          CHECK_NOTHROW(out->dump());
        } else {
          CHECK(out.error().rfind("protobuf: ", 0) == 0);
        }
      }
    }
  }
  SECTION("huge length prefixes") {
    const std::string huge = std::string("k8s\0", 4) + "\x12" + varint(UINT64_MAX >> 1);
    CHECK(decode_error(huge) == "protobuf: runtime.Unknown: truncated field 2");
    const std::string inner = std::string("\x12") + varint(1ULL << 40) + "x";
    CHECK(decode_error(k8s_body("v1", "ConfigMap", inner)) ==
          "protobuf: k8s.io.api.core.v1.ConfigMap.data: malformed map entry");
    const std::string too_long_varint = std::string("k8s\0", 4) + std::string(11, '\xFF');
    CHECK(decode_error(too_long_varint) == "protobuf: runtime.Unknown: truncated tag");
  }
  SECTION("deep nesting stops at the depth limit") {
    // The built-in message graph has no cycles (at most 15 levels), so the deepest nesting a
    // body can carry is JSON inside a RawExtension; it counts into the same limit.
    const std::string deep = std::string(150, '[') + std::string(150, ']');
    const std::string error = decode_error(
        k8s_body("apps/v1", "ControllerRevision", field_bytes(2, field_bytes(1, deep))));
    CHECK(error ==
          "protobuf: k8s.io.apimachinery.pkg.runtime.RawExtension: nesting deeper than 100");
    const std::string shallow = std::string(50, '[') + std::string(50, ']');
    CHECK(decode_ok(
              k8s_body("apps/v1", "ControllerRevision", field_bytes(2, field_bytes(1, shallow))))
              .at("data")
              .is_array());
  }
  SECTION("kinds without protobuf facts and bad content encodings") {
    CHECK(decode_error(k8s_body("v1", "Nope", "")) ==
          "protobuf: no protobuf message for apiVersion \"v1\" kind \"Nope\"");
    CHECK(decode_error(k8s_body("apiextensions.k8s.io/v1", "CustomResourceDefinition", "")) ==
          "protobuf: no protobuf message for apiVersion \"apiextensions.k8s.io/v1\" kind "
          "\"CustomResourceDefinition\"");
    const std::string type_meta = field_bytes(1, "v1") + field_bytes(2, "Namespace");
    const std::string gz = std::string("k8s\0", 4) + field_bytes(1, type_meta) +
                           field_bytes(2, "") + field_bytes(3, "gzip");
    CHECK(decode_error(gz) == "protobuf: unsupported contentEncoding \"gzip\"");
    CHECK(decode_error(std::string("k8s\0", 4)) ==
          "protobuf: runtime.Unknown has no apiVersion or kind");
  }
  SECTION("wire type mismatches and bad special values") {
    CHECK(decode_error(k8s_body("v1", "Namespace", field_varint(1, 3))) ==
          "protobuf: k8s.io.api.core.v1.Namespace.metadata: wire type 0 does not match the "
          "field's type");
    const std::string raw = field_bytes(1, "not json");
    CHECK(decode_error(k8s_body("apps/v1", "ControllerRevision", field_bytes(2, raw))) ==
          "protobuf: k8s.io.apimachinery.pkg.runtime.RawExtension: raw bytes are not JSON");
    const std::string when = field_varint(1, 1ULL << 40);
    CHECK(decode_error(k8s_body("events.k8s.io/v1", "Event", field_bytes(2, when))) ==
          "protobuf: k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime: year outside [0,9999]");
    CHECK(decode_error(std::string(apiserver::protobuf::kMaxProtobufBodyBytes + 1, 'k')) ==
          "protobuf: body larger than 4194304 bytes");
  }
}
