#include "ui/resource_tree_window.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

namespace console::ui {

namespace {

bool contains_ignoring_case(const std::string& text, const std::string& part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

}  // namespace

void ResourceTreeWindow::draw_namespaces(app::ConsoleState& state) {
  const model::NamespaceSelector& namespaces = state.namespaces();
  text_dim("Namespace");
  ImGui::SetNextItemWidth(-1);
  const std::string preview(namespaces.choice_label(namespaces.selected_choice()));
  if (ImGui::BeginCombo("##namespace", preview.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (size_t i = 0; i < namespaces.choice_count(); ++i) {
      const bool selected = i == namespaces.selected_choice();
      const std::string label(namespaces.choice_label(i));
      if (ImGui::Selectable(label.c_str(), selected)) {
        state.select_namespace(i == 0 ? "" : label);
      }
      if (selected) {
        ImGui::SetItemDefaultFocus();
      }
    }
    ImGui::EndCombo();
  }
  if (!state.namespaces_denied().empty() && ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Only the context's namespace: the server refused the namespace list.\n%s",
                      state.namespaces_denied().c_str());
  }
}

void ResourceTreeWindow::draw_kind(app::ConsoleState& state, const model::ApiResource& r) {
  const std::string key = r.key();
  const bool selected = key == state.current_key();
  const bool favourite = state.is_favourite(key);
  // A kind the user may not list here stays clickable (the table shows the server's refusal),
  // dimmed and marked.
  const std::optional<std::string> denied = state.list_denied(r);
  ImGui::PushID(key.c_str());
  const float right = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;
  if (denied) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette().text_dim);
  }
  if (ImGui::Selectable(r.resource.c_str(), selected, ImGuiSelectableFlags_AllowItemOverlap)) {
    state.select_kind(r.group, r.resource);
  }
  if (denied) {
    ImGui::PopStyleColor();
  }
  const bool row_hovered = ImGui::IsItemHovered();
  if (row_hovered) {
    ImGui::SetTooltip("%s (%s%s)%s%s%s", r.kind.c_str(),
                      r.group.empty() ? "" : (r.group + "/").c_str(), r.version.c_str(),
                      r.namespaced ? "" : ", cluster-scoped",
                      denied ? "\nYou may not list it here:\n" : "", denied ? denied->c_str() : "");
  }
  float star_right = right - 2.0f;
  if (denied) {
    const char* mark = "✗";
    const float width = ImGui::CalcTextSize(mark).x;
    ImGui::SameLine(right - width - 4.0f);
    ImGui::TextColored(palette().error, "%s", mark);
    star_right = right - width - 4.0f - ImGui::GetStyle().ItemSpacing.x;
  } else if (r.count) {
    const std::string count = std::to_string(*r.count);
    const float width = ImGui::CalcTextSize(count.c_str()).x;
    ImGui::SameLine(right - width - 4.0f);
    ImGui::PushStyleColor(ImGuiCol_Text, selected ? palette().accent : palette().text_dim);
    ImGui::TextUnformatted(count.c_str());
    ImGui::PopStyleColor();
    star_right = right - width - 4.0f - ImGui::GetStyle().ItemSpacing.x;
  }
  // The star: always shown on favourites, on other rows while hovered.
  const char* star = favourite ? "★" : "☆";
  const float star_width = ImGui::CalcTextSize(star).x;
  ImGui::SameLine(star_right - star_width);
  const bool star_hovered = ImGui::IsMouseHoveringRect(
      ImGui::GetCursorScreenPos(),
      ImVec2(ImGui::GetCursorScreenPos().x + star_width,
             ImGui::GetCursorScreenPos().y + ImGui::GetTextLineHeight()));
  ImVec4 colour = favourite ? palette().warning : palette().text_dim;
  if (!favourite && !row_hovered && !star_hovered) {
    colour.w = 0.0f;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextUnformatted(star);
  ImGui::PopStyleColor();
  if (ImGui::IsItemClicked()) {
    state.set_favourite(key, !favourite);
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", favourite ? "Unpin from Favourites" : "Pin to Favourites");
  }
  ImGui::PopID();
}

void ResourceTreeWindow::draw(app::ConsoleState& state, const Frame& frame) {
  if (!begin_pane("Resources###tree", frame)) {
    ImGui::End();
    return;
  }
  draw_namespaces(state);
  ImGui::Spacing();
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##kinds", "Find a kind", &kind_filter_);
  ImGui::Separator();

  ImGui::BeginChild("##kinds-list", ImVec2(0, 0), false);
  const model::ResourceTree& tree = state.tree();
  if (!state.discovered()) {
    if (!state.discovery_error().empty()) {
      empty_state("Discovery failed",
                  state.discovery_error() + "\n\nPress F5 to ask the server again.");
    } else {
      empty_state("Discovering the API…",
                  "Asking " + state.access().server + " which kinds it serves.");
    }
    ImGui::EndChild();
    ImGui::End();
    return;
  }
  size_t shown = 0;
  const auto matches = [this](const model::ApiResource& r) {
    return r.has_verb("list") &&
           (kind_filter_.empty() || contains_ignoring_case(r.resource, kind_filter_) ||
            contains_ignoring_case(r.kind, kind_filter_));
  };
  std::vector<const model::ApiResource*> pinned;
  for (const model::ApiResource* r : tree.favourites()) {
    if (matches(*r)) {
      pinned.push_back(r);
    }
  }
  if (!pinned.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette().warning);
    const bool open =
        ImGui::TreeNodeEx("★ Favourites###favourites",
                          ImGuiTreeNodeFlags_SpanAvailWidth | ImGuiTreeNodeFlags_DefaultOpen);
    ImGui::PopStyleColor();
    if (open) {
      ImGui::PushID("favourites");
      for (const model::ApiResource* r : pinned) {
        ++shown;
        draw_kind(state, *r);
      }
      ImGui::PopID();
      ImGui::TreePop();
    }
  }
  for (const model::ApiGroup& group : tree.groups()) {
    std::vector<const model::ApiResource*> matching;
    for (const model::ApiResource& r : group.resources) {
      if (matches(r)) {
        matching.push_back(&r);
      }
    }
    if (matching.empty()) {
      continue;
    }
    const bool open_by_default = group.name.empty() || group.name == "apps";
    ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanAvailWidth;
    if (open_by_default || !kind_filter_.empty()) {
      flags |= ImGuiTreeNodeFlags_DefaultOpen;
    }
    if (!kind_filter_.empty()) {
      ImGui::SetNextItemOpen(true, ImGuiCond_Always);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, palette().text_dim);
    const bool open = ImGui::TreeNodeEx(group.display_name.c_str(), flags);
    ImGui::PopStyleColor();
    if (!open) {
      continue;
    }
    for (const model::ApiResource* r : matching) {
      ++shown;
      draw_kind(state, *r);
    }
    ImGui::TreePop();
  }
  if (shown == 0 && !kind_filter_.empty()) {
    text_dim("No kind matches \"" + kind_filter_ + "\".");
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace console::ui
