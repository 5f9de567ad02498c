// Helpers both benchmarks use: timing, percentiles, number cells, and count flags.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
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
inline std::optional<int64_t> parse_count(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

// CPU time (user + system) this process has used, in seconds.
inline double own_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// CPU time (user + system) process `pid` has used, in seconds, from /proc/PID/stat (fields 14
// and 15, counted after the command name's closing parenthesis); NaN when it cannot be read.
inline double process_cpu_seconds(int64_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line) || line.rfind(')') == std::string::npos) {
    return std::nan("");
  }
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) {
      auto n = parse_count(field);
      if (!n) {
        return std::nan("");
      }
      ticks += static_cast<double>(*n);
    }
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
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
