// Go's parsers of integers and durations, whose error texts Kubernetes clients see verbatim:
// strconv.Atoi and time.ParseDuration. Pure functions, callable from any thread; no input makes
// them overflow or throw.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace common {

// strconv.Atoi on a 64-bit platform: the value, and Go's error text when it fails. As Go, an out of
// range number yields the nearest int64 with `strconv.Atoi: parsing "...": value out of range`,
// anything else not an optionally signed decimal yields 0 with `...: invalid syntax`.
struct GoAtoi {
  int64_t value = 0;
  std::string error;  // empty when the text parsed
};
GoAtoi go_atoi(std::string_view text);

// time.ParseDuration: "60s", "1m30s", "-1.5h", "250ms", "0"; negative durations are durations too
// (callers decide what they mean). Fails when the text is not one or does not fit in int64
// nanoseconds, with Go's message, such as `time: invalid duration "1e999s"`.
Result<std::chrono::nanoseconds> parse_duration(std::string_view text);

}  // namespace common
