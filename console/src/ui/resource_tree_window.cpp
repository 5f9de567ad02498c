#include "ui/resource_tree_window.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>

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
  const std::string& current = state.current_key();
  size_t shown = 0;
  for (const model::ApiGroup& group : tree.groups()) {
    std::vector<const model::ApiResource*> matching;
    for (const model::ApiResource& r : group.resources) {
      if (!r.has_verb("list")) {
        continue;
      }
      if (kind_filter_.empty() || contains_ignoring_case(r.resource, kind_filter_) ||
          contains_ignoring_case(r.kind, kind_filter_)) {
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
      const std::string key = r->key();
      const bool selected = key == current;
      ImGui::PushID(key.c_str());
      const float right = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;
      if (ImGui::Selectable(r->resource.c_str(), selected, ImGuiSelectableFlags_AllowItemOverlap)) {
        state.select_kind(r->group, r->resource);
      }
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s (%s%s)%s", r->kind.c_str(),
                          r->group.empty() ? "" : (r->group + "/").c_str(), r->version.c_str(),
                          r->namespaced ? "" : ", cluster-scoped");
      }
      if (r->count) {
        const std::string count = std::to_string(*r->count);
        ImGui::SameLine(right - ImGui::CalcTextSize(count.c_str()).x - 4.0f);
        ImGui::PushStyleColor(ImGuiCol_Text, selected ? palette().accent : palette().text_dim);
        ImGui::TextUnformatted(count.c_str());
        ImGui::PopStyleColor();
      }
      ImGui::PopID();
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
