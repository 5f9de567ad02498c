// Decode errors of request bodies: the texts of Go's encoding/json type errors (with the
// decoder's struct field context), of the types with their own decoders (Quantity, metav1.Time,
// MicroTime, IntOrString) and of []byte's base64, as kube-apiserver v1.32 passes them on.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "registry/field_validation.h"
#include "registry/go_values.h"

using apiserver::registry::FieldValidator;
using apiserver::registry::go_base64_error;
using apiserver::registry::go_quantity_error;
using apiserver::registry::go_time_error;

namespace {

const FieldValidator& validator() {
  static const FieldValidator kValidator;
  return kValidator;
}

std::string decode_error(const std::string& group, const std::string& kind,
                         const std::string& body, bool yaml_converted = false) {
  auto report = validator().inspect(group, "v1", kind, body, yaml_converted);
  return report.decode_error ? report.decode_error->message : std::string("<none>");
}

std::string core(const std::string& kind, const std::string& body) {
  return decode_error("", kind, body);
}

}  // namespace

TEST_CASE("a value of the wrong JSON type names the innermost struct and the field path",
          "[decode]") {
  CHECK(core("ConfigMap", R"({"data":{"a":[1,2]}})") ==
        "json: cannot unmarshal array into Go struct field ConfigMap.data of type string");
  CHECK(core("ConfigMap", R"({"data":[1]})") ==
        "json: cannot unmarshal array into Go struct field ConfigMap.data of type "
        "map[string]string");
  CHECK(core("ConfigMap", R"({"metadata":"x"})") ==
        "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type "
        "v1.ObjectMeta");
  CHECK(core("ConfigMap", R"({"immutable":"yes"})") ==
        "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool");
  CHECK(core("Pod", R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}})") ==
        "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports."
        "containerPort of type int32");
  CHECK(core("Pod", R"({"spec":{"containers":{"name":"a"}}})") ==
        "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type "
        "[]v1.Container");
  CHECK(core("Pod", R"({"spec":{"containers":["a"]}})") ==
        "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type "
        "v1.Container");
  CHECK(decode_error("apps", "Deployment", R"({"spec":{"replicas":1.5}})") ==
        "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of "
        "type int32");
  CHECK(decode_error("apps", "Deployment", R"({"spec":{"replicas":3000000000}})") ==
        "json: cannot unmarshal number 3000000000 into Go struct field "
        "DeploymentSpec.spec.replicas of type int32");
  CHECK(core("Pod", R"({"spec":{"terminationGracePeriodSeconds":3000000000}})") == "<none>");
  CHECK(core("Pod", R"({"metadata":{"labels":{"a":1}}})") ==
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type "
        "string");
}

TEST_CASE("the first saved error wins unless a type with its own decoder fails", "[decode]") {
  CHECK(core("ConfigMap", R"({"data":{"a":1,"b":true}})") ==
        "json: cannot unmarshal number into Go struct field ConfigMap.data of type string");
  // The Quantity ends the decode after the saved error on data.
  CHECK(core("Pod", R"({"metadata":{"labels":{"a":1}},"spec":{"containers":[{"name":"c",
      "resources":{"limits":{"cpu":"lots"}}}]}})") ==
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  SECTION("YAML bodies are walked in sorted key order") {
    CHECK(decode_error("", "ConfigMap", R"({"data":{"b":true,"a":1}})", true) ==
          "json: cannot unmarshal number into Go struct field ConfigMap.data of type string");
  }
}

TEST_CASE("null decodes into anything and valid bodies have no decode error", "[decode]") {
  CHECK(core("ConfigMap", R"({"data":null,"immutable":null,"metadata":{"labels":{"a":null}}})") ==
        "<none>");
  CHECK(core("Service", R"({"spec":{"ports":[{"port":1,"targetPort":"http"},{"port":2,
      "targetPort":8080}]}})") == "<none>");
  CHECK(core("Secret", R"({"data":{"a":"aGVsbG8=","b":"aGk=\n"}})") == "<none>");
  CHECK(core("Event", R"({"eventTime":"2024-01-01T00:00:00.123456Z",
      "lastTimestamp":"2024-02-29T23:59:59+01:00"})") == "<none>");
}

TEST_CASE("IntOrString, Time and base64 values", "[decode]") {
  CHECK(core("Service", R"({"spec":{"ports":[{"port":1,"targetPort":{"a":1}}]}})") ==
        "json: cannot unmarshal object into Go struct field ServicePort.spec.ports.targetPort of "
        "type int32");
  CHECK(core("Service", R"({"spec":{"ports":[{"port":1,"targetPort":1.5}]}})") ==
        "json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.targetPort "
        "of type int32");
  CHECK(core("Event", R"({"lastTimestamp":5})") ==
        "json: cannot unmarshal number into Go struct field Event.lastTimestamp of type string");
  CHECK(core("Event", R"({"lastTimestamp":"yesterday"})") ==
        R"(parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006")");
  CHECK(core("Secret", R"({"data":{"a":"not base64!"}})") ==
        "illegal base64 data at input byte 3");
}

TEST_CASE("decode errors carry the value's path, pointer and schema type", "[decode]") {
  auto report = validator().inspect("", "v1", "Pod",
                                    R"({"spec":{"containers":[{"name":"a"},{"name":"b",
                                        "env":[{"name":"x","value":7}]}]}})");
  REQUIRE(report.decode_error);
  CHECK(report.decode_error->path == "spec.containers[1].env[0].value");
  CHECK(report.decode_error->pointer == "/spec/containers/1/env/0/value");
  CHECK(report.decode_error->expected == "string");
  CHECK(report.decode_error->bare_message ==
        "json: cannot unmarshal number into Go value of type string");
}

TEST_CASE("base64 error offsets", "[decode]") {
  struct Case {
    const char* text;
    std::optional<std::string> error;
  };
  const Case cases[] = {
      {"", std::nullopt},
      {"aGVsbG8=", std::nullopt},
      {"aGk=", std::nullopt},
      {"aG\r\nVs", std::nullopt},
      {"abc", "illegal base64 data at input byte 0"},
      {"abcde", "illegal base64 data at input byte 4"},
      {"ab!d", "illegal base64 data at input byte 2"},
      {"a===", "illegal base64 data at input byte 1"},
      {"ab=", "illegal base64 data at input byte 3"},
      {"ab=x", "illegal base64 data at input byte 2"},
      {"aGk=aGk=", "illegal base64 data at input byte 4"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(go_base64_error(c.text) == c.error);
  }
}

TEST_CASE("quantity texts", "[decode]") {
  const std::string format =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  for (const char* good : {"1", "0", "-1.5", "+2", "500m", "1Gi", "1.5Ei", "1e3", "2E-2", " 3 ",
                           "128974848", "12e6", "1.", "-"}) {
    CAPTURE(good);
    CHECK_FALSE(go_quantity_error(good));
  }
  for (const char* bad : {"", "abc", "5Mb", "1 Gi", "{", "true", "1.2.3"}) {
    CAPTURE(bad);
    CHECK(go_quantity_error(bad) == format);
  }
  for (const char* bad_suffix : {"1kk", "1e", "1Gii", "1iG"}) {
    CAPTURE(bad_suffix);
    CHECK(go_quantity_error(bad_suffix) == "unable to parse quantity's suffix");
  }
}

TEST_CASE("time texts", "[decode]") {
  const std::string layout = R"( as "2006-01-02T15:04:05Z07:00": cannot parse )";
  CHECK_FALSE(go_time_error("2024-01-01T00:00:00Z", false));
  CHECK_FALSE(go_time_error("2024-01-01T00:00:00.5+05:30", false));
  CHECK(go_time_error("2024-1-01T00:00:00Z", false) ==
        R"(parsing time "2024-1-01T00:00:00Z")" + layout + R"("1-01T00:00:00Z" as "01")");
  CHECK(go_time_error("2024-01-01 00:00:00Z", false) ==
        R"(parsing time "2024-01-01 00:00:00Z")" + layout + R"(" 00:00:00Z" as "T")");
  CHECK(go_time_error("2024-01-01T00:00:00", false) ==
        R"(parsing time "2024-01-01T00:00:00")" + layout + R"("" as "Z07:00")");
  CHECK(go_time_error("2024-13-01T00:00:00Z", false) ==
        R"(parsing time "2024-13-01T00:00:00Z": month out of range)");
  CHECK(go_time_error("2023-02-29T00:00:00Z", false) ==
        R"(parsing time "2023-02-29T00:00:00Z": day out of range)");
  CHECK(go_time_error("2024-01-01T00:00:00Zjunk", false) ==
        R"(parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk")");
  SECTION("MicroTime wants exactly six fraction digits") {
    CHECK_FALSE(go_time_error("2024-01-01T00:00:00.000001Z", true));
    CHECK(go_time_error("2024-01-01T00:00:00Z", true) ==
          R"(parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": )"
          R"(cannot parse "Z" as ".000000")");
  }
}
