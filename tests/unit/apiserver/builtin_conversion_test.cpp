// Conversion of built-in kinds between their served versions (registry/builtin_conversion.h):
// storage versions, HorizontalPodAutoscaler v1 <-> v2 with upstream's round-trip annotations,
// ResourceSlice capacity, the kinds that only change apiVersion, errors and hostile input.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "registry/builtin_conversion.h"

using apiserver::registry::builtin_storage_version;
using apiserver::registry::convert_builtin;
using nlohmann::json;

namespace {

json converted(json object, const std::string& to, const std::string& group = "autoscaling",
               const std::string& kind = "HorizontalPodAutoscaler") {
  const auto error = convert_builtin(group, kind, object, to);
  INFO(error.value_or(""));
  REQUIRE_FALSE(error.has_value());
  return object;
}

// A v2 HPA with every metric type, behavior, current metrics and conditions; its CPU
// utilization metric is last, where a v1 round trip puts it back.
json full_v2() {
  return json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default", "annotations": {"team": "a&b"}},
    "spec": {
      "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
      "minReplicas": 2, "maxReplicas": 10,
      "metrics": [
        {"type": "Pods", "pods": {"metric": {"name": "packets", "selector": {"matchLabels": {"a": "b"}}},
                                  "target": {"type": "AverageValue", "averageValue": "1k"}}},
        {"type": "Object", "object": {"describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main"},
                                      "metric": {"name": "requests"},
                                      "target": {"type": "Value", "value": "10k"}}},
        {"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchExpressions": [{"key": "q", "operator": "In", "values": ["x"]}]}},
                                          "target": {"type": "AverageValue", "averageValue": "30"}}},
        {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
        {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
                                      "target": {"type": "Utilization", "averageUtilization": 60}}},
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
      ],
      "behavior": {
        "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                                 {"type": "Percent", "value": 100, "periodSeconds": 15}]},
        "scaleDown": {"stabilizationWindowSeconds": 300,
                      "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}]}
      }
    },
    "status": {
      "observedGeneration": 3, "lastScaleTime": "2024-05-01T10:00:00Z",
      "currentReplicas": 3, "desiredReplicas": 4,
      "currentMetrics": [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "250m", "averageUtilization": 55}}},
        {"type": "Pods", "pods": {"metric": {"name": "packets"}, "current": {"averageValue": "900"}}},
        {"type": "External", "external": {"metric": {"name": "queue"}, "current": {"value": "12", "averageValue": "4"}}}
      ],
      "conditions": [
        {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2024-05-01T09:00:00Z",
         "reason": "ReadyForNewScale", "message": "recommended size matches current size"},
        {"type": "ScalingActive", "status": "False", "reason": "FailedGetResourceMetric"}
      ]
    }
  })");
}

json simple_v1() {
  return json::parse(R"({
    "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
             "minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 65},
    "status": {"currentReplicas": 1, "desiredReplicas": 1}
  })");
}

}  // namespace

TEST_CASE("built-in kinds are stored at kube-apiserver's storage version", "[conversion]") {
  CHECK(builtin_storage_version("autoscaling", "horizontalpodautoscalers") == "v2");
  CHECK(builtin_storage_version("autoscaling", "horizontalpodautoscalers/status") == "v2");
  CHECK(builtin_storage_version("admissionregistration.k8s.io", "validatingadmissionpolicies") ==
        "v1");
  CHECK(builtin_storage_version("admissionregistration.k8s.io",
                                "validatingadmissionpolicybindings") == "v1");
  for (const char* r :
       {"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"}) {
    CAPTURE(r);
    CHECK(builtin_storage_version("resource.k8s.io", r) == "v1beta1");
  }
  CHECK(builtin_storage_version("storage.k8s.io", "volumeattributesclasses") == "v1beta1");
  CHECK(builtin_storage_version("authentication.k8s.io", "selfsubjectreviews").empty());
  CHECK(builtin_storage_version("apps", "deployments").empty());
  CHECK(builtin_storage_version("", "pods").empty());
  CHECK(builtin_storage_version("storage.k8s.io", "storageclasses").empty());
}

TEST_CASE("a v2 HPA goes to v1 with its CPU target mapped and the rest in annotations",
          "[conversion]") {
  const json v1 = converted(full_v2(), "v1");
  CHECK(v1["apiVersion"] == "autoscaling/v1");
  CHECK(v1["kind"] == "HorizontalPodAutoscaler");
  CHECK(v1["spec"] == json::parse(R"({
    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    "minReplicas": 2, "maxReplicas": 10, "targetCPUUtilizationPercentage": 70})"));
  CHECK(v1["status"] == json::parse(R"({"observedGeneration": 3,
    "lastScaleTime": "2024-05-01T10:00:00Z", "currentReplicas": 3, "desiredReplicas": 4,
    "currentCPUUtilizationPercentage": 55})"));
  const json& a = v1["metadata"]["annotations"];
  CHECK(a["team"] == "a&b");
  // Go's json.Marshal of the v1 types: struct field order, zero quantities as "0", HTML escaped.
  CHECK(
      a["autoscaling.alpha.kubernetes.io/metrics"] ==
      R"([{"type":"Pods","pods":{"metricName":"packets","targetAverageValue":"1k","selector":{"matchLabels":{"a":"b"}}}},)"
      R"({"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"requests","targetValue":"10k"}},)"
      R"({"type":"External","external":{"metricName":"queue","metricSelector":{"matchExpressions":[{"key":"q","operator":"In","values":["x"]}]},"targetAverageValue":"30"}},)"
      R"({"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},)"
      R"({"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}])");
  CHECK(
      a["autoscaling.alpha.kubernetes.io/current-metrics"] ==
      R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":55,"currentAverageValue":"250m"}},)"
      R"({"type":"Pods","pods":{"metricName":"packets","currentAverageValue":"900"}},)"
      R"({"type":"External","external":{"metricName":"queue","currentValue":"12","currentAverageValue":"4"}}])");
  // The behavior is the internal type, whose fields have no JSON tags.
  CHECK(
      a["autoscaling.alpha.kubernetes.io/behavior"] ==
      R"({"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},)"
      R"("ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":null,"Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}})");
  CHECK(
      a["autoscaling.alpha.kubernetes.io/conditions"] ==
      R"([{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T09:00:00Z","reason":"ReadyForNewScale","message":"recommended size matches current size"},)"
      R"({"type":"ScalingActive","status":"False","lastTransitionTime":null,"reason":"FailedGetResourceMetric"}])");
}

TEST_CASE("HPA v2 to v1 to v2 comes back identical", "[conversion]") {
  const json original = full_v2();
  const json v1 = converted(original, "v1");
  const json back = converted(v1, "v2");
  CHECK(back == original);
  // And once more: converting the result again is stable.
  CHECK(converted(converted(back, "v1"), "v2") == original);
}

TEST_CASE("HPA v1 to v2 to v1 comes back identical", "[conversion]") {
  const json original = simple_v1();
  const json v2 = converted(original, "v2");
  CHECK(v2["spec"]["metrics"] == json::parse(R"([{"type": "Resource", "resource": {"name": "cpu",
    "target": {"type": "Utilization", "averageUtilization": 65}}}])"));
  CHECK_FALSE(v2["spec"].contains("targetCPUUtilizationPercentage"));
  CHECK(converted(v2, "v1") == original);

  SECTION("with the annotations of a v2 object, which v1 clients send back") {
    const json v1 = converted(full_v2(), "v1");
    CHECK(converted(converted(v1, "v2"), "v1") == v1);
  }
}

TEST_CASE("HPA CPU mapping between v1 and v2", "[conversion]") {
  SECTION("v1 without a CPU target gets upstream's implicit 80%") {
    json v1 = simple_v1();
    v1["spec"].erase("targetCPUUtilizationPercentage");
    const json v2 = converted(v1, "v2");
    CHECK(v2["spec"]["metrics"] == json::parse(R"([{"type": "Resource", "resource": {"name": "cpu",
      "target": {"type": "Utilization", "averageUtilization": 80}}}])"));
  }
  SECTION("the current CPU utilization becomes a current metric, kept raw in an annotation") {
    json v1 = simple_v1();
    v1["status"]["currentCPUUtilizationPercentage"] = 42;
    const json v2 = converted(v1, "v2");
    CHECK(v2["status"]["currentMetrics"] == json::parse(R"([{"type": "Resource",
      "resource": {"name": "cpu", "current": {"averageUtilization": 42}}}])"));
    const json again = converted(v2, "v1");
    CHECK(again["status"]["currentCPUUtilizationPercentage"] == 42);
    CHECK(
        again["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/current-metrics"] ==
        R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":42,"currentAverageValue":"0"}}])");
  }
  SECTION("the first cpu Resource metric decides, and a CPU value target is not a percentage") {
    json v2 = full_v2();
    v2["spec"]["metrics"] = json::parse(R"([
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "500m"}}},
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}])");
    const json v1 = converted(v2, "v1");
    CHECK_FALSE(v1["spec"].contains("targetCPUUtilizationPercentage"));
    CHECK(v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"] ==
          R"([{"type":"Resource","resource":{"name":"cpu","targetAverageValue":"500m"}}])");
  }
  SECTION("a CPU utilization metric first comes back last, as upstream orders it") {
    json v2 = full_v2();
    json& metrics = v2["spec"]["metrics"];
    json cpu = metrics.back();
    metrics.erase(metrics.size() - 1);
    metrics.insert(metrics.begin(), cpu);
    const json back = converted(converted(v2, "v1"), "v2");
    CHECK(back["spec"]["metrics"].back() == cpu);
    CHECK(back["spec"]["metrics"].size() == metrics.size());
  }
}

TEST_CASE("HPA round-trip annotations are dropped and decoded as Go decodes them", "[conversion]") {
  SECTION("stale annotations on a v2 object are not carried to v1") {
    json v2 = full_v2();
    v2["spec"]["metrics"] = json::parse(R"([{"type": "Resource", "resource": {"name": "cpu",
      "target": {"type": "Utilization", "averageUtilization": 70}}}])");
    v2["spec"].erase("behavior");
    v2["status"].erase("currentMetrics");
    v2["status"].erase("conditions");
    v2["metadata"]["annotations"] = {{"autoscaling.alpha.kubernetes.io/metrics", "[]"},
                                     {"autoscaling.alpha.kubernetes.io/behavior", "{}"}};
    const json v1 = converted(v2, "v1");
    CHECK_FALSE(v1["metadata"].contains("annotations"));
  }
  SECTION("v1 to v2 removes them and keeps the others") {
    const json v2 = converted(converted(full_v2(), "v1"), "v2");
    CHECK(v2["metadata"]["annotations"] == json{{"team", "a&b"}});
  }
  SECTION("an annotation Go cannot decode is ignored, and still dropped") {
    const char* bad =
        GENERATE(R"([{"type":"Pods","pods":{"metricName":5}}])",
                 R"([{"type":"Pods","pods":{"targetAverageValue":"1 k"}}])",
                 R"([{"type":"Resource","resource":{"targetAverageUtilization":1.5}}])",
                 R"([{"type":"Resource","resource":{"targetAverageUtilization":4294967296}}])",
                 R"({"type":"Pods"})", "[", "not json", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]");
    CAPTURE(bad);
    json v1 = simple_v1();
    v1["metadata"]["annotations"] = {{"autoscaling.alpha.kubernetes.io/metrics", bad}};
    const json v2 = converted(v1, "v2");
    CHECK(v2["spec"]["metrics"].size() == 1);
    CHECK_FALSE(v2["metadata"].contains("annotations"));
  }
  SECTION("behavior keys match case-insensitively, and an empty behavior sets nothing") {
    json v1 = simple_v1();
    v1["metadata"]["annotations"] = {
        {"autoscaling.alpha.kubernetes.io/behavior",
         R"({"scaleDown":{"selectpolicy":"Disabled"},"ScaleUp":null})"}};
    CHECK(converted(v1, "v2")["spec"]["behavior"] ==
          json::parse(R"({"scaleDown": {"selectPolicy": "Disabled"}})"));
    v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/behavior"] =
        R"({"ScaleUp":null,"ScaleDown":null})";
    CHECK_FALSE(converted(v1, "v2")["spec"].contains("behavior"));
  }
  SECTION("conditions need RFC 3339 times") {
    json v1 = simple_v1();
    v1["metadata"]["annotations"] = {
        {"autoscaling.alpha.kubernetes.io/conditions",
         R"([{"type":"AbleToScale","status":"True","lastTransitionTime":"yesterday"}])"}};
    CHECK_FALSE(converted(v1, "v2")["status"].contains("conditions"));
  }
}

TEST_CASE("ResourceSlice capacity converts between v1alpha3 and v1beta1", "[conversion]") {
  const json alpha =
      json::parse(R"({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceSlice",
    "metadata": {"name": "node-a-gpu"},
    "spec": {"driver": "gpu.example.com", "nodeName": "node-a", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "x"}},
                                                      "capacity": {"memory": "40Gi", "cores": "128"}}},
                         {"name": "gpu-1"}]}})");
  const json beta = converted(alpha, "v1beta1", "resource.k8s.io", "ResourceSlice");
  CHECK(beta["apiVersion"] == "resource.k8s.io/v1beta1");
  CHECK(beta["spec"]["devices"][0]["basic"]["capacity"] ==
        json::parse(R"({"memory": {"value": "40Gi"}, "cores": {"value": "128"}})"));
  CHECK(beta["spec"]["devices"][1] == alpha["spec"]["devices"][1]);
  CHECK(converted(beta, "v1alpha3", "resource.k8s.io", "ResourceSlice") == alpha);

  json no_value = beta;
  no_value["spec"]["devices"][0]["basic"]["capacity"]["cores"] = json::object();
  CHECK(converted(no_value, "v1alpha3", "resource.k8s.io",
                  "ResourceSlice")["spec"]["devices"][0]["basic"]["capacity"]["cores"] == "0");
}

TEST_CASE("kinds with the same fields at each version only change apiVersion", "[conversion]") {
  struct Row {
    const char* group;
    const char* kind;
    const char* from;
    const char* to;
  };
  const Row row = GENERATE(
      Row{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy", "v1beta1", "v1"},
      Row{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", "v1", "v1beta1"},
      Row{"resource.k8s.io", "DeviceClass", "v1alpha3", "v1beta1"},
      Row{"resource.k8s.io", "ResourceClaim", "v1beta1", "v1alpha3"},
      Row{"resource.k8s.io", "ResourceClaimTemplate", "v1alpha3", "v1beta1"},
      Row{"storage.k8s.io", "VolumeAttributesClass", "v1alpha1", "v1beta1"},
      Row{"authentication.k8s.io", "SelfSubjectReview", "v1beta1", "v1"});
  CAPTURE(row.kind, row.from, row.to);
  const json object = {{"apiVersion", std::string(row.group) + "/" + row.from},
                       {"kind", row.kind},
                       {"metadata", {{"name", "x"}}},
                       {"spec", {{"anything", {1, 2}}}}};
  json expected = object;
  expected["apiVersion"] = std::string(row.group) + "/" + row.to;
  CHECK(converted(object, row.to, row.group, row.kind) == expected);
}

TEST_CASE("conversion refuses unknown versions, groups and kinds", "[conversion]") {
  json hpa = simple_v1();
  const json before = hpa;
  CHECK(convert_builtin("autoscaling", "HorizontalPodAutoscaler", hpa, "v3") ==
        R"(no kind "HorizontalPodAutoscaler" is registered for version "autoscaling/v3")");
  CHECK(convert_builtin("autoscaling", "HorizontalPodAutoscaler", hpa, "v2beta2") ==
        R"(no kind "HorizontalPodAutoscaler" is registered for version "autoscaling/v2beta2")");
  hpa["apiVersion"] = "autoscaling/v2beta1";
  CHECK(convert_builtin("autoscaling", "HorizontalPodAutoscaler", hpa, "v2") ==
        R"(no kind "HorizontalPodAutoscaler" is registered for version "autoscaling/v2beta1")");
  hpa["apiVersion"] = "apps/v1";
  CHECK(convert_builtin("autoscaling", "HorizontalPodAutoscaler", hpa, "v2") ==
        R"(no kind "HorizontalPodAutoscaler" is registered for version "apps/v1")");
  hpa = before;
  CHECK(convert_builtin("apps", "Deployment", hpa, "v1") ==
        R"(kind "Deployment" of group "apps" has no conversion between versions)");
  CHECK(convert_builtin("autoscaling", "Scale", hpa, "v1").has_value());
  CHECK(hpa == before);
  hpa.erase("apiVersion");
  CHECK(convert_builtin("autoscaling", "HorizontalPodAutoscaler", hpa, "v2") ==
        "the object to convert has no apiVersion");
  json not_object = json::array();
  CHECK(convert_builtin("autoscaling", "HorizontalPodAutoscaler", not_object, "v2") ==
        "the object to convert is not a JSON object");
  json same = simple_v1();
  CHECK(converted(same, "v1") == simple_v1());
}

TEST_CASE("hostile HPA and ResourceSlice documents convert without throwing", "[conversion]") {
  const char* body = GENERATE(
      R"({"spec": 5, "status": "x"})", R"({"spec": null, "status": null, "metadata": null})",
      R"({"metadata": {"annotations": 7}})",
      R"({"metadata": {"annotations": {"autoscaling.alpha.kubernetes.io/metrics": 5}}})",
      R"({"spec": {"metrics": 5, "behavior": 3, "targetCPUUtilizationPercentage": "x"}})",
      R"({"spec": {"metrics": [5, null, {"type": 1}, {"type": "Resource", "resource": 3}, {"type": "Resource", "resource": {"name": "cpu", "target": 4}}]}})",
      R"({"spec": {"metrics": [{"type": "Object", "object": {"target": 1, "metric": [], "describedObject": "x"}}, {"pods": {"metric": {"selector": 4}}}]}})",
      R"({"spec": {"behavior": {"scaleUp": {"policies": [1, {"type": []}]}, "scaleDown": "x"}}})",
      R"({"status": {"currentMetrics": [1, {"type": "Resource", "resource": {"name": "cpu", "current": []}}], "conditions": [3, {"type": {}}], "currentCPUUtilizationPercentage": {}}})",
      R"({"metadata": {"annotations": {"autoscaling.alpha.kubernetes.io/behavior": "{\"ScaleUp\":{\"Policies\":[{\"Value\":\"x\"}]}}",
          "autoscaling.alpha.kubernetes.io/current-metrics": "[{\"type\":\"Object\",\"object\":{\"target\":5}}]",
          "autoscaling.alpha.kubernetes.io/conditions": "[{\"type\":1}]"}}})",
      R"({"spec": {"devices": [1, {"basic": 2}, {"basic": {"capacity": 3}}, {"basic": {"capacity": {"a": [], "b": {"value": null}, "c": true}}}]}})");
  CAPTURE(body);
  for (const char* version : {"autoscaling/v1", "autoscaling/v2"}) {
    json hpa = json::parse(body);
    hpa["apiVersion"] = version;
    for (const char* to : {"v1", "v2"}) {
      json copy = hpa;
      REQUIRE_NOTHROW(convert_builtin("autoscaling", "HorizontalPodAutoscaler", copy, to));
      CHECK(copy["apiVersion"] == std::string("autoscaling/") + to);
    }
  }
  for (const char* version : {"resource.k8s.io/v1alpha3", "resource.k8s.io/v1beta1"}) {
    json slice = json::parse(body);
    slice["apiVersion"] = version;
    for (const char* to : {"v1alpha3", "v1beta1"}) {
      json copy = slice;
      REQUIRE_NOTHROW(convert_builtin("resource.k8s.io", "ResourceSlice", copy, to));
      CHECK(copy["apiVersion"] == std::string("resource.k8s.io/") + to);
    }
  }
}

TEST_CASE("HPA annotations escape text as Go's json.Marshal does and read it back",
          "[conversion]") {
  json v2 = full_v2();
  v2["spec"]["metrics"] = json::parse(
      "[{\"type\": \"Pods\", \"pods\": {\"metric\": {\"name\": \"a<b>&c\\u2028d\"},"
      " \"target\": {\"type\": \"AverageValue\", \"averageValue\": \"1\"}}}]");
  v2["spec"].erase("behavior");
  v2["status"].erase("currentMetrics");
  v2["status"].erase("conditions");
  const json v1 = converted(v2, "v1");
  CHECK(
      v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"] ==
      R"([{"type":"Pods","pods":{"metricName":"a\u003cb\u003e\u0026c\u2028d","targetAverageValue":"1"}}])");
  CHECK(converted(v1, "v2") == v2);
}
