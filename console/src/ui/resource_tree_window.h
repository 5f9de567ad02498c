// The left pane: the namespace selector and the kinds of the cluster from discovery, grouped by
// API group (core first), with live object counts for the kinds opened so far; favourites (the
// star on a kind's row toggles one) are pinned on top.
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
  // One kind's row: its name (selects it), the favourite star and the live count.
  void draw_kind(app::ConsoleState& state, const model::ApiResource& r);
  std::string kind_filter_;
};

}  // namespace console::ui
