// resource.Quantity values ("100m", "1.5", "128Mi", "2G", "1e3") as numbers, for the scheduler's
// and quotas' arithmetic.
#pragma once

#include <optional>
#include <string_view>

namespace cluster {

// The value in base units (cores, bytes, pods); nullopt when `text` is not a quantity.
std::optional<double> parse_quantity(std::string_view text);

}  // namespace cluster
