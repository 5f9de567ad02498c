// The process log on stderr, in klog's line shape ("I1123 14:02:03.123456 <text>"), with
// kube-apiserver's verbosity levels (-v / --log-level): 0 start-up, shutdown and errors;
// 2 controller actions; 3 one line per HTTP request, as kube-apiserver's request log at -v=3.
//
// Thread-safe: lines are written whole, from any thread.
#pragma once

#include <iosfwd>
#include <string>

namespace apiserver::log {

void set_verbosity(int level);
int verbosity();
inline bool enabled(int level) {
  return verbosity() >= level;
}

// Where lines go (stderr by default); tests point it at a stream they own. Not thread-safe
// against concurrent logging: set it before serving.
void set_sink(std::ostream* sink);

// Writes one line when `level` is enabled.
void info(int level, const std::string& text);
void warning(const std::string& text);
void error(const std::string& text);

}  // namespace apiserver::log
