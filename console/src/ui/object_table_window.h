// The centre pane: the objects of the kind picked in the tree, with the server's Table columns
// (what kubectl get prints). Sort by clicking a column, filter by name or label selector, select
// with the mouse or the arrows; rows the watch just changed glow for a moment. Only the rows in
// view are drawn (ImGuiListClipper), so 50,000 objects scroll smoothly.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "console/app/console_state.h"
#include "ui/style.h"

namespace console::ui {

class ObjectTableWindow {
 public:
  void draw(app::ConsoleState& state, const Frame& frame);

 private:
  void draw_header(app::ConsoleState& state, app::OpenKind& kind);
  void draw_rows(app::ConsoleState& state, app::OpenKind& kind);
  void handle_keys(app::ConsoleState& state);

  std::string filter_text_;     // the filter box; pushed to the view as it changes
  bool filter_active_ = false;  // the box has the keyboard (the view must not overwrite it)
  bool scroll_to_selection_ = false;
  // The selection last drawn: a selection made elsewhere (keys, a script) is scrolled into view.
  std::pair<std::string, std::string> last_selection_;
  std::string synced_key_;  // the kind whose ImGui sort state matches its view
};

}  // namespace console::ui
