// ConsoleState's navigation: what the user picks and the pane shows. The kind (by name too),
// favourites and settings, the namespace, the filter, the selected row and its YAML, and an
// event of the watch window opened with its version and diff.
#include "console/app/console_state.h"

#include <algorithm>
#include <cctype>

#include "console/model/yaml_text.h"
#include "model/json_fields.h"

namespace console::app {

namespace {

using json = nlohmann::json;

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

bool ConsoleState::select_kind(std::string_view group, std::string_view resource) {
  const model::ApiResource* found = tree_.find(group, resource);
  if (found == nullptr) {
    return false;
  }
  tree_.select(group, resource);
  event_history_.reset();
  open_kind(*found);
  current_key_ = found->key();
  if (OpenKind* kind = current()) {
    kind->last_shown_ms = now_ms_;
  }
  rebuild_current(true);
  return true;
}

const model::ApiResource* ConsoleState::find_kind(std::string_view name) const {
  const std::string wanted = lowercase(name);
  const auto slash = wanted.find('/');
  for (const auto& group : tree_.groups()) {
    for (const auto& r : group.resources) {
      if (slash != std::string::npos) {
        if (lowercase(r.key()) == wanted || (group.name.empty() && wanted == "v1/" + r.resource)) {
          return &r;
        }
        continue;
      }
      if (!r.group.empty() && wanted == r.resource + "." + r.group) {
        return &r;
      }
      if (wanted == r.resource || wanted == r.singular || wanted == lowercase(r.kind) ||
          std::find(r.short_names.begin(), r.short_names.end(), wanted) != r.short_names.end()) {
        return &r;
      }
    }
  }
  return nullptr;
}

void ConsoleState::set_favourite(std::string_view key, bool favourite) {
  std::set<std::string, std::less<>> keys = tree_.favourite_keys();
  if (favourite) {
    keys.emplace(key);
  } else if (const auto it = keys.find(key); it != keys.end()) {
    keys.erase(it);
  }
  tree_.set_favourites(std::move(keys));
}

bool ConsoleState::is_favourite(std::string_view key) const {
  return tree_.favourite_keys().count(key) != 0;
}

void ConsoleState::apply_settings(const ConsoleSettings& settings) {
  view_options_.light_theme = settings.light_theme;
  view_options_.panes = settings.panes;
  tree_.set_favourites(settings.favourites);
}

void ConsoleState::fill_settings(ConsoleSettings& settings) const {
  settings.light_theme = view_options_.light_theme;
  settings.panes = view_options_.panes;
  settings.favourites = tree_.favourite_keys();
}

bool ConsoleState::select_namespace(std::string_view name) {
  const std::string before = namespaces_.selected();
  if (!namespaces_.select(name)) {
    return false;
  }
  if (namespaces_.selected() != before) {
    on_namespace_changed();
  } else {
    rebuild_current(true);
  }
  return true;
}

void ConsoleState::set_filter(std::string_view text) {
  if (OpenKind* kind = current()) {
    kind->table.view().set_filter(text);
  }
}

bool ConsoleState::select_object(std::string_view namespace_, std::string_view name) {
  OpenKind* kind = current();
  if (kind == nullptr || !kind->table.view().select(namespace_, name)) {
    return false;
  }
  event_history_.reset();  // the pane shows the object picked
  return true;
}

void ConsoleState::clear_selection() {
  if (OpenKind* kind = current()) {
    kind->table.view().clear_selection();
  }
}

void ConsoleState::move_selection(int delta) {
  OpenKind* kind = current();
  event_history_.reset();
  if (kind == nullptr) {
    return;
  }
  model::TableView& view = kind->table.view();
  const auto& visible = view.visible_rows();
  if (visible.empty()) {
    return;
  }
  int64_t position = view.selected_position() ? static_cast<int64_t>(*view.selected_position())
                                              : (delta > 0 ? -1 : 0);
  position = std::clamp<int64_t>(position + delta, 0, static_cast<int64_t>(visible.size()) - 1);
  const model::TableRow& row = view.row(visible[static_cast<size_t>(position)]);
  view.select(row.namespace_, row.name);
}

std::optional<ObjectRef> ConsoleState::selected_ref() const {
  const OpenKind* kind = current();
  if (kind == nullptr) {
    return std::nullopt;
  }
  const model::TableRow* row = kind->table.view().selected();
  if (row == nullptr) {
    return std::nullopt;
  }
  return ObjectRef{current_key_, row->namespace_, row->name};
}

const model::CachedObject* ConsoleState::selected_object() const {
  const OpenKind* kind = current();
  const model::TableRow* row = kind != nullptr ? kind->table.view().selected() : nullptr;
  return row != nullptr ? kind->table.cache().find(row->namespace_, row->name) : nullptr;
}

const std::string& ConsoleState::selected_yaml() {
  const model::CachedObject* object = selected_object();
  if (object == nullptr) {
    yaml_ref_.reset();
    yaml_text_.clear();
    return yaml_text_;
  }
  const std::optional<ObjectRef> ref = selected_ref();
  if (yaml_ref_ != ref || yaml_version_ != object->resource_version()) {
    yaml_ref_ = ref;
    yaml_version_ = object->resource_version();
    yaml_text_ = model::to_yaml(object->object(), model::ManagedFields::Fold);
  }
  return yaml_text_;
}

bool ConsoleState::select_event(size_t index) {
  if (index >= events_.size()) {
    return false;
  }
  EventHistory h;
  h.event = events_.at(index);
  const model::LoggedEvent& e = h.event;
  const auto show = [&h](const json& object, const json* previous, std::string previous_rv) {
    h.found = true;
    h.yaml = model::to_yaml(object, model::ManagedFields::Fold);
    if (previous != nullptr) {
      h.previous_resource_version = std::move(previous_rv);
      h.diff = model::diff_objects(*previous, object);
    }
  };
  const OpenKind* kind = e.kind_key.empty() ? nullptr : find_open(e.kind_key);
  const model::CachedObject* cached =
      kind != nullptr ? kind->table.cache().find(e.namespace_, e.name) : nullptr;
  if (e.type != "ADDED" && e.type != "MODIFIED" && e.type != "DELETED") {
    h.note = "A " + e.type + " event carries no version of an object.";
  } else if (e.deleted_object) {
    const json* previous = e.previous_object.get();
    show(*e.deleted_object, previous,
         previous != nullptr
             ? model::string_field(model::field(*previous, "metadata"), "resourceVersion")
             : "");
    h.note = previous != nullptr ? "" : "The console held no earlier version of it.";
  } else if (kind == nullptr) {
    h.note = "Its kind is no longer watched (at most " + std::to_string(kMaxOpenKinds) +
             " kinds are at once); open it again to follow new changes.";
  } else if (cached == nullptr) {
    h.note = "The object is gone, and the console no longer holds its versions.";
  } else {
    const auto& versions = cached->versions;
    const auto it = std::find_if(versions.begin(), versions.end(), [&e](const auto& v) {
      return v.resource_version == e.resource_version;
    });
    if (it == versions.end()) {
      h.note = "This version is no longer held: the console keeps the last " +
               std::to_string(model::ResourceCache::kDefaultHistoryDepth) +
               " versions of each object.";
    } else if (it == versions.begin()) {
      show(it->object, nullptr, "");
      h.note = e.type == "ADDED" ? "The first version: the object was created."
                                 : "The version before it is no longer held.";
    } else {
      const auto& previous = *(it - 1);
      show(it->object, &previous.object, previous.resource_version);
    }
  }
  event_history_ = std::move(h);
  return true;
}

void ConsoleState::close_event() {
  event_history_.reset();
}

}  // namespace console::app
