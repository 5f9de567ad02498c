#include "ui/style.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <filesystem>

namespace console::ui {

namespace {

Palette g_palette;

ImVec4 rgb(int hex, float alpha = 1.0f) {
  return ImVec4(static_cast<float>((hex >> 16) & 0xff) / 255.0f,
                static_cast<float>((hex >> 8) & 0xff) / 255.0f,
                static_cast<float>(hex & 0xff) / 255.0f, alpha);
}

// Latin-1 plus the punctuation, arrows and shapes the windows draw (… — · ● ▲ ▼ ★ ☆ ✓ ✗).
const ImWchar* glyph_ranges() {
  static const ImWchar kRanges[] = {0x0020, 0x00FF, 0x2010, 0x205E, 0x2190, 0x21FF, 0x2500,
                                    0x25FF, 0x2605, 0x2606, 0x2713, 0x2717, 0};
  return kRanges;
}

std::string find_font(const char* file) {
  for (const char* dir : {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF",
                          "/usr/share/fonts/dejavu", "/usr/local/share/fonts"}) {
    std::filesystem::path path = std::filesystem::path(dir) / file;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      return path.string();
    }
  }
  return {};
}

void set_dark(ImGuiStyle& style) {
  ImGui::StyleColorsDark(&style);
  ImVec4* c = style.Colors;
  c[ImGuiCol_Text] = rgb(0xdfe3ea);
  c[ImGuiCol_TextDisabled] = rgb(0x7d8594);
  c[ImGuiCol_WindowBg] = rgb(0x1b1e24);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);  // see begin_pane
  c[ImGuiCol_PopupBg] = rgb(0x23272f);
  c[ImGuiCol_Border] = rgb(0x2e333d);
  c[ImGuiCol_FrameBg] = rgb(0x262a33);
  c[ImGuiCol_FrameBgHovered] = rgb(0x2f3540);
  c[ImGuiCol_FrameBgActive] = rgb(0x363d4a);
  c[ImGuiCol_TitleBg] = rgb(0x16181d);
  c[ImGuiCol_TitleBgActive] = rgb(0x1f232b);
  c[ImGuiCol_MenuBarBg] = rgb(0x16181d);
  c[ImGuiCol_Header] = rgb(0x2f5fb3, 0.55f);
  c[ImGuiCol_HeaderHovered] = rgb(0x3a6fd0, 0.45f);
  c[ImGuiCol_HeaderActive] = rgb(0x3a6fd0, 0.70f);
  c[ImGuiCol_Button] = rgb(0x2c313b);
  c[ImGuiCol_ButtonHovered] = rgb(0x3a6fd0);
  c[ImGuiCol_ButtonActive] = rgb(0x2f5fb3);
  c[ImGuiCol_CheckMark] = rgb(0x6ea0ff);
  c[ImGuiCol_TableHeaderBg] = rgb(0x23272f);
  c[ImGuiCol_TableRowBg] = rgb(0x1b1e24);
  c[ImGuiCol_TableRowBgAlt] = rgb(0x20242b);
  c[ImGuiCol_TableBorderStrong] = rgb(0x2e333d);
  c[ImGuiCol_TableBorderLight] = rgb(0x23272e);
  c[ImGuiCol_Separator] = rgb(0x2e333d);
  c[ImGuiCol_ScrollbarBg] = rgb(0x1b1e24);
  c[ImGuiCol_ScrollbarGrab] = rgb(0x3a404c);
  c[ImGuiCol_ModalWindowDimBg] = rgb(0x000000, 0.55f);
  g_palette =
      Palette{rgb(0x6ea0ff), rgb(0x8b93a3), rgb(0x5cc98a), rgb(0xe7b24a), rgb(0xf06a6a),
              rgb(0x5cc98a), rgb(0x6ea0ff), rgb(0xf06a6a), rgb(0x9b8cf0), rgb(0xe7b24a, 0.30f),
              rgb(0x7fb4ff), rgb(0x6d7585), rgb(0x23272f)};
}

void set_light(ImGuiStyle& style) {
  ImGui::StyleColorsLight(&style);
  ImVec4* c = style.Colors;
  c[ImGuiCol_Text] = rgb(0x1f2328);
  c[ImGuiCol_WindowBg] = rgb(0xf6f7f9);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);  // see begin_pane
  c[ImGuiCol_TitleBg] = rgb(0xe4e7ec);
  c[ImGuiCol_TitleBgActive] = rgb(0xd9dee6);
  c[ImGuiCol_MenuBarBg] = rgb(0xe4e7ec);
  c[ImGuiCol_Header] = rgb(0x3a6fd0, 0.30f);
  c[ImGuiCol_HeaderHovered] = rgb(0x3a6fd0, 0.20f);
  c[ImGuiCol_HeaderActive] = rgb(0x3a6fd0, 0.40f);
  c[ImGuiCol_TableRowBg] = rgb(0xffffff);
  c[ImGuiCol_TableRowBgAlt] = rgb(0xf2f4f7);
  g_palette =
      Palette{rgb(0x2f5fb3), rgb(0x6b7280), rgb(0x1f8a4c), rgb(0xa86a00), rgb(0xc62828),
              rgb(0x1f8a4c), rgb(0x2f5fb3), rgb(0xc62828), rgb(0x6b4fd8), rgb(0xf0b429, 0.35f),
              rgb(0x1d4ed8), rgb(0x8a8f98), rgb(0xe9ecf1)};
}

}  // namespace

Fonts load_fonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  Fonts fonts;
  const std::string regular = find_font("DejaVuSans.ttf");
  const std::string bold = find_font("DejaVuSans-Bold.ttf");
  const std::string mono = find_font("DejaVuSansMono.ttf");
  ImFontConfig config;
  config.OversampleH = 2;
  config.OversampleV = 1;
  const float size = 15.0f * scale;
  if (!regular.empty()) {
    fonts.regular = io.Fonts->AddFontFromFileTTF(regular.c_str(), size, &config, glyph_ranges());
    fonts.source = regular;
  }
  if (fonts.regular == nullptr) {
    ImFontConfig fallback;
    fallback.SizePixels = 13.0f * scale;
    fonts.regular = io.Fonts->AddFontDefault(&fallback);
    fonts.source = "ImGui default";
  }
  if (!bold.empty()) {
    fonts.bold = io.Fonts->AddFontFromFileTTF(bold.c_str(), size, &config, glyph_ranges());
  }
  if (!mono.empty()) {
    fonts.mono = io.Fonts->AddFontFromFileTTF(mono.c_str(), 14.0f * scale, &config, glyph_ranges());
  }
  fonts.bold = fonts.bold != nullptr ? fonts.bold : fonts.regular;
  fonts.mono = fonts.mono != nullptr ? fonts.mono : fonts.regular;
  io.FontDefault = fonts.regular;
  return fonts;
}

void apply_theme(bool light, float scale) {
  ImGuiStyle style;
  if (light) {
    set_light(style);
  } else {
    set_dark(style);
  }
  style.WindowRounding = 0.0f;
  style.WindowBorderSize = 1.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 4.0f;
  style.PopupRounding = 4.0f;
  style.GrabRounding = 4.0f;
  style.ScrollbarRounding = 6.0f;
  style.TabRounding = 4.0f;
  style.WindowPadding = ImVec2(10, 8);
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.CellPadding = ImVec2(6, 3);
  style.ScrollbarSize = 12.0f;
  style.WindowTitleAlign = ImVec2(0.0f, 0.5f);
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

const Palette& palette() {
  return g_palette;
}

ImVec4 event_color(std::string_view type) {
  if (type == "ADDED") {
    return g_palette.added;
  }
  if (type == "MODIFIED") {
    return g_palette.modified;
  }
  if (type == "DELETED" || type == "ERROR") {
    return g_palette.deleted;
  }
  return g_palette.bookmark;
}

void empty_state(const char* title, const std::string& detail) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float width = std::max(40.0f, std::min(avail.x - 20.0f, ImGui::GetFontSize() * 34.0f));
  const float x = ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - width) * 0.5f);
  ImGui::SetCursorPos(ImVec2(x, ImGui::GetCursorPosY() + std::max(0.0f, avail.y * 0.30f)));
  ImGui::PushTextWrapPos(x + width);
  ImGui::TextUnformatted(title);
  if (!detail.empty()) {
    ImGui::SetCursorPosX(x);
    ImGui::PushStyleColor(ImGuiCol_Text, g_palette.text_dim);
    ImGui::TextWrapped("%s", detail.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopTextWrapPos();
}

void text_dim(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, g_palette.text_dim);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopStyleColor();
}

// The panes tile the window, and each frame starts by clearing it to WindowBg: a pane (and a
// child region in it, ChildBg being transparent) draws no background of its own. Painting the
// same colour again would look the same and cost a full-window fill, which software GL pays
// per pixel on every frame.
bool begin_pane(const char* title_and_id, const Frame& frame, ImGuiWindowFlags extra) {
  ImGui::SetNextWindowPos(frame.pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(frame.size, ImGuiCond_Always);
  // A transparent background is not drawn at all; ImGuiWindowFlags_NoBackground would also drop
  // the pane's border.
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0, 0, 0, 0));
  const bool open = ImGui::Begin(title_and_id, nullptr,
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                     ImGuiWindowFlags_NoCollapse |
                                     ImGuiWindowFlags_NoSavedSettings |
                                     ImGuiWindowFlags_NoBringToFrontOnFocus | extra);
  ImGui::PopStyleColor();
  return open;
}

bool key_pressed(int glfw_key) {
  return ImGui::IsKeyPressed(glfw_key, false);
}

bool ctrl_pressed(int glfw_key) {
  return ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(glfw_key, false);
}

}  // namespace console::ui
