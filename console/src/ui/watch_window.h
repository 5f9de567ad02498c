// The bottom pane: the watch events as they arrive (time, type, kind, namespace/name,
// resourceVersion), newest last, filtered by type, with pause/resume and what was dropped.
#pragma once

#include <cstdint>
#include <vector>

#include "console/app/console_state.h"
#include "ui/style.h"

namespace console::ui {

class WatchWindow {
 public:
  void draw(app::ConsoleState& state, const Frame& frame);

 private:
  std::vector<uint32_t> shown_;  // indices into the log that pass the type filter; per frame
  size_t last_count_ = 0;        // the log size last frame, to follow new events
  bool follow_ = true;           // scrolled to the bottom: keep following
};

}  // namespace console::ui
