// A simulated kubelet's steps (nodes/pod_lifecycle): the status path of a pod from bound to
// Running, Succeeded or Failed, and its removal after a deletion.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"

using cluster::KubeletStep;
using cluster::PodTiming;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const auto kStart = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

json bound_pod(const std::string& restart_policy = "Always") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "web-1"}, {"namespace", "default"}, {"uid", "u1"}}},
          {"spec",
           {{"nodeName", "node-1"},
            {"restartPolicy", restart_policy},
            {"containers", json::array({{{"name", "nginx"}, {"image", "nginx"}}})}}},
          {"status", {{"phase", "Pending"}, {"qosClass", "BestEffort"}}}};
}

// Applies a step's status to the pod, as the PATCH of pods/status would.
json after(json pod, const KubeletStep& step) {
  if (step.status)
    pod["status"] = *step.status;
  return pod;
}

}  // namespace

TEST_CASE("a bound pod goes ContainerCreating, then Running and Ready", "[cluster][kubelet]") {
  const PodTiming timing{1000ms, 1000ms};
  json pod = bound_pod();
  KubeletStep first = cluster::next_step(pod, "10.244.1.2", "172.18.0.2", kStart, timing);
  REQUIRE(first.status);
  CHECK((*first.status)["phase"] == "Pending");
  CHECK((*first.status)["containerStatuses"][0]["state"]["waiting"]["reason"] ==
        "ContainerCreating");
  CHECK((*first.status)["hostIP"] == "172.18.0.2");
  CHECK(first.recheck == 1000ms);
  pod = after(pod, first);

  // Too early: nothing changes yet.
  KubeletStep early = cluster::next_step(pod, "10.244.1.2", "172.18.0.2", kStart + 500ms, timing);
  CHECK_FALSE(early.status);
  REQUIRE(early.recheck);

  KubeletStep running = cluster::next_step(pod, "10.244.1.2", "172.18.0.2", kStart + 1s, timing);
  REQUIRE(running.status);
  const json& s = *running.status;
  CHECK(s["phase"] == "Running");
  CHECK(s["podIP"] == "10.244.1.2");
  CHECK(s["containerStatuses"][0]["ready"] == true);
  CHECK(s["containerStatuses"][0]["started"] == true);
  CHECK(s["containerStatuses"][0]["image"] == "docker.io/library/nginx:latest");
  CHECK(s["containerStatuses"][0]["containerID"].get<std::string>().starts_with("containerd://"));
  CHECK(s["qosClass"] == "BestEffort");
  pod = after(pod, running);
  CHECK(cluster::string_at(*cluster::condition(pod, "Ready"), {"status"}) == "True");
  REQUIRE(running.events.size() == 3);
  CHECK(running.events[2].reason == "Started");

  // Running and nothing due: no write, no recheck (an Always pod runs on).
  KubeletStep idle = cluster::next_step(pod, "10.244.1.2", "172.18.0.2", kStart + 60s, timing);
  CHECK_FALSE(idle.status);
  CHECK_FALSE(idle.recheck);
}

TEST_CASE("a container with a readiness probe is ready after its initial delay",
          "[cluster][kubelet]") {
  json pod = bound_pod();
  pod["spec"]["containers"][0]["readinessProbe"] = {{"initialDelaySeconds", 5}};
  const PodTiming timing{0ms, 0ms};
  pod = after(pod, cluster::next_step(pod, "10.244.1.2", "h", kStart, timing));
  KubeletStep running = cluster::next_step(pod, "10.244.1.2", "h", kStart, timing);
  REQUIRE(running.status);
  CHECK((*running.status)["containerStatuses"][0]["ready"] == false);
  CHECK(running.recheck);
  pod = after(pod, running);
  KubeletStep ready = cluster::next_step(pod, "10.244.1.2", "h", kStart + 5s, timing);
  REQUIRE(ready.status);
  CHECK((*ready.status)["containerStatuses"][0]["ready"] == true);
}

TEST_CASE("a Never pod's containers exit: Succeeded, or Failed with the exit-code annotation",
          "[cluster][kubelet]") {
  const PodTiming timing{0ms, 0ms};
  for (int code : {0, 3}) {
    json pod = bound_pod("Never");
    pod["metadata"]["annotations"] = {{"kube-sandbox.io/run-seconds", "2"},
                                      {"kube-sandbox.io/exit-code", std::to_string(code)}};
    pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
    pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
    CHECK(pod["status"]["phase"] == "Running");
    KubeletStep done = cluster::next_step(pod, "ip", "h", kStart + 2s, timing);
    REQUIRE(done.status);
    CHECK((*done.status)["phase"] == (code == 0 ? "Succeeded" : "Failed"));
    CHECK((*done.status)["containerStatuses"][0]["state"]["terminated"]["exitCode"] == code);
    CHECK(cluster::pod_terminal(after(pod, done)));
  }
}

TEST_CASE("an OnFailure pod that fails restarts in place", "[cluster][kubelet]") {
  const PodTiming timing{0ms, 0ms};
  json pod = bound_pod("OnFailure");
  pod["metadata"]["annotations"] = {{"kube-sandbox.io/exit-code", "1"}};
  pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
  pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
  KubeletStep restarted = cluster::next_step(pod, "ip", "h", kStart + 3s, timing);
  REQUIRE(restarted.status);
  CHECK((*restarted.status)["phase"] == "Running");
  CHECK((*restarted.status)["containerStatuses"][0]["restartCount"] == 1);
  CHECK((*restarted.status)["containerStatuses"][0]["lastState"]["terminated"]["exitCode"] == 1);
}

TEST_CASE("an Always pod's containers restart whatever their exit code, and it stays Running",
          "[cluster][kubelet]") {
  const PodTiming timing{0ms, 0ms};
  for (int code : {0, 2}) {
    json pod = bound_pod("Always");
    pod["metadata"]["annotations"] = {{"kube-sandbox.io/run-seconds", "1"},
                                      {"kube-sandbox.io/exit-code", std::to_string(code)}};
    pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
    pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
    KubeletStep restarted = cluster::next_step(pod, "ip", "h", kStart + 1s, timing);
    REQUIRE(restarted.status);
    CHECK((*restarted.status)["phase"] == "Running");
    const json& container = (*restarted.status)["containerStatuses"][0];
    CHECK(container["restartCount"] == 1);
    CHECK(container["lastState"]["terminated"]["exitCode"] == code);
    CHECK(container["lastState"]["terminated"]["reason"] == (code == 0 ? "Completed" : "Error"));
    CHECK(container["state"].contains("running"));
    REQUIRE(restarted.events.size() == 1);
    CHECK(restarted.events[0].reason == "BackOff");
    CHECK(restarted.events[0].message ==
          "Back-off restarting failed container nginx in pod web-1_default(u1)");
    CHECK_FALSE(cluster::pod_terminal(after(pod, restarted)));
  }
}

TEST_CASE("an OnFailure pod whose containers succeed is Succeeded", "[cluster][kubelet]") {
  const PodTiming timing{0ms, 0ms};
  json pod = bound_pod("OnFailure");
  pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
  pod = after(pod, cluster::next_step(pod, "ip", "h", kStart, timing));
  KubeletStep done = cluster::next_step(pod, "ip", "h", kStart + 3s, timing);
  REQUIRE(done.status);
  CHECK((*done.status)["phase"] == "Succeeded");
}

TEST_CASE("a deleted pod is removed once its containers stopped, within its grace period",
          "[cluster][kubelet]") {
  json pod = bound_pod();
  pod["metadata"]["deletionTimestamp"] = cluster::rfc3339(kStart + 30s);
  pod["metadata"]["deletionGracePeriodSeconds"] = 30;
  const PodTiming timing{1000ms, 2000ms};
  KubeletStep waiting = cluster::next_step(pod, "ip", "h", kStart + 1s, timing);
  CHECK_FALSE(waiting.remove);
  REQUIRE(waiting.recheck);
  CHECK(cluster::next_step(pod, "ip", "h", kStart + 2s, timing).remove);

  pod["metadata"]["deletionTimestamp"] = cluster::rfc3339(kStart);
  pod["metadata"]["deletionGracePeriodSeconds"] = 0;
  CHECK(cluster::next_step(pod, "ip", "h", kStart, timing).remove);
}
