// The HPA's replica count from pod metrics, as upstream's replica calculator works it out: the
// ratio of usage to target over the ready pods, the tolerance, and how missing and unready pods
// count.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "autoscaling/replica_calculator.h"
#include "client/objects.h"

using cluster::ObjectPtr;
using cluster::PodMetric;
using cluster::PodMetrics;
using nlohmann::json;

namespace {

// A pod that started long ago and is Ready (or in `phase`), asking `request` of cpu.
ObjectPtr pod(const std::string& name, const std::string& request = "100m",
              const std::string& phase = "Running") {
  json p = {{"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"containers", {{{"name", "web"}}}}}},
            {"status",
             {{"phase", phase},
              {"startTime", "2023-12-31T00:00:00Z"},
              {"conditions",
               {{{"type", "Ready"},
                 {"status", "True"},
                 {"lastTransitionTime", "2023-12-31T00:00:10Z"}}}}}}};
  if (!request.empty()) {
    p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = request;
  }
  return std::make_shared<const json>(std::move(p));
}

PodMetrics used(std::initializer_list<std::pair<std::string, int64_t>> milli) {
  PodMetrics metrics;
  for (const auto& [name, value] : milli) {
    metrics[name] = PodMetric{value, {}, std::chrono::seconds(15)};
  }
  return metrics;
}

cluster::ReplicaCalculation how() {
  cluster::ReplicaCalculation h;
  h.now = *cluster::parse_time("2024-01-01T00:00:00Z");
  return h;
}

}  // namespace

TEST_CASE("quantities in milli-units, rounded up as MilliValue", "[hpa]") {
  CHECK(cluster::milli_value("200m") == 200);
  CHECK(cluster::milli_value("1") == 1000);
  CHECK(cluster::milli_value("1.5") == 1500);
  CHECK(cluster::milli_value("250u") == 1);
  CHECK(cluster::milli_value("64Mi") == int64_t{64} * 1024 * 1024 * 1000);
  CHECK_FALSE(cluster::milli_value("lots"));
}

TEST_CASE("pod metrics sum each pod's containers; a pod lacking the resource is left out",
          "[hpa]") {
  const json list = json::parse(R"({"items":[
    {"metadata":{"name":"a"},"timestamp":"2024-01-01T00:00:00Z","window":"15s",
     "containers":[{"name":"web","usage":{"cpu":"100m","memory":"10Mi"}},
                   {"name":"side","usage":{"cpu":"50m","memory":"1Mi"}}]},
    {"metadata":{"name":"b"},"containers":[{"name":"web","usage":{"memory":"10Mi"}}]},
    {"metadata":{"name":"c"},"containers":[]}]})");
  auto all = cluster::pod_metrics(list, "cpu", "");
  REQUIRE(all);
  CHECK(all->size() == 1);
  CHECK(all->at("a").milli == 150);
  CHECK(all->at("a").window == std::chrono::seconds(15));
  auto one = cluster::pod_metrics(list, "cpu", "side");
  REQUIRE(one);
  CHECK(one->at("a").milli == 50);
  auto none = cluster::pod_metrics(json::parse(R"({"items":[]})"), "cpu", "");
  REQUIRE_FALSE(none);
  CHECK(none.error() == "no metrics returned from resource metrics API");
}

TEST_CASE("utilization over the target scales by the ratio, within the tolerance not at all",
          "[hpa]") {
  const std::vector<ObjectPtr> pods = {pod("a"), pod("b"), pod("c")};
  auto up = cluster::replicas_for_utilization(how(), 3, 50, "cpu", "",
                                              used({{"a", 150}, {"b", 150}, {"c", 150}}), pods);
  REQUIRE(up);
  CHECK(up->replicas == 9);
  CHECK(up->utilization == 150);
  CHECK(up->raw_average == 150);
  auto near = cluster::replicas_for_utilization(how(), 3, 50, "cpu", "",
                                                used({{"a", 52}, {"b", 52}, {"c", 52}}), pods);
  REQUIRE(near);
  CHECK(near->replicas == 3);
  CHECK(near->utilization == 52);
}

TEST_CASE(
    "a missing pod counts as its whole request scaling down, unready ones as nothing "
    "scaling up",
    "[hpa]") {
  const std::vector<ObjectPtr> four = {pod("a"), pod("b"), pod("c"), pod("d")};
  auto down = cluster::replicas_for_utilization(how(), 4, 50, "cpu", "",
                                                used({{"a", 10}, {"b", 10}, {"c", 10}}), four);
  REQUIRE(down);
  CHECK(down->replicas == 3);  // 130m of 400m requested: 32% of 50%, over 4 pods
  CHECK(down->utilization == 10);

  const std::vector<ObjectPtr> starting = {pod("a"), pod("b"), pod("c", "100m", "Pending")};
  auto up = cluster::replicas_for_utilization(how(), 3, 50, "cpu", "",
                                              used({{"a", 200}, {"b", 200}}), starting);
  REQUIRE(up);
  CHECK(up->replicas == 8);  // the Pending pod as 0: 133% of 50%, over 3 pods
}

TEST_CASE("the calculator's errors", "[hpa]") {
  auto no_request =
      cluster::replicas_for_utilization(how(), 1, 50, "cpu", "", used({{"a", 10}}), {pod("a", "")});
  REQUIRE_FALSE(no_request);
  CHECK(no_request.error() == "missing request for cpu in container web of Pod a");
  auto no_pods = cluster::replicas_for_utilization(how(), 1, 50, "cpu", "", used({{"a", 10}}), {});
  REQUIRE_FALSE(no_pods);
  CHECK(no_pods.error() == "no pods returned by selector while calculating replica count");
  auto unready = cluster::replicas_for_utilization(how(), 1, 50, "cpu", "", used({{"a", 10}}),
                                                   {pod("a", "100m", "Pending")});
  REQUIRE_FALSE(unready);
  CHECK(unready.error() == "did not receive metrics for targeted pods (pods might be unready)");
}

TEST_CASE("an average value target divides the average usage by it", "[hpa]") {
  auto up = cluster::replicas_for_average_value(
      how(), 2, 100, "cpu", used({{"a", 300}, {"b", 300}}), {pod("a"), pod("b")});
  REQUIRE(up);
  CHECK(up->replicas == 6);
  CHECK(up->raw_average == 300);
}
