// The HPA controller against an API server in process, on a fake clock: an HPA is first looked at
// one sync period after it appears, its target raised to minReplicas through the scale
// subresource, and then, within the bounds, the missing metrics API reported without scaling.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "autoscaling/horizontal_pod_autoscaler_controller.h"
#include "common/clock.h"
#include "test_api.h"

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kDeployment = "/apis/apps/v1/namespaces/default/deployments/web";
constexpr const char* kAutoscaler =
    "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web";

struct Sandbox {
  common::FakeClock clock;
  apiserver::testing::Api api;
  cluster::Handler handler = [this](apiserver::http::Request& r) { return api.raw(r); };
  cluster::Client client{handler,
                         {"system:serviceaccount:kube-system:horizontal-pod-autoscaler",
                          {"system:serviceaccounts", "system:serviceaccounts:kube-system"}},
                         "kube-sandbox-test"};
  cluster::HorizontalPodAutoscalerController controller{client, 15s, clock};

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
  // Moves the clock and waits until the controller did what came due.
  void advance(std::chrono::seconds by) {
    clock.advance(by);
    REQUIRE(controller.queue().wait_idle(clock.now(), 20s));
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
  REQUIRE(s.api.call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment()).status ==
          201);
  s.after([&] {
    REQUIRE(s.api
                .call("POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
                      autoscaler())
                .status == 201);
  });
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
