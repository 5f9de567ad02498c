// How long a pod tolerates a node's NoExecute taints (nodes/taint_eviction_controller): each
// taint by its first matching toleration, the shortest tolerationSeconds of those.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "nodes/taint_eviction_controller.h"

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const json kUnreachable = {{"key", "node.kubernetes.io/unreachable"}, {"effect", "NoExecute"}};
const json kNotReady = {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}};

json toleration(const char* key, std::optional<int64_t> seconds) {
  json t = {{"operator", "Exists"}, {"effect", "NoExecute"}};
  if (key != nullptr) {
    t["key"] = key;
  }
  if (seconds) {
    t["tolerationSeconds"] = *seconds;
  }
  return t;
}

json pod_with(json tolerations) {
  return {{"spec", {{"tolerations", std::move(tolerations)}}}};
}

}  // namespace

TEST_CASE("a pod tolerates NoExecute taints by its first matching tolerations",
          "[cluster][taints]") {
  const json both = json::array({kUnreachable, kNotReady});
  SECTION("no toleration: evicted at once") {
    auto t = cluster::taint_tolerance(json{{"spec", json::object()}}, both);
    CHECK_FALSE(t.tolerated);
    CHECK(t.seconds == 0s);
  }
  SECTION("one taint not tolerated: evicted at once") {
    auto t = cluster::taint_tolerance(
        pod_with(json::array({toleration("node.kubernetes.io/unreachable", 300)})), both);
    CHECK_FALSE(t.tolerated);
  }
  SECTION("the API server's defaults: 300 s") {
    auto t = cluster::taint_tolerance(
        pod_with(json::array({toleration("node.kubernetes.io/not-ready", 300),
                              toleration("node.kubernetes.io/unreachable", 300)})),
        both);
    CHECK(t.tolerated);
    CHECK(t.seconds == 300s);
  }
  SECTION("the shortest of the tolerations used") {
    auto t = cluster::taint_tolerance(
        pod_with(json::array({toleration("node.kubernetes.io/not-ready", 300),
                              toleration("node.kubernetes.io/unreachable", 2)})),
        both);
    CHECK(t.seconds == 2s);
  }
  SECTION("the first match counts: a later toleration for ever does not") {
    auto t = cluster::taint_tolerance(
        pod_with(json::array(
            {toleration("node.kubernetes.io/unreachable", 2), toleration(nullptr, std::nullopt)})),
        json::array({kUnreachable}));
    CHECK(t.seconds == 2s);
  }
  SECTION("no tolerationSeconds: for ever") {
    auto t =
        cluster::taint_tolerance(pod_with(json::array({toleration(nullptr, std::nullopt)})), both);
    CHECK(t.tolerated);
    CHECK_FALSE(t.seconds);
  }
  SECTION("zero or less: at once") {
    auto t = cluster::taint_tolerance(pod_with(json::array({toleration(nullptr, -5)})), both);
    CHECK(t.tolerated);
    CHECK(t.seconds == 0s);
  }
  SECTION("an effect or key that does not match tolerates nothing") {
    json other = toleration("node.kubernetes.io/unreachable", std::nullopt);
    other["effect"] = "NoSchedule";
    CHECK_FALSE(cluster::taint_tolerance(pod_with(json::array({other})), both).tolerated);
  }
}
