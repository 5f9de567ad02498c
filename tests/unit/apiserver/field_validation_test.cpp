// Expected texts and orders follow kube-apiserver v1.32's strict decoding (sigs.k8s.io/json,
// sigs.k8s.io/yaml strict conversion, the apiserver handlers' Strict / Warn handling); the
// Deployment cases mirror the shape of upstream's field validation integration test.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "endpoints/yaml_json.h"
#include "registry/field_validation.h"

using apiserver::registry::FieldValidator;
using apiserver::registry::strict_error_message;
using apiserver::registry::warning_headers;
using apiserver::registry::yaml_duplicate_keys;
using Problems = std::vector<std::string>;

namespace {

const FieldValidator& validator() {
  static const FieldValidator kValidator;
  return kValidator;
}

Problems core(const std::string& kind, const std::string& body) {
  return validator().check("", "v1", kind, body);
}

Problems apps(const std::string& kind, const std::string& body) {
  return validator().check("apps", "v1", kind, body);
}

const char* const kValidDeployment = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
               "annotations": {"note": "x", "deployment.kubernetes.io/revision": "1"},
               "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "o", "uid": "u"}],
               "managedFields": [{"manager": "kubectl", "operation": "Apply",
                                  "fieldsType": "FieldsV1",
                                  "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
  "spec": {
    "replicas": 2,
    "selector": {"matchLabels": {"app": "web"},
                 "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]},
    "strategy": {"type": "RollingUpdate",
                 "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "containers": [{
          "name": "web", "image": "nginx:1.27", "imagePullPolicy": "Always",
          "ports": [{"containerPort": 80, "protocol": "TCP"}],
          "env": [{"name": "A", "value": "1"},
                  {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
          "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": 1}},
          "readinessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 5},
          "livenessProbe": {"tcpSocket": {"port": 80}}
        }],
        "volumes": [{"name": "v", "emptyDir": {}}]
      }
    }
  },
  "status": {"replicas": 2, "conditions": [{"type": "Available", "status": "True",
                                            "lastUpdateTime": "2024-01-01T00:00:00Z"}]}
})";

}  // namespace

TEST_CASE("valid objects of several kinds have no field problems", "[fieldvalidation]") {
  CHECK(apps("Deployment", kValidDeployment).empty());
  CHECK(core("Pod", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"containers":[{"name":"c","image":"busybox","command":["sh","-c","true"]}],
              "nodeSelector":{"disk":"ssd"},"tolerations":[{"operator":"Exists"}]},
      "status":{"phase":"Running"}})")
            .empty());
  CHECK(core("ConfigMap", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
      "data":{"any.key":"v","other":"w"},"binaryData":{"b":"AAEC"},"immutable":false})")
            .empty());
  CHECK(core("Service", R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},
      "spec":{"selector":{"app":"web"},"type":"ClusterIP",
              "ports":[{"port":80,"targetPort":8080},
                       {"name":"h","port":81,"targetPort":"http"}]}})")
            .empty());
}

TEST_CASE("unknown and duplicate fields come back in decode order with upstream paths",
          "[fieldvalidation]") {
  const std::string body = R"({
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "first", "name": "web", "labels": {"app": "web"}, "unknownMeta": "x"},
    "spec": {
      "unknown1": "a",
      "unknownDupe": "b",
      "unknownDupe": "c",
      "paused": true,
      "paused": false,
      "selector": {"matchLabels": {"app": "web"}},
      "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx", "unknownNested": "v",
                                 "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}
      }
    }
  })";
  const Problems expected = {
      R"(duplicate field "metadata.name")",
      R"(unknown field "metadata.unknownMeta")",
      R"(unknown field "spec.unknown1")",
      R"(unknown field "spec.unknownDupe")",
      R"(duplicate field "spec.paused")",
      R"(unknown field "spec.template.spec.containers[0].unknownNested")",
      R"(duplicate field "spec.template.spec.containers[0].imagePullPolicy")",
  };
  const Problems problems = apps("Deployment", body);
  CHECK(problems == expected);

  SECTION("Strict: one BadRequest message") {
    CHECK(strict_error_message("Deployment", "v1", problems) ==
          R"(Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: )"
          R"(duplicate field "metadata.name", unknown field "metadata.unknownMeta", )"
          R"(unknown field "spec.unknown1", unknown field "spec.unknownDupe", )"
          R"(duplicate field "spec.paused", )"
          R"(unknown field "spec.template.spec.containers[0].unknownNested", )"
          R"(duplicate field "spec.template.spec.containers[0].imagePullPolicy")");
  }
  SECTION("Warn: one Warning header per problem") {
    const Problems headers = warning_headers(problems);
    REQUIRE(headers.size() == expected.size());
    CHECK(headers[0] == R"(299 - "duplicate field \"metadata.name\"")");
    CHECK(headers[5] ==
          R"(299 - "unknown field \"spec.template.spec.containers[0].unknownNested\"")");
  }
}

TEST_CASE("field problems at every level", "[fieldvalidation]") {
  struct Case {
    const char* kind;
    const char* body;
    Problems expected;
  };
  const Case cases[] = {
      {"Pod", R"({"apiVersion":"v1","kind":"Pod","foo":1})", {R"(unknown field "foo")"}},
      {"Pod", R"({"kind":"Pod","kind":"Pod"})", {R"(duplicate field "kind")"}},
      {"Pod", R"({"metadata":{"name":"p","Name":"q"}})", {R"(unknown field "metadata.Name")"}},
      {"Pod",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPort":1,
          "bogus":true}]}]}})",
       {R"(unknown field "spec.containers[1].ports[0].bogus")"}},
      {"Pod",
       R"({"metadata":{"labels":{"app":"a","app":"b"}}})",
       {R"(duplicate field "metadata.labels.app")"}},
      {"Pod",
       R"({"metadata":{"annotations":{"k":"1"},"annotations":{"k":"2"}}})",
       {R"(duplicate field "metadata.annotations")"}},
      {"Pod",
       R"({"status":{"phase":"Running","podIP":"1.2.3.4","what":1}})",
       {R"(unknown field "status.what")"}},
      // An unknown field is not looked into; repeating it reports it once.
      {"Pod", R"({"spec":{"x":{"y":1,"y":2},"x":{}}})", {R"(unknown field "spec.x")"}},
      {"Pod",
       R"({"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1","cpu":"2"}}}]}})",
       {R"(duplicate field "spec.containers[0].resources.limits.cpu")"}},
      // Keys are compared after unescaping; the path is quoted like Go's %q.
      {"Pod",
       R"({"metadata":{"name":"a","n\u0061me":"b","a\"b":1,"tab\t":2}})",
       {R"(duplicate field "metadata.name")", R"(unknown field "metadata.a\"b")",
        R"(unknown field "metadata.tab\t")"}},
      // A value of the wrong JSON type is a decode error for the caller, not a field problem.
      {"Pod", R"({"spec":"x","metadata":[{"foo":1}]})", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.body);
    CHECK(core(c.kind, c.body) == c.expected);
  }
}

TEST_CASE("opaque values are not looked into", "[fieldvalidation]") {
  SECTION("embedded objects (RawExtension) and map values") {
    CHECK(apps("ControllerRevision", R"({"metadata":{"name":"r"},"revision":1,
        "data":{"anything":{"goes":[1,{"here":true}]},"anything":2}})")
              .empty());
    CHECK(core("ConfigMap", R"({"data":{"x.y/z":"1","a":"2"}})").empty());
  }
  SECTION("IntOrString and Quantity accept numbers and strings") {
    CHECK(core("Service", R"({"spec":{"ports":[{"port":1,"targetPort":2},{"port":3,
        "targetPort":"p"}]}})")
              .empty());
    CHECK(core("Pod", R"({"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":2,
        "memory":"1Gi"}}}]}})")
              .empty());
  }
  SECTION("managedFields fieldsV1") {
    CHECK(core("Pod", R"({"metadata":{"managedFields":[{"fieldsV1":{"f:x":{},"f:x":{}}}]}})")
              .empty());
  }
  SECTION("CRD schemas: JSON values and JSONSchemaPropsOr* are opaque, properties are checked") {
    const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1",
      "kind":"CustomResourceDefinition","metadata":{"name":"ws.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced",
        "names":{"plural":"ws","kind":"W"},
        "versions":[{"name":"v1","served":true,"storage":true,
          "subresources":{"status":{"unexpected":1}},
          "schema":{"openAPIV3Schema":{"type":"object",
            "x-kubernetes-preserve-unknown-fields":true,
            "properties":{"spec":{"type":"object","default":{"free":{"form":1}},
              "items":{"notAField":1},
              "additionalProperties":{"alsoFree":true},
              "typo":1}}}}}]}})";
    CHECK(validator().check("apiextensions.k8s.io", "v1", "CustomResourceDefinition", crd) ==
          Problems{
              R"(unknown field "spec.versions[0].subresources.status.unexpected")",
              R"(unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.typo")"});
  }
}

TEST_CASE("bodies that do not parse yield no field problems", "[fieldvalidation]") {
  const char* const bodies[] = {
      "",
      "{",
      R"({"foo":1)",
      R"({"foo":1,})",
      "[1,2",
      "nul",
      R"({"a":"\x"})",
      R"({"foo":1} trailing)",
      "\xff\xfe",
      "[]",
      "42",
      R"("text")",
      "null",
  };
  for (const char* body : bodies) {
    CAPTURE(body);
    CHECK(core("Pod", body).empty());
  }
  CHECK(validator().check("", "v1", "NoSuchKind", R"({"foo":1})").empty());
  CHECK_FALSE(validator().knows("", "v1", "NoSuchKind"));
  CHECK(validator().knows("apps", "v1", "Deployment"));
  CHECK(validator().check("", "v1", "Pod", R"({"foo":1})", true) ==
        Problems{R"(unknown field "foo")"});
  CHECK(validator().check("", "v1", "Pod", R"({"foo":)", true).empty());
}

TEST_CASE("at most 100 problems are kept", "[fieldvalidation]") {
  std::string body = "{";
  for (int i = 0; i < 150; ++i) {
    body += (i == 0 ? "\"f" : ",\"f") + std::to_string(i) + "\":1";
  }
  body += "}";
  const Problems problems = core("Pod", body);
  REQUIRE(problems.size() == 100);
  CHECK(problems.back() == R"(unknown field "f99")");
}

TEST_CASE("YAML bodies: duplicate keys by line, then unknown fields in sorted key order",
          "[fieldvalidation]") {
  const std::string yaml = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: first
  name: web
  unknownMeta: x
  labels:
    app: web
spec:
  unknown1: a
  unknownDupe: b
  unknownDupe: c
  paused: true
  paused: false
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx
        unknownNested: v
        imagePullPolicy: Always
        imagePullPolicy: Never)";
  Problems problems = yaml_duplicate_keys(yaml);
  CHECK(problems == Problems{R"(line 5: key "name" already set in map)",
                             R"(line 12: key "unknownDupe" already set in map)",
                             R"(line 14: key "paused" already set in map)",
                             R"(line 28: key "imagePullPolicy" already set in map)"});

  const auto converted = apiserver::endpoints::yaml_to_json(yaml);
  REQUIRE(converted.ok());
  const Problems unknown = validator().check("apps", "v1", "Deployment", converted->dump(), true);
  CHECK(unknown == Problems{R"(unknown field "metadata.unknownMeta")",
                            R"(unknown field "spec.template.spec.containers[0].unknownNested")",
                            R"(unknown field "spec.unknown1")",
                            R"(unknown field "spec.unknownDupe")"});
  problems.insert(problems.end(), unknown.begin(), unknown.end());

  SECTION("Strict: the YAML problems are one item with a line each") {
    CHECK(strict_error_message("Deployment", "v1", problems) ==
          "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding "
          "error: yaml: unmarshal errors:\n"
          "  line 5: key \"name\" already set in map\n"
          "  line 12: key \"unknownDupe\" already set in map\n"
          "  line 14: key \"paused\" already set in map\n"
          "  line 28: key \"imagePullPolicy\" already set in map, "
          "unknown field \"metadata.unknownMeta\", "
          "unknown field \"spec.template.spec.containers[0].unknownNested\", "
          "unknown field \"spec.unknown1\", unknown field \"spec.unknownDupe\"");
  }
  SECTION("Warn: one header per line") {
    const Problems headers = warning_headers(problems);
    REQUIRE(headers.size() == 8);
    CHECK(headers[0] == R"(299 - "line 5: key \"name\" already set in map")");
    CHECK(headers[7] == R"(299 - "unknown field \"spec.unknownDupe\"")");
  }
  SECTION("key spellings and positions") {
    CHECK(yaml_duplicate_keys("a: 1\n'a': 2\n").size() == 1);
    CHECK(yaml_duplicate_keys("1: x\n\"1\": y\n").empty());
    CHECK(yaml_duplicate_keys("1: x\n01: y\n0x10: z\n16: w\n") ==
          Problems{"line 2: key 1 already set in map", "line 4: key 16 already set in map"});
    CHECK(yaml_duplicate_keys("on: 1\ntrue: 2\n") ==
          Problems{"line 2: key true already set in map"});
    CHECK(
        yaml_duplicate_keys("m:\n  k: 1\nm:\n  k: 1\n  k: 2\n") ==
        Problems{R"(line 5: key "k" already set in map)", R"(line 4: key "m" already set in map)"});
    CHECK(yaml_duplicate_keys("a:\na:\n") == Problems{R"(line 2: key "a" already set in map)"});
    CHECK(yaml_duplicate_keys("a: [1\n").empty());
  }
}

TEST_CASE("strict message and warning header texts", "[fieldvalidation]") {
  CHECK(strict_error_message(
            "Pod", "v1", {R"(unknown field "spec.foo")", R"(duplicate field "spec.replicas")"}) ==
        R"(Pod in version "v1" cannot be handled as a Pod: strict decoding error: )"
        R"(unknown field "spec.foo", duplicate field "spec.replicas")");
  CHECK(warning_headers({R"(unknown field "spec.foo")"}) ==
        Problems{R"(299 - "unknown field \"spec.foo\"")"});
  CHECK(warning_headers({R"(unknown field "metadata.a\"b")"}) ==
        Problems{R"(299 - "unknown field \"metadata.a\\\"b\"")"});

  SECTION("identical texts once, texts with control characters dropped") {
    CHECK(warning_headers({"a", "b", "a", "bad\ntext", ""}) ==
          Problems{R"(299 - "a")", R"(299 - "b")"});
  }
  SECTION("over 4096 runes in total every text is cut to 256 runes") {
    Problems many;
    for (int i = 0; i < 20; ++i) {
      many.push_back(std::to_string(i) + std::string(300, 'x'));
    }
    const Problems headers = warning_headers(many);
    // 13 texts of 300 runes fit (3900); the 14th starts truncation: 14 * 256 = 3584, then two
    // more reach 4096 and the rest are dropped.
    REQUIRE(headers.size() == 16);
    for (const auto& h : headers) {
      CHECK(h.size() == std::string(R"(299 - "")").size() + 256);
    }
  }
  SECTION("invalid UTF-8 is refused whole, but cut to 256 runes it is U+FFFD and kept") {
    CHECK(warning_headers({"bad \xff byte", "C1 \xc2\x85 control"}).empty());
    Problems many;
    for (int i = 0; i < 13; ++i) {
      many.push_back(std::string(300, 'x'));
      many.back()[0] = static_cast<char>('a' + i);
    }
    // Refused at first; each byte of "\xe2\x82" counts as a rune, and is one U+FFFD when cut.
    many.push_back("\xe2\x82" + std::string(298, 'y'));
    many.push_back(std::string(300, 'z'));  // 13 * 300 + 300 > 4096: every text is cut
    const Problems headers = warning_headers(many);
    REQUIRE(headers.size() == 15);
    CHECK(headers[13] == "299 - \"\xef\xbf\xbd\xef\xbf\xbd" + std::string(254, 'y') + "\"");
    CHECK(headers[14] == "299 - \"" + std::string(256, 'z') + "\"");
  }
}

TEST_CASE("checking a 200-line Deployment takes well under a millisecond", "[fieldvalidation]") {
  nlohmann::json doc = nlohmann::json::parse(kValidDeployment);
  auto& containers = doc["spec"]["template"]["spec"]["containers"];
  const nlohmann::json container = containers[0];
  while (containers.size() < 5) {
    containers.push_back(container);
    containers.back()["name"] = "c" + std::to_string(containers.size());
  }
  const std::string body = doc.dump(2);
  const auto lines = std::count(body.begin(), body.end(), '\n') + 1;
  REQUIRE(lines >= 200);
  REQUIRE(apps("Deployment", body).empty());

  const auto build_start = std::chrono::steady_clock::now();
  const FieldValidator fresh;
  const double build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build_start)
          .count();
  CHECK(fresh.knows("apps", "v1", "Deployment"));

  constexpr int kRuns = 2000;
  const auto start = std::chrono::steady_clock::now();
  std::size_t total = 0;
  for (int i = 0; i < kRuns; ++i) {
    total += apps("Deployment", body).size();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  const double micros =
      std::chrono::duration<double, std::micro>(elapsed).count() / static_cast<double>(kRuns);
  std::printf(
      "field validation: index built in %.1f ms; %ld-line Deployment (%zu bytes) in %.1f us\n",
      build_ms, static_cast<long>(lines), body.size(), micros);
  CHECK(total == 0);
  CHECK(micros < 1000.0);
}
