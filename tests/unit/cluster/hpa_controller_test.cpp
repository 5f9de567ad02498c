// The HPA controller against an API server in process, on a fake clock: an HPA is first looked at
// one sync period after it appears, its target raised to minReplicas through the scale
// subresource, and then, within the bounds, the missing metrics API reported without scaling;
// with pod metrics served, the target scaled by the pods' CPU utilization, as fast as the rate
// limit lets it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "autoscaling/horizontal_pod_autoscaler_controller.h"
#include "common/clock.h"
#include "test_api.h"

#include <thread>

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kDeployment = "/apis/apps/v1/namespaces/default/deployments/web";
constexpr const char* kAutoscaler =
    "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web";

struct Sandbox {
  common::FakeClock clock;
  apiserver::testing::Api api;
  // The resource metrics API, when a test serves one (as metrics-server would).
  json pod_metrics;
  cluster::Handler handler = [this](apiserver::http::Request& r) {
    if (!pod_metrics.is_null() &&
        r.path == "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods") {
      apiserver::http::Response response;
      response.status = 200;
      response.body = pod_metrics.dump();
      return response;
    }
    return api.raw(r);
  };
  cluster::Client client{handler,
                         {"system:serviceaccount:kube-system:horizontal-pod-autoscaler",
                          {"system:serviceaccounts", "system:serviceaccounts:kube-system"}},
                         "kube-sandbox-test"};
  cluster::HorizontalPodAutoscalerController controller{client, 15s, 300s, clock};

  Sandbox() {
    controller.start();
    controller.run();
  }
  ~Sandbox() { controller.stop(); }

  // Does `write` and waits until the controller's informer noticed it.
  template <class Write>
  void after(Write write) {
    const uint64_t seen = controller.queue().changes();
    write();
    REQUIRE(controller.queue().wait_changed(seen, 20s));
  }
  // Moves the clock and waits until the controller did what came due, and its cache saw the HPA
  // as written (the next sync reads the cache; on the fake clock it could come first).
  void advance(std::chrono::seconds by) {
    clock.advance(by);
    REQUIRE(controller.queue().wait_idle(clock.now(), 20s));
    const json stored = api.call("GET", kAutoscaler).body;
    for (int i = 0; i < 2000; ++i) {
      auto cached = controller.cached("default", "web");
      if (cached != nullptr &&
          (*cached)["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]) {
        return;
      }
      std::this_thread::sleep_for(10ms);
    }
    FAIL("the controller's cache did not see the HPA as stored");
  }
  // The Deployment web at `replicas`, without a controller to make its pods.
  void deploy(int64_t replicas);
  // Creates an HPA and waits until the controller's informer noticed it.
  void autoscale(const json& hpa) {
    after([&] {
      REQUIRE(
          api.call("POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa)
              .status == 201);
    });
  }
  int64_t replicas() { return api.call("GET", kDeployment).body["spec"]["replicas"]; }
  json status() { return api.call("GET", kAutoscaler).body["status"]; }
  json condition(const std::string& type) {
    const json now = status();
    for (const json& c : now["conditions"]) {
      if (c["type"] == type) {
        return c;
      }
    }
    return nullptr;
  }
  std::vector<std::string> events(const std::string& reason) {
    std::vector<std::string> messages;
    const json listed = api.call("GET", "/api/v1/namespaces/default/events").body;
    for (const json& e : listed["items"]) {
      if (e["reason"] == reason) {
        messages.push_back(e["message"]);
      }
    }
    return messages;
  }
};

json deployment() {
  return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","namespace":"default"},
    "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"web","image":"nginx"}]}}}})");
}

void Sandbox::deploy(int64_t replicas) {
  json web = deployment();
  web["spec"]["replicas"] = replicas;
  REQUIRE(api.call("POST", "/apis/apps/v1/namespaces/default/deployments", web).status == 201);
}

json autoscaler() {
  return json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
    "metadata":{"name":"web","namespace":"default"},
    "spec":{"minReplicas":3,"maxReplicas":5,
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "metrics":[{"type":"Resource","resource":{"name":"cpu",
        "target":{"type":"Utilization","averageUtilization":50}}}]}})");
}

}  // namespace

TEST_CASE("an HPA raises its target to minReplicas one sync period after it appears",
          "[cluster][hpa]") {
  Sandbox s;
  s.deploy(1);
  s.autoscale(autoscaler());
  s.advance(14s);
  CHECK(s.replicas() == 1);
  CHECK(s.status() == json{{"desiredReplicas", 0}});

  s.advance(1s);
  CHECK(s.replicas() == 3);
  const json status = s.status();
  CHECK(status["currentReplicas"] == 1);
  CHECK(status["desiredReplicas"] == 3);
  CHECK(status.contains("lastScaleTime"));
  CHECK(s.condition("AbleToScale")["reason"] == "SucceededRescale");
  CHECK(s.condition("AbleToScale")["message"] ==
        "the HPA controller was able to update the target scale to 3");
  CHECK(s.events("SuccessfulRescale") ==
        std::vector<std::string>{
            "New size: 3; reason: Current number of replicas below Spec.MinReplicas"});

  SECTION("within the bounds the missing metrics API is reported, and nothing scales") {
    s.advance(15s);
    CHECK(s.replicas() == 3);
    const json active = s.condition("ScalingActive");
    CHECK(active["status"] == "False");
    CHECK(active["reason"] == "FailedGetResourceMetric");
    CHECK(active["message"] ==
          "the HPA was unable to compute the replica count: failed to get cpu utilization: unable "
          "to get metrics for resource cpu: unable to fetch metrics from resource metrics API: "
          "the server could not find the requested resource (get pods.metrics.k8s.io)");
    CHECK(s.status()["currentMetrics"] == json::parse(R"([{"type":""}])"));
    CHECK(s.status()["currentReplicas"] == 3);
    CHECK(s.status()["desiredReplicas"] == 3);
    // (Events are named after the object and the time: on the fake clock the sync's second one,
    // FailedComputeMetricsReplicas, would take the first one's name; kubectl_hpa sees both.)
    CHECK(s.events("FailedGetResourceMetric").size() == 1);
  }
}

namespace {

// A Running, long Ready pod of the Deployment asking 100m of cpu.
void make_pod(apiserver::testing::Api& api, const std::string& name) {
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
      {"spec",
       {{"containers",
         {{{"name", "web"},
           {"image", "nginx"},
           {"resources", {{"requests", {{"cpu", "100m"}}}}}}}}}}};
  auto created = api.call("POST", apiserver::testing::kPods, pod);
  REQUIRE(created.status == 201);
  json running = created.body;
  running["status"] = {
      {"phase", "Running"},
      {"startTime", "2023-12-31T00:00:00Z"},
      {"conditions",
       {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2023-12-31T00:00:10Z"}}}}};
  REQUIRE(api.call("PUT", std::string(apiserver::testing::kPods) + "/" + name + "/status", running)
              .status == 200);
}

json metrics_of(std::initializer_list<const char*> pods, const char* cpu) {
  json items = json::array();
  for (const char* pod : pods) {
    items.push_back({{"metadata", {{"name", pod}, {"namespace", "default"}}},
                     {"timestamp", "2024-01-01T00:00:00Z"},
                     {"window", "15s"},
                     {"containers", {{{"name", "web"}, {"usage", {{"cpu", cpu}}}}}}});
  }
  return {{"kind", "PodMetricsList"}, {"apiVersion", "metrics.k8s.io/v1beta1"}, {"items", items}};
}

}  // namespace

TEST_CASE("with pod metrics served, an HPA scales its target by CPU utilization",
          "[cluster][hpa]") {
  Sandbox s;
  s.deploy(3);
  for (const char* name : {"web-a", "web-b", "web-c"}) {
    make_pod(s.api, name);
  }
  s.pod_metrics = metrics_of({"web-a", "web-b", "web-c"}, "150m");
  json hpa = autoscaler();
  hpa["spec"]["minReplicas"] = 1;
  hpa["spec"]["maxReplicas"] = 10;
  s.autoscale(hpa);
  s.advance(15s);
  // 150% of the requests against a 50% target: 9 wanted, at most double (6) at once.
  CHECK(s.replicas() == 6);
  CHECK(s.events("SuccessfulRescale") ==
        std::vector<std::string>{"New size: 6; reason: cpu resource utilization (percentage of "
                                 "request) above target"});
  CHECK(s.condition("ScalingActive")["reason"] == "ValidMetricFound");
  CHECK(s.condition("ScalingActive")["message"] ==
        "the HPA was able to successfully calculate a replica count from cpu resource utilization "
        "(percentage of request)");
  CHECK(s.condition("ScalingLimited")["status"] == "True");
  CHECK(s.condition("ScalingLimited")["reason"] == "ScaleUpLimit");
  CHECK(s.condition("AbleToScale")["reason"] == "SucceededRescale");
  CHECK(s.status()["currentMetrics"] == json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
          "current":{"averageUtilization":150,"averageValue":"150m"}}}])"));
  CHECK(s.status()["desiredReplicas"] == 6);
  CHECK(s.status()["currentReplicas"] == 3);
}

TEST_CASE("two HPAs over the same pods: neither scales, each says which HPAs select them",
          "[cluster][hpa]") {
  Sandbox s;
  s.deploy(3);
  make_pod(s.api, "web-a");
  s.pod_metrics = metrics_of({"web-a"}, "150m");
  for (const char* name : {"web", "web-memory"}) {
    json hpa = autoscaler();
    hpa["metadata"]["name"] = name;
    hpa["spec"]["minReplicas"] = 1;
    s.autoscale(hpa);
  }
  s.advance(15s);
  s.advance(15s);
  CHECK(s.replicas() == 3);
  const json active = s.condition("ScalingActive");
  CHECK(active["reason"] == "AmbiguousSelector");
  CHECK(active["message"] ==
        "pods by selector app=web are controlled by multiple HPAs: [default/web "
        "default/web-memory]");
  CHECK_FALSE(s.events("AmbiguousSelector").empty());
}
