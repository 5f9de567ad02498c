// The bottom line: connection state, server URL and context, Kubernetes version, requests in
// flight, messages dropped, and the last error (hover for all of it).
#pragma once

#include "console/app/console_state.h"
#include "ui/style.h"

namespace console::ui {

class StatusBar {
 public:
  void draw(const app::ConsoleState& state, const Frame& frame);
};

}  // namespace console::ui
