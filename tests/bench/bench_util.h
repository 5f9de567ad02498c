// Helpers both benchmarks use: timing, percentiles, number cells, and count flags.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

// Nearest-rank percentile; NaN when there are no samples.
inline double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) {
    return std::nan("");
  }
  std::sort(samples.begin(), samples.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
  return samples[std::clamp<size_t>(rank, 1, samples.size()) - 1];
}

// A figure with `decimals` digits, or a dash for NaN (nothing measured).
inline std::string fixed(double value, int decimals) {
  if (std::isnan(value)) {
    return "—";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// A non-negative whole number given to a flag; nullopt when the text is not one.
inline std::optional<int64_t> parse_count(const std::string& text) {
  try {
    size_t used = 0;
    int64_t value = std::stoll(text, &used);
    if (used != text.size() || value < 0) {
      return std::nullopt;
    }
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// One socket per connection the benchmark opens: take the hard limit rather than the usual 1024.
inline void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace bench
