// resource.Quantity values ("100m", "1.5", "128Mi", "2G", "1e3") as numbers, for the scheduler's
// and quotas' arithmetic.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace common {

// The value in base units (cores, bytes, pods); nullopt when `text` is not a quantity.
std::optional<double> parse_quantity(std::string_view text);

// How resource.Quantity writes a value: decimal suffixes (m, k, M, G, ...) or binary ones (Ki,
// Mi, ...). A sum keeps the format of the quantity it started from.
enum class QuantityFormat { DecimalSI, BinarySI };
// The format of a quantity's text: BinarySI with a binary suffix, else DecimalSI.
QuantityFormat quantity_format(std::string_view text);
// `value` (base units, to the milli-unit) in resource.Quantity's canonical form: DecimalSI with
// the largest exponent, a multiple of 3, that keeps the number whole ("1500m", "2", "1500M",
// "2k"); BinarySI with the largest power of 1024 that divides it ("128Mi", "1536Mi"), and as
// DecimalSI below 1024 or when not a whole number of units ("512", "0").
std::string format_quantity(double value, QuantityFormat format);

}  // namespace common
