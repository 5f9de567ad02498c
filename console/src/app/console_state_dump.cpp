// ConsoleState::dump(): the whole state as JSON, for --state-dump and scripts' dump-state.
#include "app/console_state_dump.h"

namespace console::app {

namespace {

using json = nlohmann::json;

constexpr size_t kDumpedNames = 2000;
constexpr size_t kDumpedEvents = 1000;
constexpr size_t kDumpedDiffLines = 500;

json error_json(const ApiError& error) {
  json causes = json::array();
  for (const auto& c : error.causes) {
    causes.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  return {{"httpStatus", error.http_status},
          {"reason", error.reason},
          {"message", error.message},
          {"causes", std::move(causes)}};
}

}  // namespace
std::string describe(const ObjectRef& ref) {
  return ref.namespace_.empty() ? ref.name : ref.namespace_ + "/" + ref.name;
}

json ConsoleState::dump() const {
  json kinds = json::object();
  for (const auto& [key, kind] : kinds_) {
    const model::TableView& view = kind.table.view();
    json columns = json::array();
    for (const auto& c : view.columns()) {
      columns.push_back(c.name);
    }
    json names = json::array();
    for (size_t i = 0; i < view.visible_rows().size() && i < kDumpedNames; ++i) {
      const model::TableRow& row = view.row(view.visible_rows()[i]);
      names.push_back(row.namespace_.empty() ? row.name : row.namespace_ + "/" + row.name);
    }
    json entry = {{"state", client::to_string(kind.state)},
                  {"error", kind.error},
                  {"objects", kind.table.cache().size()},
                  {"resourceVersion", kind.table.cache().resource_version()},
                  {"lists", kind.lists},
                  {"events", kind.events},
                  {"columns", std::move(columns)},
                  {"rows", view.row_count()},
                  {"visibleRows", view.visible_rows().size()},
                  {"visible", std::move(names)},
                  {"filter", view.filter()},
                  {"viewNamespace", kind.table.view_namespace()},
                  {"scope", kind.scope},
                  {"refused", kind.refused}};
    if (view.sort_column() && *view.sort_column() < view.columns().size()) {
      entry["sort"] = {{"column", view.columns()[*view.sort_column()].name},
                       {"descending", view.sort_direction() == model::SortDirection::Descending}};
    }
    kinds[key] = std::move(entry);
  }
  json events = json::array();
  const model::EventFilter& filter = view_options_.events;
  size_t shown = 0;
  for (size_t i = 0; i < events_.visible_size(); ++i) {
    shown += filter.matches(events_.at(i)) ? 1 : 0;
  }
  const size_t first = events_.size() > kDumpedEvents ? events_.size() - kDumpedEvents : 0;
  for (size_t i = first; i < events_.size(); ++i) {
    const model::LoggedEvent& e = events_.at(i);
    events.push_back({{"type", e.type},
                      {"kind", e.kind},
                      {"namespace", e.namespace_},
                      {"name", e.name},
                      {"resourceVersion", e.resource_version}});
  }
  json out = {{"server", access().server},
              {"context", access().context},
              {"serverVersion", server_version_},
              {"connection", to_string(connection())},
              {"discovered", discovered_},
              {"discoveryError", discovery_error_},
              {"namespace", namespaces_.selected()},
              {"namespaces", namespaces_.names()},
              {"kind", current_key_},
              {"kinds", std::move(kinds)},
              {"events",
               {{"total", events_.size()},
                {"dropped", events_.dropped()},
                {"paused", events_.paused()},
                {"filter", {{"kind", filter.kind}, {"namespace", filter.namespace_}}},
                {"shown", shown},
                {"list", std::move(events)}}},
              {"requestsInFlight", session_.requests_in_flight()},
              {"droppedMessages", session_.dropped_messages()},
              {"lastError", last_error_}};
  size_t groups = 0;
  size_t resources = 0;
  for (const auto& g : tree_.groups()) {
    ++groups;
    resources += g.resources.size();
  }
  out["discovery"] = {{"groups", groups}, {"resources", resources}};
  if (const auto ref = selected_ref()) {
    out["selected"] = {
        {"kind", ref->kind_key}, {"namespace", ref->namespace_}, {"name", ref->name}};
  } else {
    out["selected"] = nullptr;
  }
  json favourites = json::array();
  for (const auto& key : tree_.favourite_keys()) {
    favourites.push_back(key);
  }
  json pinned = json::array();
  for (const model::ApiResource* r : tree_.favourites()) {
    pinned.push_back(r->key());
  }
  out["favourites"] = {{"keys", std::move(favourites)}, {"pinned", std::move(pinned)}};
  out["theme"] = view_options_.light_theme ? "light" : "dark";
  out["access"] = access_json();

  out["editor"] = {{"editing", editing()},
                   {"mode", !editing()  ? ""
                            : creating_ ? "create"
                                        : "edit"},
                   {"force", force_},
                   {"text", editor_text_}};
  if (action_result_) {
    out["lastAction"] = {{"action", action_result_->action},
                         {"target", describe(action_result_->target)},
                         {"ok", action_result_->ok},
                         {"resourceVersion", action_result_->resource_version}};
    if (action_result_->error) {
      out["lastAction"]["error"] = error_json(*action_result_->error);
    }
  } else {
    out["lastAction"] = nullptr;
  }
  if (event_history_) {
    const EventHistory& h = *event_history_;
    json lines = json::array();
    for (const auto& hunk : h.diff.hunks) {
      for (const auto& line : hunk.lines) {
        if (lines.size() >= kDumpedDiffLines) {
          break;
        }
        const char* mark = line.tag == model::LineTag::Added     ? "+"
                           : line.tag == model::LineTag::Removed ? "-"
                                                                 : " ";
        lines.push_back(mark + line.text);
      }
    }
    out["history"] = {{"event",
                       {{"type", h.event.type},
                        {"kind", h.event.kind},
                        {"namespace", h.event.namespace_},
                        {"name", h.event.name},
                        {"resourceVersion", h.event.resource_version}}},
                      {"found", h.found},
                      {"yaml", h.yaml},
                      {"previousResourceVersion", h.previous_resource_version},
                      {"added", h.diff.added},
                      {"removed", h.diff.removed},
                      {"diff", std::move(lines)},
                      {"note", h.note}};
  } else {
    out["history"] = nullptr;
  }
  return out;
}

}  // namespace console::app
