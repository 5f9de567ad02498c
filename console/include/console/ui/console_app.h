// The desktop console: a GLFW window with Dear ImGui drawing the windows of console/src/ui over a
// ConsoleState fed by a ClusterSession. The only entry point the rest of the program needs.
//
// Threads: run_console() must be called on the main thread (GLFW requires it) and returns when
// the window closes or the script ends; the network threads it starts are stopped before it
// returns.
#pragma once

#include <iosfwd>
#include <string>

#include "console/client/rest_client.h"

namespace console::ui {

struct RunOptions {
  int width = 1440;  // the window, in screen coordinates
  int height = 900;
  // Scripted mode (console/app/script.h): the script runs one command per frame and the run
  // ends with it; a failed wait ends it with exit code 1.
  std::string script_path;
  std::string screenshot_dir;   // where `screenshot NAME` writes NAME.png
  std::string state_dump_path;  // written by `dump-state` and when the run ends
};

// Opens the console against `access` and runs it. Returns 0, or 1 (the reason written to `err`)
// when the window cannot open, the script cannot be read or parsed, or the script fails.
int run_console(const client::ClusterAccess& access, const RunOptions& options, std::ostream& err);

}  // namespace console::ui
