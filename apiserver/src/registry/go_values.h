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

#include <optional>
#include <string>
#include <string_view>

namespace apiserver::registry {

std::optional<std::string> go_base64_error(std::string_view text);

// `text` is what Quantity's UnmarshalJSON parses: a JSON string's content, or a JSON number's
// (or any other value's) raw text.
std::optional<std::string> go_quantity_error(std::string_view text);

// micro: metav1.MicroTime's layout instead of metav1.Time's.
std::optional<std::string> go_time_error(std::string_view text, bool micro);

}  // namespace apiserver::registry
