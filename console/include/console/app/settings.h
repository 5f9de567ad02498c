// console.ini: what the console remembers between runs (window size and place, theme,
// favourite kinds, pane sizes) and Dear ImGui's own settings (table column widths and order,
// window places), in one file. `kube-sandbox serve` keeps it in the data directory;
// `kube-sandbox console` in the user's config directory (default_settings_path()).
//
// The file is ImGui's ini format: the console's values are one section, ImGui's sections follow
// as ImGui wrote them, and ImGui skips the section it does not know:
//
//   [kube-sandbox][console]
//   window-size=1440x900
//   window-pos=80,60
//   theme=light
//   favourites=apps/deployments,core/pods
//   tree-width=240
//   object-width=460
//   watch-height=280
//
//   [Table][0x5A2B19C4,7]
//   ...
//
// Reading never fails on content: a malformed or unknown line is skipped and named in
// `warnings`, so a hand-edited file never stops the console. Pure code; not thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace console::app {

// Pane sizes in ImGui's screen coordinates; 0 leaves the size to the default layout.
struct PaneSizes {
  float tree_width = 0;
  float object_width = 0;
  float watch_height = 0;
  bool operator==(const PaneSizes&) const = default;
};

struct ConsoleSettings {
  std::optional<std::pair<int, int>> window_size;  // width, height in screen coordinates
  std::optional<std::pair<int, int>> window_pos;   // x, y of the window's top-left corner
  bool light_theme = false;
  std::set<std::string, std::less<>> favourites;  // "core/pods", "apps/deployments"
  PaneSizes panes;
  std::string imgui;  // ImGui's sections, as ImGui::SaveIniSettingsToMemory gave them
  bool operator==(const ConsoleSettings&) const = default;
};

ConsoleSettings parse_settings(std::string_view text, std::vector<std::string>* warnings = nullptr);
std::string format_settings(const ConsoleSettings& settings);

// Reads `path`. A missing file gives the defaults; an unreadable one gives the error.
common::Result<ConsoleSettings> load_settings(const std::string& path,
                                              std::vector<std::string>* warnings = nullptr);
// Writes `path` aside and renames it into place (creating its folder), so a crash mid-write
// never leaves half a file. The error, naming the path, when it cannot; nullopt once written.
[[nodiscard]] std::optional<std::string> save_settings(const std::string& path,
                                                       const ConsoleSettings& settings);

// Where `kube-sandbox console` keeps its settings: $XDG_CONFIG_HOME/kube-sandbox/console.ini
// when XDG_CONFIG_HOME is absolute, else $HOME/.config/kube-sandbox/console.ini; "" when
// neither is set. Arguments are the variables' values (null when unset).
std::string default_settings_path(const char* xdg_config_home, const char* home);

}  // namespace console::app
