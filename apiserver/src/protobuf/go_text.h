// Text of decoded values as Go writes it: strings with invalid UTF-8 replaced, durations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace apiserver::protobuf::detail {

// `s` with each invalid UTF-8 sequence replaced by U+FFFD, as Go's JSON encoder writes it.
std::string valid_utf8(std::string_view s);

// Go's time.Duration.String() of `nanos`.
std::string go_duration(std::int64_t nanos);

}  // namespace apiserver::protobuf::detail
