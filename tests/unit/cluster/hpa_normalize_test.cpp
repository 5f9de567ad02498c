// How the HPA controller turns the metrics' proposal into the count it scales to: the downscale
// stabilization window, the scale-up rate limit, the bounds, and spec.behavior's policies.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "autoscaling/hpa_normalize.h"

using cluster::NormalizeInput;
using cluster::ScaleHistory;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const ScaleHistory::time_point kStart{std::chrono::seconds(1'700'000'000)};

NormalizeInput input(int64_t current, int64_t desired, int64_t min, int64_t max,
                     ScaleHistory::time_point now, const json* behavior = nullptr) {
  NormalizeInput in;
  in.behavior = behavior;
  in.current = current;
  in.desired = desired;
  in.min_replicas = min;
  in.max_replicas = max;
  in.now = now;
  return in;
}

}  // namespace

TEST_CASE("without behavior a scale down waits for the highest recommendation of 5 minutes",
          "[hpa]") {
  ScaleHistory history;
  history.record_initial(5, kStart);
  auto held = cluster::normalize_replicas(history, input(5, 2, 1, 10, kStart + 60s));
  CHECK(held.replicas == 5);
  CHECK(held.able_to_scale.reason == "ScaleDownStabilized");
  CHECK(held.able_to_scale.message ==
        "recent recommendations were higher than current one, applying the highest recent "
        "recommendation");
  CHECK(held.scaling_limited.status == "False");
  CHECK(held.scaling_limited.reason == "DesiredWithinRange");
  auto later = cluster::normalize_replicas(history, input(5, 2, 1, 10, kStart + 420s));
  CHECK(later.replicas == 2);
  CHECK(later.able_to_scale.reason == "ReadyForNewScale");
  CHECK(later.able_to_scale.message == "recommended size matches current size");
}

TEST_CASE("without behavior a scale up is at most double (and at least 4), within the bounds",
          "[hpa]") {
  ScaleHistory history;
  auto rate = cluster::normalize_replicas(history, input(2, 10, 1, 20, kStart));
  CHECK(rate.replicas == 4);
  CHECK(rate.scaling_limited.status == "True");
  CHECK(rate.scaling_limited.reason == "ScaleUpLimit");
  CHECK(rate.scaling_limited.message ==
        "the desired replica count is increasing faster than the maximum scale rate");
  auto most = cluster::normalize_replicas(history, input(10, 30, 1, 15, kStart));
  CHECK(most.replicas == 15);
  CHECK(most.scaling_limited.reason == "TooManyReplicas");
  ScaleHistory fresh;
  auto fewest = cluster::normalize_replicas(fresh, input(3, 0, 2, 15, kStart));
  CHECK(fewest.replicas == 2);
  CHECK(fewest.scaling_limited.reason == "TooFewReplicas");
  CHECK(fewest.scaling_limited.message ==
        "the desired replica count is less than the minimum replica count");
}

TEST_CASE(
    "behavior: the default scale-up policies, a scale-down policy over its period, "
    "Disabled",
    "[hpa]") {
  const json defaults = json::object({{"scaleUp", json::object()}});
  ScaleHistory history;
  auto up = cluster::normalize_replicas(history, input(2, 20, 1, 50, kStart, &defaults));
  CHECK(up.replicas == 6);  // 4 pods or 100% per 15 s: the larger, 2 + 4
  CHECK(up.scaling_limited.reason == "ScaleUpLimit");

  const json halve = json::parse(R"({"scaleDown":{"stabilizationWindowSeconds":0,
    "policies":[{"type":"Percent","value":50,"periodSeconds":60}]}})");
  ScaleHistory down_history;
  auto first = cluster::normalize_replicas(down_history, input(10, 2, 1, 50, kStart, &halve));
  CHECK(first.replicas == 5);
  CHECK(first.scaling_limited.reason == "ScaleDownLimit");
  CHECK(first.scaling_limited.message ==
        "the desired replica count is decreasing faster than the maximum scale rate");
  down_history.record_scale(&halve, 10, 5, kStart);
  // Within the period the halving already happened: no further step down.
  auto again = cluster::normalize_replicas(down_history, input(5, 2, 1, 50, kStart + 30s, &halve));
  CHECK(again.replicas == 5);
  // After it, half of 5 (rounded down).
  auto after = cluster::normalize_replicas(down_history, input(5, 2, 1, 50, kStart + 90s, &halve));
  CHECK(after.replicas == 2);

  const json disabled = json::parse(R"({"scaleUp":{"selectPolicy":"Disabled"}})");
  ScaleHistory off;
  CHECK(cluster::normalize_replicas(off, input(3, 9, 1, 50, kStart, &disabled)).replicas == 3);
}
