// The HPA controller's rules apart from its requests: the replica bounds, and a metric that cannot
// be read reported in kube-controller-manager's words.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "autoscaling/hpa_rules.h"

using cluster::BoundsDecision;
using nlohmann::json;

TEST_CASE("the bounds decide alone outside them; within them the metrics do", "[hpa]") {
  using Kind = BoundsDecision::Kind;
  const auto below = cluster::decide_by_bounds(1, 3, 5);
  CHECK(below.kind == Kind::Rescale);
  CHECK(below.desired == 3);
  CHECK(below.reason == "Current number of replicas below Spec.MinReplicas");
  const auto above = cluster::decide_by_bounds(8, 3, 5);
  CHECK(above.kind == Kind::Rescale);
  CHECK(above.desired == 5);
  CHECK(above.reason == "Current number of replicas above Spec.MaxReplicas");
  CHECK(cluster::decide_by_bounds(4, 3, 5).kind == Kind::Metrics);
  CHECK(cluster::decide_by_bounds(3, 3, 5).kind == Kind::Metrics);
  CHECK(cluster::decide_by_bounds(5, 3, 5).kind == Kind::Metrics);
  // A target scaled to zero is left alone, unless minReplicas is zero too.
  CHECK(cluster::decide_by_bounds(0, 1, 5).kind == Kind::Disabled);
  CHECK(cluster::decide_by_bounds(0, 0, 5).kind == Kind::Metrics);
}

TEST_CASE("scaleTargetRef's apiVersion splits as apimachinery's ParseGroupVersion", "[hpa]") {
  auto apps = cluster::parse_group_version("apps/v1");
  REQUIRE(apps);
  CHECK(apps->group == "apps");
  CHECK(apps->version == "v1");
  auto core = cluster::parse_group_version("v1");
  REQUIRE(core);
  CHECK(core->group.empty());
  CHECK(core->version == "v1");
  auto bad = cluster::parse_group_version("a/b/c");
  REQUIRE_FALSE(bad);
  CHECK(bad.error() == "unexpected GroupVersion string: a/b/c");
}

TEST_CASE("a resource metric without a metrics API fails in the controller's words", "[hpa]") {
  const std::string cause = cluster::resource_metrics_error("cpu", 404, "ignored");
  CHECK(cause ==
        "unable to get metrics for resource cpu: unable to fetch metrics from resource metrics "
        "API: the server could not find the requested resource (get pods.metrics.k8s.io)");
  CHECK(cluster::resource_metrics_error("memory", 503, "ignored") ==
        "unable to get metrics for resource memory: unable to fetch metrics from resource metrics "
        "API: the server is currently unable to handle the request (get pods.metrics.k8s.io)");
  CHECK(cluster::resource_metrics_error("cpu", 403, "forbidden: no") ==
        "unable to get metrics for resource cpu: unable to fetch metrics from resource metrics "
        "API: forbidden: no");

  const json utilization = json::parse(R"({"type":"Resource","resource":{"name":"cpu",
    "target":{"type":"Utilization","averageUtilization":50}}})");
  const auto failure = cluster::metric_failure(utilization, cause);
  CHECK(failure.reason == "FailedGetResourceMetric");
  CHECK(failure.event_message == "failed to get cpu utilization: " + cause);
  CHECK(failure.condition_message ==
        "the HPA was unable to compute the replica count: failed to get cpu utilization: " + cause);
  CHECK(failure.error ==
        "failed to get cpu resource metric value: failed to get cpu utilization: " + cause);
  CHECK(cluster::invalid_metrics_message(1, 1, failure.error) ==
        "invalid metrics (1 invalid out of 1), first error is: " + failure.error);

  const json value = json::parse(R"({"type":"ContainerResource","containerResource":{
    "name":"memory","container":"app","target":{"type":"AverageValue","averageValue":"100Mi"}}})");
  const auto container = cluster::metric_failure(value, "x");
  CHECK(container.reason == "FailedGetContainerResourceMetric");
  CHECK(container.error ==
        "failed to get memory container metric value: failed to get memory "
        "usage: x");

  const json no_target =
      json::parse(R"({"type":"Resource","resource":{"name":"cpu","target":{}}})");
  CHECK(cluster::metric_failure(no_target, "x").event_message ==
        "invalid resource metric source: neither a utilization target nor a value target was set");
}

TEST_CASE("other metric sources fail with their own reasons", "[hpa]") {
  CHECK(cluster::metric_failure(json{{"type", "Pods"}}, "c").reason == "FailedGetPodsMetric");
  CHECK(cluster::metric_failure(json{{"type", "Pods"}}, "c").error ==
        "failed to get pods metric value: c");
  CHECK(cluster::metric_failure(json{{"type", "Object"}}, "c").reason == "FailedGetObjectMetric");
  CHECK(cluster::metric_failure(json{{"type", "External"}}, "c").reason ==
        "FailedGetExternalMetric");
  const auto unknown = cluster::metric_failure(json{{"type", "Weird"}}, "c");
  CHECK(unknown.reason == "InvalidMetricSourceType");
  CHECK(unknown.error == "unknown metric source type \"Weird\"");
}
