// The desktop console: a GLFW window with Dear ImGui drawing the windows of console/src/ui over a
// ConsoleState fed by a ClusterSession. The only entry point the rest of the program needs.
//
// Threads: run_console() must be called on the main thread (GLFW requires it) and returns when
// the window closes or the script ends; the network threads it starts are stopped before it
// returns.
#pragma once

#include <atomic>
#include <iosfwd>
#include <mutex>
#include <string>

#include "console/client/rest_client.h"

namespace console::ui {

// Asks a running console to close, from any thread (serve's signal thread does on SIGINT or
// SIGTERM). The window then closes as if its close button had been pressed.
class CloseRequest {
 public:
  // Any thread, any time (before, during or after run_console).
  void request();
  bool requested() const { return requested_.load(); }
  // For run_console(): whether GLFW is initialised, so that request() may wake its loop.
  void set_loop_running(bool running);

 private:
  std::atomic<bool> requested_{false};
  std::mutex mutex_;  // protects loop_running_: GLFW may be woken only while it is up
  bool loop_running_ = false;
};

struct RunOptions {
  int width = 1440;  // the window, in screen coordinates
  int height = 900;
  // Scripted mode (console/app/script.h): the script runs one command per frame and the run
  // ends with it; a failed wait ends it with exit code 1.
  std::string script_path;
  std::string screenshot_dir;   // where `screenshot NAME` writes NAME.png
  std::string state_dump_path;  // written by `dump-state` and when the run ends
  // When set, one line per frame (ui/frame_stats.h): its wall and UI-thread CPU time from the
  // start of the frame (after waiting for events) to after the buffer swap, in ms.
  std::string frame_stats_path;
  // Closes the window when requested; may be null. Must outlive run_console().
  CloseRequest* close_request = nullptr;
  // console.ini (console/app/settings.h): read at the start, written when it changes (at most
  // every 2 s) and at the end; empty: nothing is read or written.
  std::string settings_path;
  bool size_given = false;  // width and height were asked for: they win over console.ini's
};

// run_console()'s result when no window could be opened (no display, no OpenGL 3.3).
constexpr int kCannotOpenWindow = 3;

// Opens the console against `access` and runs it. Returns 0; kCannotOpenWindow (the reason
// written to `err`) when the window cannot open; 1 (the reason written to `err`) when the script
// cannot be read or parsed, or the script fails.
int run_console(const client::ClusterAccess& access, const RunOptions& options, std::ostream& err);

}  // namespace console::ui
