// The left pane: the namespace selector and the kinds of the cluster from discovery, grouped by
// API group (core first), with live object counts for the kinds opened so far.
#pragma once

#include <string>

#include "console/app/console_state.h"
#include "ui/style.h"

namespace console::ui {

class ResourceTreeWindow {
 public:
  void draw(app::ConsoleState& state, const Frame& frame);

 private:
  void draw_namespaces(app::ConsoleState& state);
  std::string kind_filter_;
};

}  // namespace console::ui
