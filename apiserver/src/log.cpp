#include "apiserver/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <mutex>

namespace apiserver::log {
namespace {

std::atomic<int> g_verbosity{0};
std::ostream* g_sink = &std::cerr;
std::mutex g_mu;  // one line at a time

void write(char severity, const std::string& text) {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()) %
                std::chrono::seconds(1);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char stamp[80];
  std::snprintf(stamp, sizeof stamp, "%c%02d%02d %02d:%02d:%02d.%06ld ", severity, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long>(micros.count()));
  std::lock_guard lock(g_mu);
  *g_sink << stamp << text << '\n' << std::flush;
}

}  // namespace

void set_verbosity(int level) {
  g_verbosity = level;
}
int verbosity() {
  return g_verbosity;
}
void set_sink(std::ostream* sink) {
  g_sink = sink != nullptr ? sink : &std::cerr;
}

void info(int level, const std::string& text) {
  if (enabled(level)) {
    write('I', text);
  }
}
void warning(const std::string& text) {
  write('W', text);
}
void error(const std::string& text) {
  write('E', text);
}

}  // namespace apiserver::log
