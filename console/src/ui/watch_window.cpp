#include "ui/watch_window.h"

#include <ctime>
#include <string>

namespace console::ui {

namespace {

constexpr const char* kTypes[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

std::string clock_text(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  const int millis = static_cast<int>(unix_ms % 1000);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03d", text, millis < 0 ? 0 : millis);
  return out;
}

// A combo choosing `value` among what `choices()` lists, "" showing as `all`; the choices are
// gathered only while the combo is open.
template <class Choices>
void choice_combo(const char* id, const char* all, std::string& value, Choices choices) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
  if (!ImGui::BeginCombo(id, value.empty() ? all : value.c_str())) {
    return;
  }
  if (ImGui::Selectable(all, value.empty())) {
    value.clear();
  }
  for (const std::string& choice : choices()) {
    if (ImGui::Selectable(choice.c_str(), choice == value)) {
      value = choice;
    }
  }
  ImGui::EndCombo();
}

}  // namespace

void WatchWindow::draw(app::ConsoleState& state, const Frame& frame) {
  model::EventLog& log = state.events();
  const uint64_t dropped = log.dropped() + state.dropped_messages();
  const std::string title = "Watch events  ·  " + std::to_string(log.size()) + " kept  ·  " +
                            std::to_string(dropped) + " dropped###watch";
  if (!begin_pane(title.c_str(), frame)) {
    ImGui::End();
    return;
  }
  model::EventFilter& filter = state.view_options().events;
  auto& hidden = filter.hidden_types;
  if (ImGui::Button(log.paused() ? "Resume" : "Pause", ImVec2(ImGui::GetFontSize() * 5.0f, 0))) {
    log.set_paused(!log.paused());
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "%zu events kept (at most %zu; the oldest go first)\n"
        "%llu dropped from the log when full\n"
        "%llu stream messages dropped when the console fell behind "
        "(each makes its watch list again)",
        log.size(), log.capacity(), static_cast<unsigned long long>(log.dropped()),
        static_cast<unsigned long long>(state.dropped_messages()));
  }
  ImGui::SameLine();
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x * 0.5f,
                                                         ImGui::GetStyle().FramePadding.y * 0.5f));
  for (const char* type : kTypes) {
    bool on = hidden.count(type) == 0;
    ImGui::AlignTextToFramePadding();
    ImGui::PushStyleColor(ImGuiCol_CheckMark, event_color(type));
    if (ImGui::Checkbox(type, &on)) {
      if (on) {
        hidden.erase(type);
      } else {
        hidden.insert(type);
      }
    }
    ImGui::PopStyleColor();
    ImGui::SameLine();
  }
  ImGui::NewLine();
  choice_combo("##kind", "all kinds", filter.kind, [&] { return log.kinds(); });
  ImGui::SameLine();
  choice_combo("##namespace", "all namespaces", filter.namespace_,
               [&] { return log.namespaces(); });
  ImGui::PopStyleVar();
  if (log.paused()) {
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(palette().warning, "paused: %zu held", log.size() - log.visible_size());
  }

  shown_.clear();
  const size_t visible = log.visible_size();
  for (size_t i = 0; i < visible; ++i) {
    if (filter.matches(log.at(i))) {
      shown_.push_back(static_cast<uint32_t>(i));
    }
  }
  if (shown_.empty()) {
    empty_state(log.size() == 0 ? "No watch events yet" : "No events pass the filter",
                log.size() == 0 ? "Changes to the kinds you open are listed here as the "
                                  "server reports them: created, modified, deleted."
                                : "Tick a type above, or choose all kinds and namespaces.");
    ImGui::End();
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("events", 5, flags, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    // Widths from the widest text each column can hold, not from the first rows seen.
    const auto width = [](const char* widest) { return ImGui::CalcTextSize(widest).x; };
    ImGui::TableSetupColumn("Time", ImGuiTableColumnFlags_WidthFixed, width("00:00:00.000"));
    ImGui::TableSetupColumn("Type", ImGuiTableColumnFlags_WidthFixed, width("BOOKMARK"));
    ImGui::TableSetupColumn("Kind", ImGuiTableColumnFlags_WidthFixed, width("ServiceAccount"));
    ImGui::TableSetupColumn("Namespace/Name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("ResourceVersion", ImGuiTableColumnFlags_WidthFixed,
                            width("ResourceVersion"));
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(shown_.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const size_t index = shown_[static_cast<size_t>(i)];
        const model::LoggedEvent& e = log.at(index);
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        // The row is one selectable: a click opens the event's version and diff in the pane.
        const auto& open = state.event_history();
        const bool selected = open && open->event.type == e.type && open->event.kind == e.kind &&
                              open->event.namespace_ == e.namespace_ &&
                              open->event.name == e.name &&
                              open->event.resource_version == e.resource_version &&
                              open->event.received_unix_ms == e.received_unix_ms;
        ImGui::PushID(static_cast<int>(index));
        ImGui::PushStyleColor(ImGuiCol_Text, palette().text_dim);
        if (ImGui::Selectable(
                clock_text(e.received_unix_ms).c_str(), selected,
                ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
          state.select_event(index);
        }
        ImGui::PopStyleColor();
        ImGui::PopID();
        ImGui::TableSetColumnIndex(1);
        ImGui::TextColored(event_color(e.type), "%s", e.type.c_str());
        ImGui::TableSetColumnIndex(2);
        ImGui::TextUnformatted(e.kind.c_str());
        ImGui::TableSetColumnIndex(3);
        const std::string name = e.namespace_.empty() ? e.name : e.namespace_ + "/" + e.name;
        ImGui::TextUnformatted(name.c_str());
        ImGui::TableSetColumnIndex(4);
        text_dim(e.resource_version);
      }
    }
    // Follow new events while scrolled to the bottom, as a log viewer does.
    if (shown_.size() != last_count_) {
      if (follow_) {
        ImGui::SetScrollHereY(1.0f);
      }
    } else {
      follow_ = ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 2.0f;
    }
    last_count_ = shown_.size();
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace console::ui
