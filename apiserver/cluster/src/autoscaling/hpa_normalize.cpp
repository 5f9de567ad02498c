#include "autoscaling/hpa_normalize.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "client/objects.h"

namespace cluster {
namespace {

using time_point = ScaleHistory::time_point;

struct Policy {
  std::string type;  // Pods or Percent
  int64_t value = 0;
  int64_t period_seconds = 0;
};

// One direction of spec.behavior with API defaulting's values where a field is left out (and
// the controller's downscale stabilization for scaleDown's window).
struct Rules {
  int64_t stabilization_seconds = 0;
  std::string select = "Max";
  std::vector<Policy> policies;
};

Rules rules_of(const json* behavior, bool up, std::chrono::seconds downscale_window) {
  Rules rules;
  rules.stabilization_seconds = up ? 0 : downscale_window.count();
  rules.policies = up ? std::vector<Policy>{{"Pods", 4, 15}, {"Percent", 100, 15}}
                      : std::vector<Policy>{{"Percent", 100, 15}};
  const json* side = behavior != nullptr ? at(*behavior, {up ? "scaleUp" : "scaleDown"}) : nullptr;
  if (side == nullptr || !side->is_object()) {
    return rules;
  }
  rules.stabilization_seconds =
      int_at(*side, {"stabilizationWindowSeconds"}, rules.stabilization_seconds);
  if (const std::string select = string_at(*side, {"selectPolicy"}); !select.empty()) {
    rules.select = select;
  }
  if (const json* policies = at(*side, {"policies"}); policies != nullptr && policies->is_array()) {
    rules.policies.clear();
    for (const json& p : *policies) {
      rules.policies.push_back(
          {string_at(p, {"type"}), int_at(p, {"value"}, 0), int_at(p, {"periodSeconds"}, 0)});
    }
  }
  return rules;
}

// The replicas changed by the events within the last `period_seconds`.
int64_t changed_within(const std::vector<ScaleHistory::ScaleEvent>& events, int64_t period_seconds,
                       time_point now) {
  const time_point cutoff = now - std::chrono::seconds(period_seconds);
  int64_t changed = 0;
  for (const auto& e : events) {
    if (e.at > cutoff) {
      changed += e.change;
    }
  }
  return changed;
}

// The most replicas the scale-up policies allow (calculateScaleUpLimitWithScalingRules), or the
// fewest the scale-down ones do.
int64_t policy_limit(const Rules& rules, bool up, const ScaleHistory& history, int64_t current,
                     time_point now) {
  if (rules.select == "Disabled") {
    return current;
  }
  // Scaling up, Min picks the smallest proposal; scaling down, the largest (the smallest change).
  const bool pick_smallest = up == (rules.select == "Min");
  int64_t result = pick_smallest ? INT64_MAX : INT64_MIN;
  for (const Policy& policy : rules.policies) {
    const int64_t start = current - changed_within(history.ups, policy.period_seconds, now) +
                          changed_within(history.downs, policy.period_seconds, now);
    int64_t proposed = start;
    if (policy.type == "Pods") {
      proposed = up ? start + policy.value : start - policy.value;
    } else if (policy.type == "Percent") {
      const double factor = up ? 1 + static_cast<double>(policy.value) / 100
                               : 1 - static_cast<double>(policy.value) / 100;
      const double scaled = static_cast<double>(start) * factor;
      proposed = static_cast<int64_t>(up ? std::ceil(scaled) : scaled);
    }
    result = pick_smallest ? std::min(result, proposed) : std::max(result, proposed);
  }
  return result;
}

int64_t longest_period(const Rules& rules) {
  int64_t longest = 0;
  for (const Policy& p : rules.policies) {
    longest = std::max(longest, p.period_seconds);
  }
  return longest;
}

const NormalizedCondition kReady{"True", "ReadyForNewScale",
                                 "recommended size matches current size"};
const NormalizedCondition kWithinRange{"False", "DesiredWithinRange",
                                       "the desired count is within the acceptable range"};
const char* kTooMany = "the desired replica count is more than the maximum replica count";
const char* kTooFew = "the desired replica count is less than the minimum replica count";
const char* kUpLimit = "the desired replica count is increasing faster than the maximum scale rate";
const char* kDownLimit =
    "the desired replica count is decreasing faster than the maximum scale rate";

// Keeps the recommendation, in place of one older than `cutoff` if there is one.
void remember(ScaleHistory& history, int64_t desired, time_point cutoff, time_point now) {
  for (auto& r : history.recommendations) {
    if (r.at < cutoff) {
      r = {desired, now};
      return;
    }
  }
  history.recommendations.push_back({desired, now});
}

Normalized without_behavior(ScaleHistory& history, const NormalizeInput& in) {
  Normalized out;
  const time_point cutoff = in.now - in.downscale_stabilization;
  int64_t stabilized = in.desired;
  for (const auto& r : history.recommendations) {
    if (r.at >= cutoff) {
      stabilized = std::max(stabilized, r.replicas);
    }
  }
  remember(history, in.desired, cutoff, in.now);
  out.able_to_scale =
      stabilized != in.desired
          ? NormalizedCondition{"True", "ScaleDownStabilized",
                                "recent recommendations were higher than current one, applying "
                                "the highest recent recommendation"}
          : kReady;
  // convertDesiredReplicasWithRules: at most twice the current count, and at least 4.
  const int64_t up_limit =
      static_cast<int64_t>(std::max(2.0 * static_cast<double>(in.current), 4.0));
  const bool rate_bound = in.max_replicas > up_limit;
  const int64_t most = rate_bound ? up_limit : in.max_replicas;
  out.replicas = stabilized;
  out.scaling_limited = kWithinRange;
  if (stabilized < in.min_replicas) {
    out.replicas = in.min_replicas;
    out.scaling_limited = {"True", "TooFewReplicas", kTooFew};
  } else if (stabilized > most) {
    out.replicas = most;
    out.scaling_limited = {"True", rate_bound ? "ScaleUpLimit" : "TooManyReplicas",
                           rate_bound ? kUpLimit : kTooMany};
  }
  return out;
}

Normalized with_behavior(ScaleHistory& history, const NormalizeInput& in) {
  Normalized out;
  const Rules up = rules_of(in.behavior, true, in.downscale_stabilization);
  const Rules down = rules_of(in.behavior, false, in.downscale_stabilization);
  const time_point up_cutoff = in.now - std::chrono::seconds(up.stabilization_seconds);
  const time_point down_cutoff = in.now - std::chrono::seconds(down.stabilization_seconds);
  int64_t up_recommendation = in.desired;
  int64_t down_recommendation = in.desired;
  int old = -1;
  for (size_t i = 0; i < history.recommendations.size(); ++i) {
    const auto& r = history.recommendations[i];
    if (r.at > up_cutoff) {
      up_recommendation = std::min(up_recommendation, r.replicas);
    }
    if (r.at > down_cutoff) {
      down_recommendation = std::max(down_recommendation, r.replicas);
    }
    if (r.at < up_cutoff && r.at < down_cutoff) {
      old = static_cast<int>(i);
    }
  }
  const int64_t stabilized = std::min(std::max(in.current, up_recommendation), down_recommendation);
  if (old >= 0) {
    history.recommendations[static_cast<size_t>(old)] = {in.desired, in.now};
  } else {
    history.recommendations.push_back({in.desired, in.now});
  }
  if (stabilized != in.desired) {
    out.able_to_scale =
        in.desired >= in.current
            ? NormalizedCondition{"True", "ScaleUpStabilized",
                                  "recent recommendations were lower than current one, applying "
                                  "the lowest recent recommendation"}
            : NormalizedCondition{"True", "ScaleDownStabilized",
                                  "recent recommendations were higher than current one, applying "
                                  "the highest recent recommendation"};
  } else {
    out.able_to_scale = kReady;
  }
  out.replicas = stabilized;
  out.scaling_limited = kWithinRange;
  if (stabilized > in.current) {
    const int64_t limit = std::max(policy_limit(up, true, history, in.current, in.now), in.current);
    const bool rate_bound = in.max_replicas > limit;
    const int64_t most = rate_bound ? limit : in.max_replicas;
    if (stabilized > most) {
      out.replicas = most;
      out.scaling_limited = {"True", rate_bound ? "ScaleUpLimit" : "TooManyReplicas",
                             rate_bound ? kUpLimit : kTooMany};
    }
  } else if (stabilized < in.current) {
    const int64_t limit =
        std::min(policy_limit(down, false, history, in.current, in.now), in.current);
    const bool rate_bound = in.min_replicas < limit;
    const int64_t fewest = rate_bound ? limit : in.min_replicas;
    if (stabilized < fewest) {
      out.replicas = fewest;
      out.scaling_limited = {"True", rate_bound ? "ScaleDownLimit" : "TooFewReplicas",
                             rate_bound ? kDownLimit : kTooFew};
    }
  }
  return out;
}

}  // namespace

void ScaleHistory::record_initial(int64_t current, time_point now) {
  if (recommendations.empty()) {
    recommendations.push_back({current, now});
  }
}

void ScaleHistory::record_scale(const json* behavior, int64_t before, int64_t after,
                                time_point now) {
  if (behavior == nullptr || before == after) {
    return;  // without behavior no policy counts them
  }
  const bool up = after > before;
  auto& events = up ? ups : downs;
  const time_point cutoff =
      now - std::chrono::seconds(longest_period(rules_of(behavior, up, std::chrono::seconds(0))));
  std::erase_if(events, [&](const ScaleEvent& e) { return e.at <= cutoff; });
  events.push_back({up ? after - before : before - after, now});
}

Normalized normalize_replicas(ScaleHistory& history, const NormalizeInput& in) {
  return in.behavior == nullptr ? without_behavior(history, in) : with_behavior(history, in);
}

}  // namespace cluster
