// How the HPA controller turns the count its metrics propose into the count it scales to, as
// upstream's normalizeDesiredReplicas (no spec.behavior) and normalizeDesiredReplicasWithBehaviors
// do: the recommendations of the stabilization windows (scale down no lower than the highest
// recommendation of the last five minutes, by default), then the rate limits (without behavior,
// at most double or 4 more; with it, the scaling policies over their periods, counting the
// scalings already made in them) and minReplicas and maxReplicas. What it remembers of an HPA
// between syncs is its ScaleHistory.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

struct ScaleHistory {
  using time_point = std::chrono::system_clock::time_point;
  struct Recommendation {
    int64_t replicas;
    time_point at;
  };
  struct ScaleEvent {
    int64_t change;  // replicas added (scale-up events) or removed (scale-down events)
    time_point at;
  };
  std::vector<Recommendation> recommendations;
  std::vector<ScaleEvent> ups;
  std::vector<ScaleEvent> downs;

  // The first sync's recommendation is the current count (recordInitialRecommendation).
  void record_initial(int64_t current, time_point now);
  // After a rescale with spec.behavior: the change, counted against the policies' periods.
  void record_scale(const json* behavior, int64_t before, int64_t after, time_point now);
};

// A condition the normalization sets: AbleToScale (always True here) and ScalingLimited.
struct NormalizedCondition {
  std::string status;
  std::string reason;
  std::string message;
};

struct Normalized {
  int64_t replicas = 0;
  NormalizedCondition able_to_scale;
  NormalizedCondition scaling_limited;
};

struct NormalizeInput {
  const json* behavior = nullptr;  // spec.behavior, or null
  int64_t current = 0;
  int64_t desired = 0;  // what the metrics propose
  int64_t min_replicas = 1;
  int64_t max_replicas = 1;
  std::chrono::seconds downscale_stabilization{300};
  ScaleHistory::time_point now{};
};

Normalized normalize_replicas(ScaleHistory& history, const NormalizeInput& in);

}  // namespace cluster
