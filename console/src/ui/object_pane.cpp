#include "ui/object_pane.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "console/model/table_view.h"

namespace console::ui {

namespace {

std::string describe(const app::ObjectRef& ref) {
  return ref.namespace_.empty() ? ref.name : ref.namespace_ + "/" + ref.name;
}

// Draws one YAML line: the key (up to ": ") in the key colour, comments dimmed.
void yaml_line(std::string_view line) {
  const Palette& p = palette();
  const size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos) {
    ImGui::TextUnformatted("");
    return;
  }
  if (line[indent] == '#') {
    ImGui::PushStyleColor(ImGuiCol_Text, p.yaml_comment);
    ImGui::TextUnformatted(line.data(), line.data() + line.size());
    ImGui::PopStyleColor();
    return;
  }
  size_t key_start = indent;
  if (line.substr(indent).starts_with("- ")) {
    key_start += 2;
  }
  size_t colon = line.find(": ", key_start);
  if (colon == std::string_view::npos && line.back() == ':') {
    colon = line.size() - 1;
  }
  const bool quoted_start =
      key_start < line.size() && (line[key_start] == '"' || line[key_start] == '\'');
  if (colon == std::string_view::npos || quoted_start) {
    ImGui::TextUnformatted(line.data(), line.data() + line.size());
    return;
  }
  ImGui::TextUnformatted(line.data(), line.data() + key_start);
  ImGui::SameLine(0, 0);
  ImGui::PushStyleColor(ImGuiCol_Text, p.yaml_key);
  ImGui::TextUnformatted(line.data() + key_start, line.data() + colon + 1);
  ImGui::PopStyleColor();
  if (colon + 1 < line.size()) {
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(line.data() + colon + 1, line.data() + line.size());
  }
}

}  // namespace

void ObjectPane::draw(app::ConsoleState& state, const Frame& frame, const Fonts& fonts) {
  std::string title = "Object###object";
  if (state.creating()) {
    const auto& kinds = state.open_kinds();
    const auto kind = kinds.find(state.editor_target()->kind_key);
    title = "New " + (kind != kinds.end() ? kind->second.table.resource().kind : "object") +
            "###object";
  } else if (state.editing()) {
    title = "Editing  ·  " + describe(*state.editor_target()) + "###object";
  }
  if (!begin_pane(title.c_str(), frame)) {
    ImGui::End();
    return;
  }
  if (state.editing()) {
    draw_editor(state, fonts);
  } else if (state.event_history()) {
    draw_history(state, fonts);
  } else {
    draw_view(state, fonts);
  }
  draw_delete_confirmation(state, fonts);
  ImGui::End();
}

namespace {

// A button greyed out, with the server's reason on hover, when the user may not take its action.
bool permitted_button(const char* label, const app::Permission& permission) {
  ImGui::BeginDisabled(!permission.allowed);
  const bool pressed = ImGui::Button(label);
  ImGui::EndDisabled();
  if (!permission.allowed && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip("Not allowed:\n%s", permission.reason.c_str());
  }
  return pressed;
}

// What is greyed out and why, in words under the buttons, so that a glance (or a screenshot)
// tells without hovering: the actions' names and the first reason.
void explain_greyed(const std::vector<std::pair<const char*, app::Permission>>& actions) {
  std::string names;
  const std::string* reason = nullptr;
  for (const auto& [name, permission] : actions) {
    if (!permission.allowed) {
      names += (names.empty() ? "" : ", ") + std::string(name);
      reason = reason != nullptr ? reason : &permission.reason;
    }
  }
  if (reason != nullptr) {
    ImGui::PushTextWrapPos(0.0f);
    text_dim("Greyed out: " + names + ". " + *reason + ".");
    ImGui::PopTextWrapPos();
  }
}

}  // namespace

void ObjectPane::draw_view(app::ConsoleState& state, const Fonts& fonts) {
  const model::CachedObject* object = state.selected_object();
  const app::OpenKind* kind = state.current();
  if (object == nullptr || kind == nullptr) {
    draw_result(state, fonts);
    if (kind != nullptr && kind->table.resource().has_verb("create")) {
      const std::string label = "New " + kind->table.resource().kind + "  (Ctrl+N)";
      ImGui::BeginDisabled(state.action_in_flight());
      if (permitted_button(label.c_str(), state.may_create())) {
        state.begin_create();
      }
      ImGui::EndDisabled();
      explain_greyed({{"New", state.may_create()}});
    }
    empty_state("No object selected",
                kind == nullptr ? "Pick a kind on the left, then a row of the table."
                                : "Select a row of the table (click, or the arrow keys) to see "
                                  "the object as YAML. Enter edits it; Del deletes it.");
    return;
  }
  ImGui::PushFont(fonts.bold);
  ImGui::TextUnformatted(kind->table.resource().kind.c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  const std::string name =
      object->namespace_.empty() ? object->name : object->namespace_ + "/" + object->name;
  ImGui::TextUnformatted(name.c_str());
  std::string facts = "resourceVersion " + object->resource_version();
  const std::string age = kind->table.age(object->namespace_, object->name, state.now_ms());
  if (!age.empty()) {
    facts += "  ·  age " + age;
  }
  if (object->versions.size() > 1) {
    facts += "  ·  " + std::to_string(object->versions.size()) + " versions seen";
  }
  text_dim(facts);
  const bool busy = state.action_in_flight();
  ImGui::BeginDisabled(busy);
  const app::Permission may_create = state.may_create();
  if (permitted_button("Edit  (Enter)", state.may_edit())) {
    state.begin_edit();
  }
  ImGui::SameLine();
  if (permitted_button("Duplicate", may_create)) {
    state.begin_duplicate();
  }
  if (may_create.allowed && ImGui::IsItemHovered()) {
    ImGui::SetTooltip("A copy to create, named <name>-copy, without what the server set");
  }
  ImGui::SameLine();
  if (permitted_button("New", may_create)) {
    state.begin_create();
  }
  if (may_create.allowed && ImGui::IsItemHovered()) {
    ImGui::SetTooltip("A new object of this kind from a template (Ctrl+N)");
  }
  ImGui::SameLine();
  if (permitted_button("Delete  (Del)", state.may_delete())) {
    state.request_delete();
  }
  explain_greyed({{"Edit", state.may_edit()},
                  {"Duplicate", may_create},
                  {"New", may_create},
                  {"Delete", state.may_delete()}});
  ImGui::EndDisabled();
  draw_result(state, fonts);
  ImGui::Separator();
  draw_yaml(state.selected_yaml(), fonts);
}

void ObjectPane::draw_history(app::ConsoleState& state, const Fonts& fonts) {
  const app::EventHistory& h = *state.event_history();
  const Palette& p = palette();
  ImGui::PushFont(fonts.bold);
  ImGui::TextColored(event_color(h.event.type), "%s", h.event.type.c_str());
  ImGui::SameLine();
  ImGui::TextUnformatted(h.event.kind.c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  const std::string name =
      h.event.namespace_.empty() ? h.event.name : h.event.namespace_ + "/" + h.event.name;
  ImGui::TextUnformatted(name.c_str());
  std::string facts = "resourceVersion " + h.event.resource_version;
  if (!h.previous_resource_version.empty()) {
    facts += "  ·  compared with " + h.previous_resource_version + ": +" +
             std::to_string(h.diff.added) + " -" + std::to_string(h.diff.removed) + " lines";
  }
  text_dim(facts);
  if (ImGui::Button("Back to the object  (Esc)")) {
    state.close_event();
    return;
  }
  if (!h.note.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(h.found ? p.text_dim : p.warning, "%s", h.note.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  if (!h.found) {
    empty_state("Nothing to show for this event", h.note);
    return;
  }
  if (!ImGui::BeginTabBar("##history")) {
    return;
  }
  const bool has_diff = !h.previous_resource_version.empty();
  if (has_diff && ImGui::BeginTabItem("Changes")) {
    ImGui::BeginChild("##diff", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushFont(fonts.mono);
    if (h.diff.hunks.empty()) {
      text_dim("No change in the YAML (only server-set fields such as resourceVersion moved).");
    }
    for (const model::DiffHunk& hunk : h.diff.hunks) {
      ImGui::TextColored(p.accent, "@@ -%zu,%zu +%zu,%zu @@", hunk.old_start, hunk.old_count,
                         hunk.new_start, hunk.new_count);
      for (const model::DiffLine& line : hunk.lines) {
        const bool added = line.tag == model::LineTag::Added;
        const bool removed = line.tag == model::LineTag::Removed;
        const ImVec4 colour = added ? p.added : removed ? p.deleted : p.text_dim;
        ImGui::TextColored(colour, "%s%s", added ? "+ " : removed ? "- " : "  ", line.text.c_str());
      }
    }
    if (h.diff.approximate) {
      text_dim("(many lines differ: the changed block is shown whole)");
    }
    ImGui::PopFont();
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("YAML as of this event")) {
    draw_yaml(h.yaml, fonts);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

void ObjectPane::draw_yaml(const std::string& yaml, const Fonts& fonts) {
  if (yaml != yaml_copy_) {
    yaml_copy_ = yaml;
    lines_.clear();
    std::string_view rest = yaml_copy_;
    while (!rest.empty()) {
      const size_t end = rest.find('\n');
      lines_.push_back(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
  }
  ImGui::BeginChild("##yaml", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(fonts.mono);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(lines_.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      yaml_line(lines_[static_cast<size_t>(i)]);
    }
  }
  ImGui::PopFont();
  ImGui::EndChild();
}

void ObjectPane::draw_result(const app::ConsoleState& state, const Fonts& fonts) {
  const auto& result = state.action_result();
  const Palette& p = palette();
  if (state.action_in_flight()) {
    ImGui::TextColored(p.warning, "Waiting for the server…");
    return;
  }
  if (!result) {
    return;
  }
  const std::string& a = result->action;
  if (result->ok) {
    const char* done = a == "apply"     ? "Applied "
                       : a == "create"  ? "Created "
                       : a == "replace" ? "Replaced "
                                        : "Deleted ";
    std::string text = std::string("✓ ") + done + describe(result->target);
    if (!result->resource_version.empty() && a != "delete") {
      text += "  ·  resourceVersion " + result->resource_version;
    }
    ImGui::TextColored(p.ok, "%s", text.c_str());
    return;
  }
  const app::ApiError& error = *result->error;
  const std::string action = a == "apply"     ? "Apply"
                             : a == "create"  ? "Create"
                             : a == "replace" ? "Replace"
                                              : "Delete";
  std::string heading;
  if (error.http_status != 0) {
    heading = "✗ " + action + " refused" + (error.reason.empty() ? "" : ": " + error.reason) +
              "  (HTTP " + std::to_string(error.http_status) + ")";
  } else if (!error.reason.empty()) {
    heading = "✗ " + action + " not sent";  // refused here, before the server saw it
  } else {
    heading = "✗ " + action + " failed: no answer from the server";
  }
  std::vector<std::string> causes;
  for (const auto& cause : error.causes) {
    causes.push_back((cause.field.empty() ? "" : cause.field + ": ") + cause.message +
                     (cause.reason.empty() ? "" : "  [" + cause.reason + "]"));
  }
  // Tall enough for the wrapped text, up to 40% of the pane; it scrolls beyond that.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float inner =
      ImGui::GetContentRegionAvail().x - style.WindowPadding.x * 2.0f - style.ScrollbarSize;
  const float bullet = ImGui::GetTreeNodeToLabelSpacing();
  float height = ImGui::GetTextLineHeightWithSpacing() +
                 ImGui::CalcTextSize(error.message.c_str(), nullptr, false, inner).y +
                 style.ItemSpacing.y + style.WindowPadding.y * 2.0f;
  for (const std::string& text : causes) {
    height +=
        ImGui::CalcTextSize(text.c_str(), nullptr, false, inner - bullet).y + style.ItemSpacing.y;
  }
  height = std::min(height, ImGui::GetContentRegionAvail().y * 0.4f);
  ImGui::PushStyleColor(ImGuiCol_ChildBg, p.panel);
  ImGui::PushStyleVar(ImGuiStyleVar_ChildRounding, 4.0f);
  ImGui::BeginChild("##error", ImVec2(0, height), true);
  ImGui::PushFont(fonts.bold);
  ImGui::TextColored(p.error, "%s", heading.c_str());
  ImGui::PopFont();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(error.message.c_str());
  for (const std::string& text : causes) {
    ImGui::Bullet();
    ImGui::TextUnformatted(text.c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
}

void ObjectPane::draw_editor(app::ConsoleState& state, const Fonts& fonts) {
  const bool busy = state.action_in_flight();
  const bool creating = state.creating();
  ImGui::BeginDisabled(busy);
  // Greyed out as the rules say; Ctrl+S still sends, and the server's refusal shows below.
  const app::Permission may_create = state.may_editor("create");
  const app::Permission may_patch = state.may_editor("patch");
  const app::Permission may_update = state.may_editor("update");
  if (creating) {
    if (permitted_button("Create  (Ctrl+S)", may_create)) {
      state.create();
    }
  } else {
    if (permitted_button("Apply  (Ctrl+S)", may_patch)) {
      state.apply();
    }
    ImGui::SameLine();
    if (permitted_button("Replace", may_update)) {
      state.replace();
    }
    if (may_update.allowed && ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "PUT the whole object as written. Without a resourceVersion in the text, the one the\n"
          "edit began from is sent: a change made since is refused (Conflict), not overwritten.");
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel  (Esc)")) {
    state.cancel_edit();
    ImGui::EndDisabled();
    return;
  }
  if (!creating) {
    ImGui::SameLine();
    ImGui::Checkbox("Force", &state.force_apply());
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Apply: take ownership of fields another manager owns (force=true)");
    }
  }
  ImGui::EndDisabled();
  if (creating) {
    explain_greyed({{"Create", may_create}});
  } else {
    explain_greyed({{"Apply", may_patch}, {"Replace", may_update}});
  }
  ImGui::PushTextWrapPos(0.0f);
  text_dim(creating ? std::string("Create: a POST to the namespace of metadata.namespace")
                    : std::string("Apply: server-side apply as ") +
                          app::ConsoleState::kFieldManager + ".  Replace: a PUT.");
  ImGui::PopTextWrapPos();
  draw_result(state, fonts);
  ImGui::PushFont(fonts.mono);
  ImGui::InputTextMultiline("##editor", &state.editor_text(), ImVec2(-1, -1),
                            ImGuiInputTextFlags_AllowTabInput);
  ImGui::PopFont();
}

void ObjectPane::draw_delete_confirmation(app::ConsoleState& state, const Fonts& fonts) {
  const char* kPopup = "Delete object?";
  if (state.delete_pending_confirmation() && !ImGui::IsPopupOpen(kPopup)) {
    ImGui::OpenPopup(kPopup);
  }
  const ImVec2 center = ImGui::GetMainViewport()->GetCenter();
  ImGui::SetNextWindowPos(center, ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(kPopup, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    return;
  }
  if (!state.delete_pending_confirmation()) {
    ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return;
  }
  const app::ObjectRef& target = *state.delete_target();
  const app::OpenKind* kind = state.open_kinds().count(target.kind_key) != 0
                                  ? &state.open_kinds().at(target.kind_key)
                                  : nullptr;
  ImGui::PushFont(fonts.bold);
  ImGui::Text("Delete %s %s?", kind != nullptr ? kind->table.resource().kind.c_str() : "object",
              describe(target).c_str());
  ImGui::PopFont();
  // Finalizers hold a deleted object until their controllers remove them: say which.
  std::vector<std::string> finalizers;
  if (kind != nullptr) {
    if (const model::CachedObject* object =
            kind->table.cache().find(target.namespace_, target.name)) {
      const auto metadata = object->object().find("metadata");
      if (metadata != object->object().end() && metadata->is_object()) {
        const auto list = metadata->find("finalizers");
        if (list != metadata->end() && list->is_array()) {
          for (const auto& f : *list) {
            if (f.is_string()) {
              finalizers.push_back(f.get<std::string>());
            }
          }
        }
      }
    }
  }
  if (finalizers.empty()) {
    text_dim("It has no finalizers: the server deletes it at once.");
  } else {
    ImGui::TextColored(palette().warning, "%s",
                       "Its finalizers hold it, marked for deletion, until they are removed:");
    for (const std::string& f : finalizers) {
      ImGui::BulletText("%s", f.c_str());
    }
  }
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Button, palette().error);
  const bool confirmed = ImGui::Button("Delete", ImVec2(ImGui::GetFontSize() * 7.0f, 0));
  ImGui::PopStyleColor();
  ImGui::SameLine();
  const bool cancelled = ImGui::Button("Cancel  (Esc)", ImVec2(ImGui::GetFontSize() * 7.0f, 0));
  if (confirmed) {
    state.confirm_delete();
    ImGui::CloseCurrentPopup();
  } else if (cancelled) {
    state.cancel_delete();
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace console::ui
