// The value checks Go's decoders make while turning request JSON into built-in objects, with
// the error texts kube-apiserver passes on. Each returns std::nullopt when the value decodes.
//
//   base64 (a []byte field, encoding/base64 StdEncoding):
//     illegal base64 data at input byte 4
//   resource.Quantity (ParseQuantity):
//     quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
//     unable to parse quantity's suffix
//   metav1.Time (RFC 3339) and metav1.MicroTime (RFC 3339 with exactly six fraction digits):
//     parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse
//     "1-01T00:00:00Z" as "01"
//     parsing time "2024-13-01T00:00:00Z": month out of range
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/go_numbers.h"

namespace apiserver::registry {

std::optional<std::string> go_base64_error(std::string_view text);

// `text` is what Quantity's UnmarshalJSON parses: a JSON string's content, or a JSON number's
// (or any other value's) raw text.
std::optional<std::string> go_quantity_error(std::string_view text);

// The value of a quantity go_quantity_error accepts, in base units (e.g. "1Ki" -> 1024, "5e-3" ->
// 0.005); nullopt when it does not parse. An exponent beyond long double's range saturates (to
// infinity or zero), which keeps comparisons right.
std::optional<long double> go_quantity_value(std::string_view text);
// The same for a JSON value: a number is its own value; neither number nor string is nullopt.
std::optional<long double> go_quantity_value(const nlohmann::json& value);

// micro: metav1.MicroTime's layout instead of metav1.Time's.
std::optional<std::string> go_time_error(std::string_view text, bool micro);

// strconv.Atoi, with Go's error text (common/go_numbers.h).
using common::go_atoi;
using common::GoAtoi;

}  // namespace apiserver::registry
