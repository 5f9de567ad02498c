// The Help window (F1): the keyboard shortcuts and what the panes do.
#pragma once

#include "console/app/console_state.h"
#include "ui/style.h"

namespace console::ui {

class HelpWindow {
 public:
  void draw(app::ConsoleState& state, const Fonts& fonts);
};

}  // namespace console::ui
