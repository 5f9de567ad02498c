#include "ui/status_bar.h"

#include <string>

#include "console/model/table_view.h"

namespace console::ui {

void StatusBar::draw(const app::ConsoleState& state, const Frame& frame) {
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                      ImVec2(ImGui::GetStyle().WindowPadding.x, ImGui::GetStyle().FramePadding.y));
  const bool open = begin_pane("##status", frame,
                               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar |
                                   ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  if (!open) {
    ImGui::End();
    return;
  }
  const Palette& p = palette();
  const app::ConnectionState connection = state.connection();
  const ImVec4 color = connection == app::ConnectionState::Connected    ? p.ok
                       : connection == app::ConnectionState::Connecting ? p.warning
                                                                        : p.error;
  ImGui::TextColored(color, "● %s", app::to_string(connection));
  auto separator = [&] {
    ImGui::SameLine();
    text_dim("|");
    ImGui::SameLine();
  };
  separator();
  ImGui::TextUnformatted(state.access().server.c_str());
  ImGui::SameLine();
  text_dim("context " + state.access().context);
  separator();
  // Who the server sees (kubectl auth whoami): what every refusal below is about.
  if (const auto& user = state.user()) {
    ImGui::TextColored(p.accent, "as %s", user->username.c_str());
    if (ImGui::IsItemHovered()) {
      std::string groups;
      for (const std::string& group : user->groups) {
        groups += "\n  " + group;
      }
      ImGui::SetTooltip("The server sees the console as user \"%s\"%s%s", user->username.c_str(),
                        groups.empty() ? "" : ", in groups:", groups.c_str());
    }
  } else {
    text_dim(state.whoami_error().empty() ? "as …" : "as ? (" + state.whoami_error() + ")");
  }
  separator();
  ImGui::TextUnformatted(
      ("Kubernetes " + (state.server_version().empty() ? std::string("…") : state.server_version()))
          .c_str());
  separator();
  text_dim("requests in flight " + std::to_string(state.requests_in_flight()));
  if (state.dropped_messages() > 0) {
    separator();
    ImGui::TextColored(p.warning, "dropped %llu",
                       static_cast<unsigned long long>(state.dropped_messages()));
  }
  if (!state.last_error().empty()) {
    separator();
    const int64_t ago = (state.now_ms() - state.last_error_ms()) / 1000;
    const std::string text =
        "last error (" + model::human_age(ago) + " ago): " + state.last_error();
    // Red while fresh; an old error is history, not an alarm.
    ImGui::PushStyleColor(ImGuiCol_Text, ago < 30 ? p.error : p.text_dim);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s", state.last_error().c_str());
    }
  }
  ImGui::End();
}

}  // namespace console::ui
