// RFC 3339 times as Kubernetes writes and reads them: metav1.Time "2006-01-02T15:04:05Z" (whole
// seconds, UTC) and metav1.MicroTime "2006-01-02T15:04:05.000000Z" (six fraction digits). Only the
// proleptic Gregorian calendar and UTC offsets are involved: no time zone database, no locale, no
// global state, so every function may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace common {

struct Rfc3339Time {
  std::int64_t seconds = 0;  // since 1970-01-01T00:00:00Z
  std::int32_t nanos = 0;    // [0, 999999999]; fraction digits past the ninth are dropped
};

// Which texts parse_rfc3339 accepts beyond "YYYY-MM-DDThh:mm:ss[.f+](Z|+hh:mm|-hh:mm)".
enum class Rfc3339Syntax {
  Go,   // Go's time.Parse(time.RFC3339, ...): 'T' and 'Z' in upper case, seconds 00-59
  Rfc,  // RFC 3339 section 5.6 too: 't' and 'z' in lower case, and a leap second 60 (which
        // reads as second 0 of the next minute)
};

// The instant `text` names, or nullopt when it is not such a time. Both syntaxes demand the
// exact field widths, a month 01-12, a day that exists in that month, hours 00-23, minutes 00-59,
// at least one digit after a '.', an offset of at most 23:59 and nothing after the offset.
std::optional<Rfc3339Time> parse_rfc3339(std::string_view text,
                                         Rfc3339Syntax syntax = Rfc3339Syntax::Go);

// metav1.Time's form of `seconds` since the epoch, in UTC: "2006-01-02T15:04:05Z". nullopt for an
// instant outside the years 0000-9999, which RFC 3339 cannot write (Go's MarshalJSON fails too).
std::optional<std::string> format_rfc3339(std::int64_t seconds);

// metav1.MicroTime's form: "2006-01-02T15:04:05.000000Z"; `micros` must be in [0, 999999].
// nullopt as for format_rfc3339.
std::optional<std::string> format_rfc3339_micro(std::int64_t seconds, std::int32_t micros);

// metav1.Time's form of a clock reading, the fraction dropped (rounded towards the past, as Go's
// Time.Truncate): what the server stamps objects with. Never empty for a reading within the
// years 0000-9999 (any reading of a nanosecond system_clock is); "" beyond them.
std::string format_rfc3339(std::chrono::system_clock::time_point t);

}  // namespace common
