// The right pane: the selected object as YAML (managedFields folded), and the editor: Apply sends
// a server-side apply (fieldManager kube-sandbox-console, Force when ticked); Delete asks first. A
// refused apply shows the server's reason, message and each field cause above the text, and the
// text stays as typed. An event clicked in the watch window shows here instead of the selected
// object: its version, and what changed from the version before.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "console/app/console_state.h"
#include "ui/style.h"

namespace console::ui {

class ObjectPane {
 public:
  void draw(app::ConsoleState& state, const Frame& frame, const Fonts& fonts);

 private:
  void draw_view(app::ConsoleState& state, const Fonts& fonts);
  // An event opened from the watch window: the object as of it and the diff to the one before.
  void draw_history(app::ConsoleState& state, const Fonts& fonts);
  void draw_editor(app::ConsoleState& state, const Fonts& fonts);
  void draw_result(const app::ConsoleState& state, const Fonts& fonts);
  void draw_delete_confirmation(app::ConsoleState& state, const Fonts& fonts);
  void draw_yaml(const std::string& yaml, const Fonts& fonts);

  std::string yaml_copy_;  // the text lines_ points into
  std::vector<std::string_view> lines_;
};

}  // namespace console::ui
