// Per-frame timing for `kube-sandbox console --frame-stats FILE`, the console frame-time
// benchmark's (tests/bench/run-console-bench.sh) source of figures. One tab-separated line per
// frame, after a header:
//
//   # frame  start_unix_ms  wall_ms  cpu_ms  applied
//   1        1795000000120  4.102    3.870   0
//   2        1795000000141  14.930   14.611  312
//   # rss_kib 160004
//   # peak_rss_kib 183220
//
// start_unix_ms is when the frame started (after waiting for events), so that a benchmark can
// pick the frames of a stretch of time; wall_ms runs from then to after the buffer swap; cpu_ms
// is the UI thread's CPU time in the same span (the rest is waiting: for the GL driver's threads,
// the display); applied counts the stream messages and replies the frame's update took in. The
// last lines are the process's resident set at the end (/proc/self/statm) and its peak
// (getrusage).
//
// Main thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace console::ui {

class FrameStats {
 public:
  // Creates `path` and writes the header: the error when it cannot, nullopt otherwise.
  [[nodiscard]] std::optional<std::string> open(const std::string& path);
  bool is_open() const { return out_.is_open(); }

  void begin_frame();
  void end_frame(size_t applied);

  // Writes the peak RSS line and closes the file: the error when a write failed, nullopt
  // otherwise.
  [[nodiscard]] std::optional<std::string> close();

 private:
  std::ofstream out_;
  std::string path_;
  uint64_t frames_ = 0;
  int64_t start_unix_ms_ = 0;
  int64_t wall_start_ns_ = 0;
  int64_t cpu_start_ns_ = 0;
};

}  // namespace console::ui
