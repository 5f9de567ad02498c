#include "ui/frame_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

namespace console::ui {

namespace {

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Resident pages now, in KiB; 0 when /proc cannot tell.
long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  long resident = 0;
  if (!(statm >> size >> resident)) {
    return 0;
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

std::optional<std::string> FrameStats::open(const std::string& path) {
  out_.open(path, std::ios::trunc);
  if (!out_) {
    return "cannot write " + path;
  }
  path_ = path;
  out_ << "# frame\tstart_unix_ms\twall_ms\tcpu_ms\tapplied\n";
  return std::nullopt;
}

void FrameStats::begin_frame() {
  start_unix_ms_ = unix_ms();
  wall_start_ns_ = wall_ns();
  cpu_start_ns_ = thread_cpu_ns();
}

void FrameStats::end_frame(size_t applied) {
  if (!out_.is_open()) {
    return;
  }
  const double wall_ms = static_cast<double>(wall_ns() - wall_start_ns_) / 1e6;
  const double cpu_ms = static_cast<double>(thread_cpu_ns() - cpu_start_ns_) / 1e6;
  char line[128];
  std::snprintf(line, sizeof line, "%llu\t%lld\t%.3f\t%.3f\t%zu\n",
                static_cast<unsigned long long>(++frames_),
                static_cast<long long>(start_unix_ms_), wall_ms, cpu_ms, applied);
  out_ << line;
}

std::optional<std::string> FrameStats::close() {
  if (!out_.is_open()) {
    return std::nullopt;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  out_ << "# rss_kib " << resident_kib() << "\n";
  out_ << "# peak_rss_kib " << usage.ru_maxrss << "\n";
  out_.close();
  if (!out_) {
    return "cannot write " + path_;
  }
  return std::nullopt;
}

}  // namespace console::ui
