// Fonts, themes and small drawing helpers shared by the console's windows.
#pragma once

#include <imgui.h>

#include <string>
#include <string_view>

namespace console::ui {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  ImFont* mono = nullptr;
  std::string source;  // the font file used, or "ImGui default" when none was found
};

// Colours the windows use beyond ImGui's own; one set per theme.
struct Palette {
  ImVec4 accent;
  ImVec4 text_dim;
  ImVec4 ok;
  ImVec4 warning;
  ImVec4 error;
  ImVec4 added;
  ImVec4 modified;
  ImVec4 deleted;
  ImVec4 bookmark;
  ImVec4 changed_row;  // the highlight of a row the watch just changed (alpha fades it)
  ImVec4 yaml_key;
  ImVec4 yaml_comment;
  ImVec4 panel;  // backgrounds of inset boxes (errors, notices)
};

// Loads DejaVu Sans (regular, bold) and DejaVu Sans Mono at `scale` (the window's content scale)
// from the usual font folders; falls back to ImGui's built-in font.
Fonts load_fonts(float scale);

// Applies the dark or light theme at `scale` and makes its palette current.
void apply_theme(bool light, float scale);
const Palette& palette();

// The colour of a watch event type.
ImVec4 event_color(std::string_view type);

// Dimmed text, wrapped, in the middle of the remaining space: how empty states are explained.
void empty_state(const char* title, const std::string& detail);
// A one-line text in the palette's dim colour.
void text_dim(const std::string& text);

// Where a window goes: the layout gives each window a fixed place in the main window.
struct Frame {
  ImVec2 pos;
  ImVec2 size;
};
// Begins a fixed, untitled-by-position pane at `frame` (ImGui::Begin; call ImGui::End after).
bool begin_pane(const char* title_and_id, const Frame& frame, ImGuiWindowFlags extra = 0);

// Key helpers over ImGui 1.86's legacy key array (indexed by GLFW key codes).
bool key_pressed(int glfw_key);
bool ctrl_pressed(int glfw_key);

}  // namespace console::ui
