// What the node lifecycle controller decides (nodes/node_health, nodes/zone_tainter): the
// conditions of a node whose kubelet went quiet, the NoSchedule taints that mirror conditions,
// taint lists, zone states and the rate at which a zone's nodes get their NoExecute taint.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "client/objects.h"
#include "nodes/node_health.h"
#include "nodes/zone_tainter.h"

using cluster::ZoneState;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

json condition(const char* type, const char* status, const char* reason) {
  return {{"type", type},
          {"status", status},
          {"reason", reason},
          {"message", "kubelet says so"},
          {"lastHeartbeatTime", "2026-01-01T10:00:00Z"},
          {"lastTransitionTime", "2026-01-01T09:00:00Z"}};
}

json reported_node() {
  return {{"metadata",
           {{"name", "node-3"},
            {"creationTimestamp", "2026-01-01T08:00:00Z"},
            {"labels",
             {{"topology.kubernetes.io/region", "sandbox"},
              {"topology.kubernetes.io/zone", "zone-c"}}}}},
          {"status",
           {{"conditions",
             json::array({condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                          condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                          condition("PIDPressure", "False", "KubeletHasSufficientPID"),
                          condition("Ready", "True", "KubeletReady"),
                          condition("NetworkUnavailable", "False", "RouteCreated")})}}}};
}

}  // namespace

TEST_CASE("a quiet kubelet's conditions turn Unknown with kube-controller-manager's words",
          "[cluster][nodelifecycle]") {
  const json conditions = cluster::unknown_conditions(reported_node(), "2026-01-01T10:01:00Z");
  REQUIRE(conditions.size() == 5);
  for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    CAPTURE(type);
    const json* c = cluster::condition_in(conditions, type);
    REQUIRE(c != nullptr);
    CHECK((*c)["status"] == "Unknown");
    CHECK((*c)["reason"] == "NodeStatusUnknown");
    CHECK((*c)["message"] == "Kubelet stopped posting node status.");
    CHECK((*c)["lastTransitionTime"] == "2026-01-01T10:01:00Z");
    CHECK((*c)["lastHeartbeatTime"] == "2026-01-01T10:00:00Z");  // the kubelet's last
  }
  // NetworkUnavailable belongs to the network, not the kubelet: untouched.
  CHECK(*cluster::condition_in(conditions, "NetworkUnavailable") ==
        condition("NetworkUnavailable", "False", "RouteCreated"));

  SECTION("a condition already Unknown keeps its transition time") {
    json node = reported_node();
    node["status"]["conditions"] = conditions;
    CHECK(cluster::unknown_conditions(node, "2026-01-01T10:05:00Z") == conditions);
  }
  SECTION("a condition never reported is added as never updated") {
    json node = reported_node();
    node["status"]["conditions"] = json::array();
    const json added = cluster::unknown_conditions(node, "2026-01-01T10:01:00Z");
    REQUIRE(added.size() == 4);
    const json* ready = cluster::condition_in(added, "Ready");
    REQUIRE(ready != nullptr);
    CHECK(*ready == json{{"type", "Ready"},
                         {"status", "Unknown"},
                         {"reason", "NodeStatusNeverUpdated"},
                         {"message", "Kubelet never posted node status."},
                         {"lastHeartbeatTime", "2026-01-01T08:00:00Z"},
                         {"lastTransitionTime", "2026-01-01T10:01:00Z"}});
  }
}

TEST_CASE("the NoSchedule taints mirror the conditions", "[cluster][nodelifecycle]") {
  struct Row {
    const char* type;
    const char* status;
    const char* taint;  // nullptr: none
  };
  const Row rows[] = {
      {"Ready", "True", nullptr},
      {"Ready", "False", "node.kubernetes.io/not-ready"},
      {"Ready", "Unknown", "node.kubernetes.io/unreachable"},
      {"MemoryPressure", "True", "node.kubernetes.io/memory-pressure"},
      {"MemoryPressure", "Unknown", nullptr},
      {"DiskPressure", "True", "node.kubernetes.io/disk-pressure"},
      {"PIDPressure", "True", "node.kubernetes.io/pid-pressure"},
      {"NetworkUnavailable", "True", "node.kubernetes.io/network-unavailable"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.type, row.status);
    const json node = {
        {"status", {{"conditions", json::array({{{"type", row.type}, {"status", row.status}}})}}}};
    const auto taints = cluster::condition_taints(node);
    if (row.taint == nullptr) {
      CHECK(taints.empty());
    } else {
      REQUIRE(taints.size() == 1);
      CHECK(taints[0] == json{{"key", row.taint}, {"effect", "NoSchedule"}});
      CHECK(cluster::condition_taint_key(row.taint));
    }
  }
  CHECK_FALSE(cluster::condition_taint_key("node.kubernetes.io/unschedulable"));
}

TEST_CASE("a taint swap removes by key and effect and stamps what it adds",
          "[cluster][nodelifecycle]") {
  const json taints = json::array(
      {{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}},
       {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}, {"timeAdded", "t0"}}});
  const json unreachable = {{"key", "node.kubernetes.io/unreachable"}, {"effect", "NoExecute"}};
  const json not_ready = {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}};
  auto swapped = cluster::with_taints(taints, {unreachable}, {not_ready}, "t1");
  REQUIRE(swapped);
  CHECK(*swapped == json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}},
                                 {{"key", "node.kubernetes.io/unreachable"},
                                  {"effect", "NoExecute"},
                                  {"timeAdded", "t1"}}}));
  CHECK_FALSE(cluster::with_taints(*swapped, {unreachable}, {not_ready}, "t2"));  // no change
  auto none = cluster::with_taints(nullptr, {}, {not_ready}, "t1");
  CHECK_FALSE(none);
  auto added = cluster::with_taints(nullptr, {not_ready}, {}, "t1");
  REQUIRE(added);
  CHECK(added->size() == 1);
  CHECK(cluster::has_taint({{"spec", {{"taints", *added}}}}, "node.kubernetes.io/not-ready",
                           "NoExecute"));
  CHECK_FALSE(cluster::has_taint({{"spec", {{"taints", *added}}}}, "node.kubernetes.io/not-ready",
                                 "NoSchedule"));
}

TEST_CASE("a zone is fully, partially or not disrupted", "[cluster][nodelifecycle]") {
  struct Row {
    int ready;
    int not_ready;
    ZoneState state;
  };
  const Row rows[] = {
      {0, 1, ZoneState::FullDisruption},
      {0, 0, ZoneState::Normal},
      {1, 2, ZoneState::Normal},
      {2, 3, ZoneState::PartialDisruption},
      {3, 3, ZoneState::Normal},
      {9, 11, ZoneState::PartialDisruption},
      {1, 3, ZoneState::PartialDisruption},
      {10, 3, ZoneState::Normal},
  };
  for (const Row& row : rows) {
    CAPTURE(row.ready, row.not_ready);
    CHECK(cluster::zone_state(row.ready, row.not_ready, 0.55) == row.state);
  }
  CHECK(cluster::zone_of(reported_node()) == "sandbox:zone-c");
  CHECK(cluster::zone_of(json::object()).empty());
  json beta = reported_node();
  beta["metadata"]["labels"]["failure-domain.beta.kubernetes.io/zone"] = "old";
  CHECK(cluster::zone_of(beta) == "sandbox:old");
}

TEST_CASE("a zone's nodes are tainted one per token of the eviction rate",
          "[cluster][nodelifecycle]") {
  const common::Clock::time_point t0{};
  cluster::ZoneTainter zone(0.1, t0);
  CHECK(zone.add("node-1"));
  CHECK(zone.add("node-4"));
  CHECK_FALSE(zone.add("node-1"));  // queued once
  auto first = zone.next(t0);
  REQUIRE(first);
  CHECK(*first == "node-1");
  zone.done("node-1");
  CHECK_FALSE(zone.add("node-1"));  // tainted: stays in the set until removed
  CHECK_FALSE(zone.next(t0 + 9s));
  REQUIRE(zone.wake_at(t0));
  CHECK(*zone.wake_at(t0) == t0 + 10s);
  auto second = zone.next(t0 + 10s);
  REQUIRE(second);
  CHECK(*second == "node-4");
  zone.done("node-4");
  CHECK(zone.empty());
  CHECK_FALSE(zone.wake_at(t0 + 10s));

  SECTION("removed, a node can be queued again") {
    CHECK(zone.remove("node-1"));
    CHECK(zone.add("node-1"));
    CHECK_FALSE(zone.next(t0 + 15s));  // the bucket refills at 0.1/s
    CHECK(zone.next(t0 + 20s) == std::optional<std::string>("node-1"));
  }
  SECTION("a rate of 0 lets nothing through, and the old bucket's emptiness carries over") {
    zone.remove("node-1");
    zone.add("node-1");
    zone.set_rate(0, t0 + 10s);
    CHECK_FALSE(zone.next(t0 + 1h));
    CHECK_FALSE(zone.wake_at(t0 + 1h));
    zone.set_rate(0.1, t0 + 1h);  // the never-limiter had no token: the new bucket starts empty
    CHECK_FALSE(zone.next(t0 + 1h));
    CHECK(zone.next(t0 + 1h + 10s) == std::optional<std::string>("node-1"));
  }
  SECTION("a node that failed is retried first, when due") {
    zone.remove("node-1");
    zone.add("node-1");
    auto again = zone.next(t0 + 20s);
    REQUIRE(again);
    zone.retry(*again, t0 + 20s + 50ms);
    CHECK(*zone.wake_at(t0 + 20s) == t0 + 30s);  // the token was spent
    CHECK(zone.next(t0 + 30s) == std::optional<std::string>("node-1"));
  }
}
