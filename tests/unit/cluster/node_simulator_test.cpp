// The simulated kubelets (nodes/node_simulator, nodes/simulated_node) against an API server in
// process: a kubelet stopped by the kube-sandbox.io/kubelet annotation renews no lease and runs
// no pod until the annotation goes, then starts again as a kubelet process does; a kubelet asks
// for its pods' service-account tokens and refreshes them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "client/objects.h"
#include "common/clock.h"
#include "common/read_file.h"
#include "nodes/node_simulator.h"
#include "nodes/simulated_node.h"
#include "test_api.h"

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kNode = "/api/v1/nodes/node-1";
constexpr const char* kLease =
    "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1";

json condition(const char* type, const char* status) {
  return {{"type", type}, {"status", status}};
}

// The simulator and the API server it writes to, on a fake clock for the kubelets.
struct Sandbox {
  common::FakeClock clock;
  apiserver::testing::Api api;
  cluster::Handler handler = [this](apiserver::http::Request& r) { return api.raw(r); };
  cluster::Client reader{
      handler, {"system:kube-sandbox:node-simulator", {"system:nodes"}}, "kube-sandbox-test"};
  cluster::NodeSimulator simulator{handler, reader, 1, cluster::PodTiming{}, 40s, clock};

  Sandbox() {
    simulator.start();
    simulator.run();
    settle();
  }
  ~Sandbox() { simulator.stop(); }

  // Waits until the kubelets have nothing due now.
  void settle() { REQUIRE(simulator.queue().wait_idle(clock.now(), std::chrono::seconds(20))); }
  // Does `write` and waits until the kubelets noticed it (a key queued) and did what follows.
  template <class Write>
  void after(Write write) {
    const uint64_t seen = simulator.queue().changes();
    write();
    REQUIRE(simulator.queue().wait_changed(seen, std::chrono::seconds(20)));
    settle();
  }
  void annotate(const json& value) {
    after([&] {
      auto reply = api.patch(
          kNode, "application/merge-patch+json",
          json{{"metadata", {{"annotations", {{"kube-sandbox.io/kubelet", value}}}}}}.dump());
      REQUIRE(reply.status == 200);
    });
  }
  std::string renewed() { return api.call("GET", kLease).body["spec"]["renewTime"]; }
  json pod() { return api.call("GET", std::string(apiserver::testing::kPods) + "/web").body; }
};

}  // namespace

TEST_CASE("the annotation stops a node's kubelet", "[cluster][kubelet]") {
  CHECK_FALSE(cluster::kubelet_stopped(json::object()));
  CHECK(cluster::kubelet_stopped(
      {{"metadata", {{"annotations", {{"kube-sandbox.io/kubelet", "stopped"}}}}}}));
  CHECK_FALSE(cluster::kubelet_stopped(
      {{"metadata", {{"annotations", {{"kube-sandbox.io/kubelet", "running"}}}}}}));
}

TEST_CASE("a kubelet reports the conditions its status changes", "[cluster][kubelet]") {
  const json healthy = {
      {"conditions",
       json::array({condition("MemoryPressure", "False"), condition("DiskPressure", "False"),
                    condition("PIDPressure", "False"), condition("Ready", "True")})}};
  // Registered, or started after the node lifecycle controller marked it Unknown: each of them.
  const std::vector<std::string> all = {"NodeHasSufficientMemory", "NodeHasNoDiskPressure",
                                        "NodeHasSufficientPID", "NodeReady"};
  CHECK(cluster::condition_events(json::object(), healthy) == all);
  json unknown = {{"status", healthy}};
  for (json& c : unknown["status"]["conditions"])
    c["status"] = "Unknown";
  CHECK(cluster::condition_events(unknown, healthy) == all);
  // Nothing changed: nothing to say.
  CHECK(cluster::condition_events({{"status", healthy}}, healthy).empty());
  const json pressed = {{"conditions", json::array({condition("MemoryPressure", "True"),
                                                    condition("Ready", "False")})}};
  CHECK(cluster::condition_events({{"status", healthy}}, pressed) ==
        std::vector<std::string>{"NodeHasInsufficientMemory", "NodeNotReady"});
}

TEST_CASE("a stopped kubelet renews no lease and runs no pod until started again",
          "[cluster][kubelet]") {
  Sandbox s;
  const std::string registered = s.renewed();
  REQUIRE_FALSE(registered.empty());

  s.annotate("stopped");
  s.after([&] {
    json pod = apiserver::testing::pod("web");
    pod["spec"]["nodeName"] = "node-1";
    REQUIRE(s.api.call("POST", apiserver::testing::kPods, pod).status == 201);
  });
  s.clock.advance(10s);  // a renewal was due now
  s.settle();
  CHECK(s.renewed() == registered);
  CHECK(cluster::at(s.pod(), {"status", "startTime"}) == nullptr);
  CHECK(cluster::at(s.pod(), {"status", "containerStatuses"}) == nullptr);

  s.annotate(nullptr);  // started again
  CHECK(s.renewed() != registered);
  const json pod = s.pod();
  CHECK(pod["status"]["phase"] == "Pending");
  REQUIRE(cluster::at(pod, {"status", "containerStatuses"}) != nullptr);
  CHECK(pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ContainerCreating");
  CHECK(cluster::condition_true(s.api.call("GET", kNode).body, "Ready"));
  // "Starting kubelet." once at registration and once now.
  int64_t starts = 0;
  const auto events = s.api.call("GET", "/api/v1/namespaces/default/events");
  REQUIRE(events.status == 200);
  INFO(events.body.dump());
  for (const json& e : events.body["items"]) {
    if (e["reason"] == "Starting" && e["involvedObject"]["name"] == "node-1") {
      CHECK(e["message"] == "Starting kubelet.");
      starts += e["count"].get<int64_t>();
    }
  }
  CHECK(starts == 2);
}

TEST_CASE("a kubelet asks for its pod's token and refreshes it after 80% of its life",
          "[cluster][kubelet]") {
  common::FakeClock clock;
  apiserver::ServiceAccountOptions accounts;
  auto key = common::read_file(std::string(KS_APISERVER_TEST_DATA) + "/sa_rsa.key");
  REQUIRE(key);
  accounts.signing_key_pem = *key;
  apiserver::testing::Api api(&clock, accounts);
  cluster::Handler handler = [&api](apiserver::http::Request& r) { return api.raw(r); };
  cluster::Client reader{
      handler, {"system:kube-sandbox:node-simulator", {"system:nodes"}}, "kube-sandbox-test"};
  cluster::NodeSimulator simulator{handler, reader, 1, cluster::PodTiming{}, 40s, clock};
  simulator.start();
  simulator.run();
  auto settle = [&] {
    REQUIRE(simulator.queue().wait_idle(clock.now(), std::chrono::seconds(20)));
  };
  // The kubelet's granted TokenRequests so far, as "user code" (one refused while the node
  // authorizer's graph has not seen the pod yet is retried).
  auto requests = [&] {
    std::vector<std::string> out;
    auto trace = api.call(
        "GET", "/debug/requests?verb=create&resource=serviceaccounts&user=system:node:node-1");
    for (const json& t : trace.body["items"]) {
      if (t["code"] != 201) {
        continue;
      }
      out.push_back(t["user"].get<std::string>() + " " + std::to_string(t["code"].get<int>()));
    }
    return out;
  };
  settle();
  REQUIRE(
      api.call(
             "POST", "/api/v1/namespaces/default/serviceaccounts",
             {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "robot"}}}})
          .status == 201);
  json pod = apiserver::testing::pod("web");
  pod["spec"]["nodeName"] = "node-1";
  pod["spec"]["serviceAccountName"] = "robot";
  pod["spec"]["volumes"] = json::parse(R"([{"name": "kube-api-access-abcde", "projected":
      {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}])");
  const uint64_t seen = simulator.queue().changes();
  REQUIRE(api.call("POST", apiserver::testing::kPods, pod).status == 201);
  REQUIRE(simulator.queue().wait_changed(seen, std::chrono::seconds(20)));
  settle();
  const std::vector<std::string> one = {"system:node:node-1 201"};
  CHECK(requests() == one);

  clock.advance(2880s);  // 80% of 3607 s is 2885.6 s: not yet
  settle();
  CHECK(requests() == one);
  clock.advance(10s);
  settle();
  const std::vector<std::string> two = {"system:node:node-1 201", "system:node:node-1 201"};
  CHECK(requests() == two);
  simulator.stop();
}

TEST_CASE("a pod whose token cannot be had stays in ContainerCreating", "[cluster][kubelet]") {
  Sandbox s;  // its API server has no signing key: TokenRequest is not served
  json pod = apiserver::testing::pod("web");
  pod["spec"]["nodeName"] = "node-1";
  pod["spec"]["volumes"] = json::parse(R"([{"name": "kube-api-access-abcde", "projected":
      {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}])");
  s.after([&] { REQUIRE(s.api.call("POST", apiserver::testing::kPods, pod).status == 201); });
  s.clock.advance(5s);  // past the start delay, and the first retries
  s.settle();
  const json stored = s.pod();
  CHECK(stored["status"]["phase"] == "Pending");
  REQUIRE(cluster::at(stored, {"status", "containerStatuses"}) != nullptr);
  CHECK(stored["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] ==
        "ContainerCreating");
  const auto events = s.api.call("GET", "/api/v1/namespaces/default/events");
  REQUIRE(events.status == 200);
  std::string message;
  for (const json& e : events.body["items"]) {
    if (e["reason"] == "FailedMount") {
      CHECK(e["type"] == "Warning");
      message = e["message"];
    }
  }
  CHECK(message.starts_with(
      "MountVolume.SetUp failed for volume \"kube-api-access-abcde\" : failed to fetch token: "));
}
