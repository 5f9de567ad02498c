#include "ui/object_table_window.h"

#include <GLFW/glfw3.h>
#include <imgui_internal.h>  // TableSetColumnSortDirection: the view's sort shown in the header
#include <imgui_stdlib.h>

#include <algorithm>

namespace console::ui {

namespace {

std::string scope_text(const app::ConsoleState& state, const model::ApiResource& r) {
  if (!r.namespaced) {
    return "cluster-scoped";
  }
  return state.namespaces().all_selected() ? "all namespaces"
                                           : "namespace " + state.namespaces().selected();
}

// The stream's state, right-aligned on the current line.
void stream_badge(const app::OpenKind& kind) {
  const Palette& p = palette();
  const char* text = "● stopped";
  ImVec4 color = p.text_dim;
  switch (kind.state) {
    case client::StreamState::Watching:
      text = "● watching";
      color = p.ok;
      break;
    case client::StreamState::Listing:
      text = "● listing…";
      color = p.warning;
      break;
    case client::StreamState::Retrying:
      text = kind.refused == 403   ? "● forbidden"
             : kind.refused == 401 ? "● unauthorized"
                                   : "● retrying";
      color = p.error;
      break;
    case client::StreamState::Stopped:
      break;
  }
  const float width = ImGui::CalcTextSize(text).x;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - width));
  ImGui::TextColored(color, "%s", text);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", kind.error.empty() ? "The table follows the cluster through a watch."
                                               : kind.error.c_str());
  }
}

}  // namespace

void ObjectTableWindow::draw(app::ConsoleState& state, const Frame& frame) {
  app::OpenKind* kind = state.current();
  std::string title = "Objects";
  if (kind != nullptr) {
    title = kind->table.resource().resource + "  ·  " + scope_text(state, kind->table.resource());
  }
  title += "###table";
  if (!begin_pane(title.c_str(), frame)) {
    ImGui::End();
    return;
  }
  if (kind == nullptr) {
    empty_state("No kind selected",
                state.discovered()
                    ? "Pick a kind on the left (configmaps, pods, deployments…) to list its "
                      "objects. The table then follows the cluster live through a watch."
                    : "The kinds appear on the left once discovery has answered.");
    ImGui::End();
    return;
  }
  draw_header(state, *kind);
  const model::TableView& view = kind->table.view();
  const std::string& resource = kind->table.resource().resource;
  if (!kind->table.listed()) {
    if (kind->refused != 0) {
      // The server's refusal as it worded it; the stream asks again now and then, so a role
      // granted meanwhile fills the table.
      empty_state(
          ("You may not list " + resource + " in " + scope_text(state, kind->table.resource()))
              .c_str(),
          kind->error + "\n\n" +
              (kind->table.resource().namespaced && kind->scope.empty()
                   ? "Pick a namespace on the left where you may list them. "
                   : std::string()) +
              "The console asks again now and then.");
    } else if (kind->state == client::StreamState::Retrying) {
      empty_state(("Cannot list " + resource).c_str(),
                  kind->error + "\n\nThe console keeps trying, waiting longer each time.");
    } else {
      empty_state(("Listing " + resource + "…").c_str(), "");
    }
  } else if (kind->refused != 0) {
    // Listed once, refused since (a role taken away): what is shown is no longer followed.
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(palette().error, "%s", kind->error.c_str());
    ImGui::PopTextWrapPos();
    draw_rows(state, *kind);
  } else if (view.row_count() == 0) {
    empty_state(("No " + resource + " in " + scope_text(state, kind->table.resource())).c_str(),
                "New objects appear here as soon as the server reports them.");
  } else if (view.visible_rows().empty()) {
    empty_state("No rows match the filter",
                "\"" + view.filter() + "\" is read as " +
                    (view.filter_mode() == model::FilterMode::Labels ? "a label selector"
                                                                     : "part of a name") +
                    ". Clear it with the box above.");
  } else {
    draw_rows(state, *kind);
  }
  handle_keys(state);
  ImGui::End();
}

void ObjectTableWindow::draw_header(app::ConsoleState& state, app::OpenKind& kind) {
  model::TableView& view = kind.table.view();
  if (!filter_active_ && filter_text_ != view.filter()) {
    filter_text_ = view.filter();
  }
  if (state.view_options().focus_filter) {
    ImGui::SetKeyboardFocusHere();
    state.view_options().focus_filter = false;
  }
  ImGui::SetNextItemWidth(
      std::min(ImGui::GetContentRegionAvail().x * 0.5f, ImGui::GetFontSize() * 26.0f));
  if (ImGui::InputTextWithHint("##filter", "Filter: name, or labels like app=web  (Ctrl+F)",
                               &filter_text_)) {
    state.set_filter(filter_text_);
  }
  filter_active_ = ImGui::IsItemActive();
  ImGui::SameLine();
  if (!kind.table.listed()) {
    stream_badge(kind);  // no rows to count: nothing was listed
    return;
  }
  const size_t shown = view.visible_rows().size();
  std::string counts = std::to_string(shown) + " of " + std::to_string(view.row_count()) + " rows";
  if (view.filter_mode() == model::FilterMode::Labels) {
    counts += "  (label selector)";
  } else if (view.filter_mode() == model::FilterMode::Name) {
    counts += "  (name contains)";
  }
  text_dim(counts);
  ImGui::SameLine();
  stream_badge(kind);
}

void ObjectTableWindow::draw_rows(app::ConsoleState& state, app::OpenKind& kind) {
  model::TableView& view = kind.table.view();
  const auto& columns = view.columns();
  const int column_count = static_cast<int>(std::min<size_t>(columns.size(), 63));
  if (column_count == 0) {
    return;
  }
  const std::string key = kind.table.resource().key();
  ImGui::PushID(key.c_str());
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Sortable | ImGuiTableFlags_SortTristate | ImGuiTableFlags_ScrollY |
      ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable |
      ImGuiTableFlags_Reorderable | ImGuiTableFlags_Hideable | ImGuiTableFlags_BordersOuterH |
      ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("rows", column_count, flags, ImVec2(0, 0))) {
    ImGui::PopID();
    return;
  }
  ImGui::TableSetupScrollFreeze(1, 1);
  for (int c = 0; c < column_count; ++c) {
    const model::TableColumn& column = columns[static_cast<size_t>(c)];
    ImGuiTableColumnFlags column_flags = 0;
    if (column.priority > 0) {
      column_flags |= ImGuiTableColumnFlags_DefaultHide;
    }
    if (column.format == "name") {
      column_flags |= ImGuiTableColumnFlags_WidthStretch;
    }
    ImGui::TableSetupColumn(column.name.c_str(), column_flags);
  }
  ImGui::TableHeadersRow();

  // Clicks on a header sort the view; a sort set elsewhere (a script, another kind's table) is
  // shown in the header instead.
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs()) {
    std::optional<std::pair<size_t, model::SortDirection>> shown;
    if (specs->SpecsCount > 0) {
      shown = {static_cast<size_t>(specs->Specs[0].ColumnIndex),
               specs->Specs[0].SortDirection == ImGuiSortDirection_Descending
                   ? model::SortDirection::Descending
                   : model::SortDirection::Ascending};
    }
    std::optional<std::pair<size_t, model::SortDirection>> wanted;
    if (view.sort_column()) {
      wanted = {*view.sort_column(), view.sort_direction()};
    }
    if (specs->SpecsDirty && synced_key_ == key) {
      if (shown) {
        view.sort_by(shown->first, shown->second);
      } else {
        view.clear_sort();
      }
    } else if (shown != wanted) {
      if (wanted) {
        ImGui::TableSetColumnSortDirection(static_cast<int>(wanted->first),
                                           wanted->second == model::SortDirection::Descending
                                               ? ImGuiSortDirection_Descending
                                               : ImGuiSortDirection_Ascending,
                                           false);
      } else if (shown) {
        ImGui::TableSetColumnSortDirection(static_cast<int>(shown->first), ImGuiSortDirection_None,
                                           false);
      }
    }
    specs->SpecsDirty = false;
    synced_key_ = key;
  }

  const auto& visible = view.visible_rows();
  const model::TableRow* selected = view.selected();
  std::pair<std::string, std::string> selection;
  if (selected != nullptr) {
    selection = {selected->namespace_, selected->name};
  }
  if (selection != last_selection_) {
    scroll_to_selection_ = selected != nullptr;
    last_selection_ = selection;
  }
  const int64_t now = state.now_ms();
  const int64_t window = state.options().highlight_ms;
  const Palette& p = palette();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(visible.size()));
  if (scroll_to_selection_ && view.selected_position()) {
    const int position = static_cast<int>(*view.selected_position());
    clipper.ForceDisplayRangeByIndices(position, position + 1);
  }
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const model::TableRow& row = view.row(visible[static_cast<size_t>(i)]);
      ImGui::TableNextRow();
      if (kind.table.recently_changed(row.namespace_, row.name, now, window)) {
        const model::CachedObject* object = kind.table.cache().find(row.namespace_, row.name);
        const float fade =
            1.0f - static_cast<float>(now - object->changed_at_ms()) / static_cast<float>(window);
        ImVec4 glow = p.changed_row;
        glow.w *= std::clamp(fade, 0.0f, 1.0f);
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, ImGui::ColorConvertFloat4ToU32(glow));
      }
      const bool is_selected = &row == selected;
      for (int c = 0; c < column_count; ++c) {
        ImGui::TableSetColumnIndex(c);
        const model::TableColumn& column = columns[static_cast<size_t>(c)];
        const std::string& cell = row.cells[static_cast<size_t>(c)];
        if (c == 0) {
          ImGui::PushID(i);
          const std::string label = cell + "##row";
          if (ImGui::Selectable(label.c_str(), is_selected,
                                ImGuiSelectableFlags_SpanAllColumns |
                                    ImGuiSelectableFlags_AllowItemOverlap |
                                    ImGuiSelectableFlags_AllowDoubleClick)) {
            state.select_object(row.namespace_, row.name);
            last_selection_ = {row.namespace_, row.name};  // in view already: no scrolling
            if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
              state.begin_edit();
            }
          }
          if (is_selected && scroll_to_selection_) {
            if (!ImGui::IsItemVisible()) {
              ImGui::SetScrollHereY(0.5f);
            }
            scroll_to_selection_ = false;
          }
          ImGui::PopID();
          continue;
        }
        if (column.kind == model::ColumnKind::Time && column.name == "Age") {
          const std::string age = kind.table.age(row.namespace_, row.name, now);
          ImGui::TextUnformatted(age.empty() ? cell.c_str() : age.c_str());
        } else {
          ImGui::TextUnformatted(cell.c_str());
        }
      }
    }
  }
  ImGui::EndTable();
  ImGui::PopID();
}

void ObjectTableWindow::handle_keys(app::ConsoleState& state) {
  if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) ||
      ImGui::GetIO().WantTextInput || state.editing()) {
    return;
  }
  auto pressed = [](ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); };
  int move = 0;
  if (pressed(ImGuiKey_DownArrow)) {
    move = 1;
  } else if (pressed(ImGuiKey_UpArrow)) {
    move = -1;
  } else if (pressed(ImGuiKey_PageDown)) {
    move = 20;
  } else if (pressed(ImGuiKey_PageUp)) {
    move = -20;
  } else if (pressed(ImGuiKey_Home)) {
    move = -1000000;
  } else if (pressed(ImGuiKey_End)) {
    move = 1000000;
  }
  if (move != 0) {
    state.move_selection(move);
    scroll_to_selection_ = true;
  }
  if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) {
    state.begin_edit();
  }
}

}  // namespace console::ui
