// IntOrString budgets (maxSurge, maxUnavailable) as the workload controllers scale them, as
// apimachinery's GetScaledValueFromIntOrPercent does.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace cluster {

// An IntOrString budget against `total`: 2 -> 2, "25%" of 10 -> 3 rounding up (2 rounding down).
// nullopt when it is neither an integer nor "N%".
std::optional<int64_t> scaled_value(const nlohmann::json& int_or_percent, int64_t total,
                                    bool round_up);

}  // namespace cluster
