#include "ui/help_window.h"

namespace console::ui {

namespace {

struct Shortcut {
  const char* keys;
  const char* action;
};

constexpr Shortcut kShortcuts[] = {
    {"Ctrl+F", "filter the table: a name, or a label selector such as app=web,tier!=db"},
    {"Up / Down", "move the selection in the table (Page Up/Down, Home, End jump)"},
    {"Enter", "edit the selected object"},
    {"Ctrl+S", "apply the editor (server-side apply), or create the new object"},
    {"Ctrl+N", "new object of the shown kind, from a template, in the selected namespace"},
    {"Del", "delete the selected object (asks first)"},
    {"Esc", "cancel: close the confirmation, the editor, an event's history or this window"},
    {"F1", "show or hide this window"},
    {"F5", "ask the server for its kinds again (discovery)"},
    {"Ctrl+Q", "quit"},
};

}  // namespace

void HelpWindow::draw(app::ConsoleState& state, const Fonts& fonts) {
  bool& open = state.view_options().show_help;
  if (!open) {
    return;
  }
  const ImVec2 center = ImGui::GetMainViewport()->GetCenter();
  ImGui::SetNextWindowPos(center, ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40.0f, 0), ImGuiCond_Always);
  if (!ImGui::Begin("Help###help", &open,
                    ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                        ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoResize |
                        ImGuiWindowFlags_NoMove)) {
    ImGui::End();
    return;
  }
  ImGui::PushFont(fonts.bold);
  ImGui::TextUnformatted("Keyboard shortcuts");
  ImGui::PopFont();
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn("Keys", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 7.0f);
    ImGui::TableSetupColumn("Action", ImGuiTableColumnFlags_WidthStretch);
    for (const Shortcut& s : kShortcuts) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextColored(palette().accent, "%s", s.keys);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextWrapped("%s", s.action);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::PushFont(fonts.bold);
  ImGui::TextUnformatted("The panes");
  ImGui::PopFont();
  ImGui::PushTextWrapPos(0.0f);
  text_dim(
      "Resources: the kinds the server serves, by API group, with live counts for the kinds "
      "opened. Objects: the server's own table columns, kept current by a watch; click a "
      "column to sort. Watch events: every change as it arrives; click one to see the object "
      "as of that event and what changed from the version before. Object: the selected "
      "object's YAML; edits are sent as server-side apply with field manager "
      "kube-sandbox-console, or replaced whole (Replace: a PUT with the resourceVersion the "
      "edit began from, so a change made meanwhile is a Conflict). Duplicate opens a renamed "
      "copy to create.");
  ImGui::Spacing();
  text_dim(
      "Drag the borders between the panes to resize them (double-click one for its default "
      "size). The star on a kind's row pins it under Favourites, on top of the tree. Sizes, "
      "theme, favourites and column widths are kept in console.ini.");
  ImGui::PopTextWrapPos();
  ImGui::End();
}

}  // namespace console::ui
