#include "console/app/script.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "console/model/yaml_text.h"

namespace console::app {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Arity {
  const char* name;
  size_t min;
  size_t max;
};

constexpr size_t kMany = 64;
constexpr Arity kCommands[] = {
    {"timeout", 1, 1},      {"select-kind", 1, 1}, {"namespace", 1, 1},
    {"filter", 0, kMany},   {"sort", 1, 2},        {"wait-rows", 1, 1},
    {"wait-event", 3, 3},   {"wait-field", 3, 3},  {"open", 1, 1},
    {"edit", 0, 0},         {"edit-set", 2, 2},    {"edit-text", 1, 1},
    {"edit-load", 1, 1},    {"force", 1, 1},       {"apply", 0, 0},
    {"expect-apply", 1, 1}, {"delete", 0, 0},      {"confirm", 0, 0},
    {"cancel", 0, 0},       {"events", 1, 1},      {"event-types", 1, kMany},
    {"help", 1, 1},         {"theme", 1, 1},       {"frames", 1, 1},
    {"screenshot", 1, 1},   {"dump-state", 0, 1},  {"quit", 0, 0},
    {"favourite", 2, 2},    {"pane", 2, 2},        {"select-event", 3, 3},
    {"new", 0, 0},          {"duplicate", 0, 0},   {"create", 0, 0},
    {"replace", 0, 0},      {"wait-kind", 1, 1},   {"wait-no-kind", 1, 1},
    {"scroll", 2, 2},       {"event-kind", 1, 1},  {"event-namespace", 1, 1},
    {"wait-access", 0, 0},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Appends the line's tokens to `out`; the error, or nullopt when every quote closes.
std::optional<std::string> tokenize(std::string_view line, std::vector<std::string>& out) {
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t') {
      ++i;
      continue;
    }
    std::string token;
    if (line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        const char c = line[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && i < line.size()) {
          const char e = line[i++];
          token += e == 'n' ? '\n' : (e == 't' ? '\t' : e);
        } else {
          token += c;
        }
      }
      if (!closed) {
        return "unclosed quote";
      }
    } else {
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
        token += line[i++];
      }
    }
    out.push_back(std::move(token));
  }
  return std::nullopt;
}

// "ns/name" or "name" (cluster-scoped).
std::pair<std::string, std::string> split_ref(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) {
    return {"", text};
  }
  return {text.substr(0, slash), text.substr(slash + 1)};
}

bool on_off(const std::string& word, bool& out) {
  if (word == "on" || word == "true" || word == "yes") {
    out = true;
    return true;
  }
  if (word == "off" || word == "false" || word == "no") {
    out = false;
    return true;
  }
  return false;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A field of an object by dotted path, as text (strings bare, other values as JSON); nullopt
// when absent.
std::optional<std::string> field_text(const json& object, const std::string& dotted) {
  const json* at = &object;
  size_t start = 0;
  while (start <= dotted.size()) {
    const size_t dot = dotted.find('.', start);
    const std::string step = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!at->is_object() || !at->contains(step)) {
      return std::nullopt;
    }
    at = &(*at)[step];
    if (dot == std::string::npos) {
      break;
    }
    start = dot + 1;
  }
  return at->is_string() ? at->get<std::string>() : at->dump();
}

std::string describe_action(const std::optional<ActionResult>& result) {
  if (!result) {
    return "no apply, create, replace or delete has been answered";
  }
  if (result->ok) {
    return result->action + " succeeded";
  }
  const ApiError& e = *result->error;
  return result->action + " failed: " + (e.reason.empty() ? "" : e.reason + ": ") + e.message;
}

}  // namespace

common::Result<std::vector<ScriptCommand>> parse_script(std::string_view text) {
  std::vector<ScriptCommand> commands;
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') {
      if (end == text.size()) {
        break;
      }
      continue;
    }
    ScriptCommand command;
    command.line = line_number;
    command.text = std::string(line);
    const size_t space = line.find_first_of(" \t");
    command.name = std::string(line.substr(0, space));
    const std::string_view rest = space == std::string_view::npos ? "" : trim(line.substr(space));
    const Arity* arity = nullptr;
    for (const Arity& a : kCommands) {
      if (command.name == a.name) {
        arity = &a;
      }
    }
    if (arity == nullptr) {
      return "line " + std::to_string(line_number) + ": unknown command \"" + command.name + "\"";
    }
    if (command.name == "filter") {
      // The rest of the line as typed, so that "app in (web, db)" needs no quotes.
      std::string raw(rest);
      if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
        raw = raw.substr(1, raw.size() - 2);
      }
      if (!raw.empty()) {
        command.args.push_back(raw);
      }
    } else {
      if (auto token_error = tokenize(rest, command.args)) {
        return "line " + std::to_string(line_number) + ": " + *token_error;
      }
    }
    if (command.args.size() < arity->min || command.args.size() > arity->max) {
      return "line " + std::to_string(line_number) + ": " + command.name + " takes " +
             (arity->min == arity->max ? std::to_string(arity->min)
                                       : std::to_string(arity->min) + " to " +
                                             (arity->max == kMany ? std::string("any number of")
                                                                  : std::to_string(arity->max))) +
             " argument" + (arity->max == 1 ? "" : "s") + ", not " +
             std::to_string(command.args.size());
    }
    commands.push_back(std::move(command));
    if (end == text.size()) {
      break;
    }
  }
  return commands;
}

ScriptRunner::ScriptRunner(std::vector<ScriptCommand> commands, ScriptOptions options)
    : commands_(std::move(commands)),
      options_(std::move(options)),
      timeout_ms_(options_.default_timeout_ms) {}

size_t ScriptRunner::current_line() const {
  return index_ < commands_.size() ? commands_[index_].line : 0;
}

ScriptStep ScriptRunner::step(ConsoleState& state, int64_t now_ms) {
  if (index_ >= commands_.size()) {
    return {ScriptStep::Kind::Done, {}, {}};
  }
  const ScriptCommand& command = commands_[index_];
  const bool first = !started_;
  if (first) {
    started_ = true;
    started_ms_ = now_ms;
  }
  std::string detail;
  const Outcome outcome = run(command, state, now_ms, first, detail);
  const std::string where =
      "script line " + std::to_string(command.line) + " (" + command.text + "): ";
  switch (outcome) {
    case Outcome::Pending:
      if (now_ms - started_ms_ > timeout_ms_) {
        return {ScriptStep::Kind::Failed,
                {},
                where + "timed out after " + std::to_string(timeout_ms_ / 1000) + " s" +
                    (detail.empty() ? "" : ": " + detail)};
      }
      return {ScriptStep::Kind::Continue, {}, {}};
    case Outcome::Failed:
      return {ScriptStep::Kind::Failed, {}, where + detail};
    case Outcome::Quit:
      index_ = commands_.size();
      return {ScriptStep::Kind::Done, {}, {}};
    case Outcome::Screenshot:
      ++index_;
      started_ = false;
      return {ScriptStep::Kind::Screenshot, detail, {}};
    case Outcome::Next:
      ++index_;
      started_ = false;
      return {ScriptStep::Kind::Continue, {}, {}};
  }
  return {ScriptStep::Kind::Failed, {}, where + "internal error"};
}

std::optional<std::string> ScriptRunner::write_state(const ConsoleState& state,
                                                     const std::string& path) const {
  // Written aside and renamed, so that a test polling for the file never reads half of it.
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    if (!out) {
      return "cannot write " + temp;
    }
    out << state.dump().dump(2) << "\n";
    if (!out) {
      return "cannot write " + temp;
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    return "cannot rename " + temp + " to " + path + ": " + ec.message();
  }
  return std::nullopt;
}

ScriptRunner::Outcome ScriptRunner::run(const ScriptCommand& command, ConsoleState& state,
                                        int64_t now_ms, bool first, std::string& detail) {
  const std::string& name = command.name;
  const auto& args = command.args;
  auto failed = [&](std::string message) {
    detail = std::move(message);
    return Outcome::Failed;
  };
  auto pending = [&](std::string message) {
    detail = std::move(message);
    return Outcome::Pending;
  };

  if (name == "timeout") {
    int seconds = 0;
    const auto [p, ec] = std::from_chars(args[0].data(), args[0].data() + args[0].size(), seconds);
    if (ec != std::errc() || p != args[0].data() + args[0].size() || seconds <= 0) {
      return failed("not a number of seconds: " + args[0]);
    }
    timeout_ms_ = int64_t{seconds} * 1000;
    return Outcome::Next;
  }
  if (name == "select-kind") {
    if (!state.discovered()) {
      return pending(state.discovery_error().empty()
                         ? "discovery has not arrived"
                         : "discovery failed: " + state.discovery_error());
    }
    const model::ApiResource* r = state.find_kind(args[0]);
    if (r == nullptr) {
      return failed("discovery lists no kind named \"" + args[0] + "\"");
    }
    if (state.current_key() != r->key() && !state.select_kind(r->group, r->resource)) {
      return failed("cannot select " + r->key());
    }
    const OpenKind* kind = state.current();
    // A refusal in the scope shown (after a cluster-wide one moved the stream to the selected
    // namespace) is an answer too: the table shows it.
    const bool refused =
        kind != nullptr && kind->refused != 0 &&
        kind->scope == (kind->table.resource().namespaced ? state.namespaces().selected() : "");
    if (kind == nullptr || (!kind->table.listed() && !refused)) {
      return pending(kind != nullptr && !kind->error.empty() ? kind->error
                                                             : "the first LIST has not arrived");
    }
    return Outcome::Next;
  }
  if (name == "wait-access") {
    if (!state.user()) {
      return pending(state.whoami_error().empty() ? "the SelfSubjectReview has not answered"
                                                  : state.whoami_error());
    }
    for (const std::string& ns : {state.rules_namespace(), std::string(model::kClusterScope)}) {
      if (state.rules(ns) == nullptr) {
        const bool cluster = ns == model::kClusterScope;
        return pending("the rules of " + (cluster ? "the cluster scope" : "namespace " + ns) +
                       " have not arrived");
      }
    }
    return Outcome::Next;
  }
  if (name == "namespace") {
    const std::string wanted = args[0] == "all" ? "" : args[0];
    if (!state.select_namespace(wanted)) {
      return pending("namespace " + wanted + " is not listed");
    }
    return Outcome::Next;
  }
  if (name == "filter") {
    state.set_filter(args.empty() ? "" : args[0]);
    return Outcome::Next;
  }
  if (name == "sort") {
    OpenKind* kind = state.current();
    if (kind == nullptr) {
      return failed("no kind is shown");
    }
    const auto& columns = kind->table.view().columns();
    const auto it = std::find_if(columns.begin(), columns.end(),
                                 [&](const auto& c) { return lower(c.name) == lower(args[0]); });
    if (it == columns.end()) {
      return failed("the table has no column \"" + args[0] + "\"");
    }
    const bool descending = args.size() > 1 && args[1] == "desc";
    if (args.size() > 1 && args[1] != "desc" && args[1] != "asc") {
      return failed("sort order is asc or desc, not " + args[1]);
    }
    kind->table.view().sort_by(
        static_cast<size_t>(it - columns.begin()),
        descending ? model::SortDirection::Descending : model::SortDirection::Ascending);
    return Outcome::Next;
  }
  if (name == "wait-kind" || name == "wait-no-kind") {
    const bool wanted = name == "wait-kind";
    if (!state.discovered()) {
      return pending("discovery has not arrived");
    }
    const bool listed = state.find_kind(args[0]) != nullptr;
    if (listed == wanted) {
      return Outcome::Next;
    }
    return pending(std::string("discovery ") + (listed ? "still lists" : "lists no") +
                   " kind named \"" + args[0] + "\"");
  }
  if (name == "wait-rows") {
    std::string_view text = args[0];
    int op = 0;  // 0 ==, 1 >=, -1 <=
    if (text.starts_with(">=")) {
      op = 1;
      text.remove_prefix(2);
    } else if (text.starts_with("<=")) {
      op = -1;
      text.remove_prefix(2);
    }
    size_t wanted = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), wanted);
    if (ec != std::errc() || p != text.data() + text.size()) {
      return failed("not a row count: " + args[0]);
    }
    const OpenKind* kind = state.current();
    if (kind == nullptr) {
      return failed("no kind is shown");
    }
    const size_t rows = kind->table.view().visible_rows().size();
    const bool ok = op == 0 ? rows == wanted : (op > 0 ? rows >= wanted : rows <= wanted);
    return ok ? Outcome::Next : pending("the table shows " + std::to_string(rows) + " rows");
  }
  if (name == "wait-event") {
    const std::string type = upper(args[0]);
    const model::ApiResource* r = state.find_kind(args[1]);
    const std::string kind_name = r != nullptr ? r->kind : args[1];
    const auto [ns, object_name] = split_ref(args[2]);
    const model::EventLog& log = state.events();
    for (size_t i = 0; i < log.size(); ++i) {
      const model::LoggedEvent& e = log.at(i);
      if (e.type == type && lower(e.kind) == lower(kind_name) && e.namespace_ == ns &&
          e.name == object_name) {
        return Outcome::Next;
      }
    }
    return pending("no such event among " + std::to_string(log.size()) + " logged");
  }
  if (name == "select-event") {
    // The latest such event: its version and the diff against the one before it.
    const std::string type = upper(args[0]);
    const model::ApiResource* r = state.find_kind(args[1]);
    const std::string kind_name = r != nullptr ? r->kind : args[1];
    const auto [ns, object_name] = split_ref(args[2]);
    const model::EventLog& log = state.events();
    for (size_t i = log.size(); i-- > 0;) {
      const model::LoggedEvent& e = log.at(i);
      if (e.type == type && lower(e.kind) == lower(kind_name) && e.namespace_ == ns &&
          e.name == object_name) {
        state.select_event(i);
        return Outcome::Next;
      }
    }
    return pending("no such event among " + std::to_string(log.size()) + " logged");
  }
  if (name == "wait-field") {
    const OpenKind* kind = state.current();
    if (kind == nullptr) {
      return failed("no kind is shown");
    }
    const auto [ns, object_name] = split_ref(args[0]);
    const model::CachedObject* object = kind->table.cache().find(ns, object_name);
    if (object == nullptr) {
      return pending(args[0] + " is not in the table");
    }
    const auto value = field_text(object->object(), args[1]);
    if (value != args[2]) {
      return pending(args[1] + " is " + (value ? "\"" + *value + "\"" : std::string("absent")));
    }
    return Outcome::Next;
  }
  if (name == "open") {
    const auto [ns, object_name] = split_ref(args[0]);
    if (!state.select_object(ns, object_name)) {
      return pending(args[0] + " is not in the table");
    }
    return Outcome::Next;
  }
  if (name == "edit") {
    return state.begin_edit() ? Outcome::Next : failed("no object is open to edit");
  }
  if (name == "edit-set") {
    if (!state.editing()) {
      return failed("the editor is not open (edit first)");
    }
    auto parsed = model::parse_yaml(state.editor_text());
    if (!parsed) {
      return failed("the editor's YAML does not parse: " + parsed.error());
    }
    if (!set_path(*parsed, args[0], args[1])) {
      return failed("cannot set " + args[0] + ": a step on the way is not a map");
    }
    state.editor_text() = model::to_yaml(*parsed, model::ManagedFields::Show);
    return Outcome::Next;
  }
  if (name == "edit-text" || name == "edit-load") {
    if (!state.editing()) {
      return failed("the editor is not open (edit first)");
    }
    if (name == "edit-text") {
      state.editor_text() = args[0];
      return Outcome::Next;
    }
    fs::path file = args[0];
    if (file.is_relative()) {
      file = fs::path(options_.script_dir) / file;
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      return failed("cannot read " + file.string());
    }
    state.editor_text().assign(std::istreambuf_iterator<char>(in), {});
    return Outcome::Next;
  }
  if (name == "force") {
    bool on = false;
    if (!on_off(args[0], on)) {
      return failed("force takes on or off");
    }
    state.force_apply() = on;
    return Outcome::Next;
  }
  if (name == "new" || name == "duplicate") {
    if (state.editing()) {
      return failed("the editor is open (cancel it first)");
    }
    const bool opened = name == "new" ? state.begin_create() : state.begin_duplicate();
    if (!opened) {
      return failed(name == "new" ? "no kind is shown, or it cannot be created"
                                  : "no object is open to duplicate");
    }
    return Outcome::Next;
  }
  if (name == "apply" || name == "confirm" || name == "create" || name == "replace") {
    if (first) {
      answered_before_ = state.actions_answered();
      const bool sent = name == "apply"     ? state.apply()
                        : name == "create"  ? state.create()
                        : name == "replace" ? state.replace()
                                            : state.confirm_delete();
      if (!sent && state.actions_answered() == answered_before_) {
        return failed(name == "confirm" ? std::string("no delete awaits confirmation")
                      : name == "create"
                          ? std::string("nothing to create (new or duplicate first; or one is in "
                                        "flight)")
                          : "nothing to " + name + " (edit first; or one is in flight)");
      }
    }
    return state.actions_answered() == answered_before_ ? pending("no answer yet") : Outcome::Next;
  }
  if (name == "expect-apply") {
    const auto& result = state.action_result();
    const bool want_ok = args[0] == "ok";
    const bool ok =
        result &&
        (want_ok ? result->ok : !result->ok && result->error && result->error->reason == args[0]);
    return ok ? Outcome::Next : failed("expected " + args[0] + "; " + describe_action(result));
  }
  if (name == "delete") {
    return state.request_delete() ? Outcome::Next : failed("no object is open to delete");
  }
  if (name == "cancel") {
    if (state.delete_pending_confirmation()) {
      state.cancel_delete();
    } else if (state.editing()) {
      state.cancel_edit();
    } else if (state.event_history()) {
      state.close_event();
    }
    return Outcome::Next;
  }
  if (name == "events") {
    if (args[0] != "pause" && args[0] != "resume") {
      return failed("events takes pause or resume");
    }
    state.events().set_paused(args[0] == "pause");
    return Outcome::Next;
  }
  if (name == "event-types") {
    auto& hidden = state.view_options().events.hidden_types;
    hidden = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};
    for (const auto& type : args) {
      if (upper(type) == "ALL") {
        hidden.clear();
      }
      hidden.erase(upper(type));
    }
    return Outcome::Next;
  }
  if (name == "event-kind" || name == "event-namespace") {
    const std::string value = args[0] == "all" ? "" : args[0];
    auto& filter = state.view_options().events;
    (name == "event-kind" ? filter.kind : filter.namespace_) = value;
    return Outcome::Next;
  }
  if (name == "help") {
    bool on = false;
    if (!on_off(args[0], on)) {
      return failed("help takes on or off");
    }
    state.view_options().show_help = on;
    return Outcome::Next;
  }
  if (name == "favourite") {
    bool on = false;
    if (!on_off(args[1], on)) {
      return failed("favourite takes a kind and on or off");
    }
    if (!state.discovered()) {
      return pending("discovery has not arrived");
    }
    const model::ApiResource* r = state.find_kind(args[0]);
    if (r == nullptr) {
      return failed("discovery lists no kind named \"" + args[0] + "\"");
    }
    state.set_favourite(r->key(), on);
    return Outcome::Next;
  }
  if (name == "pane") {
    int pixels = -1;
    const auto [p, ec] = std::from_chars(args[1].data(), args[1].data() + args[1].size(), pixels);
    if (ec != std::errc() || p != args[1].data() + args[1].size() || pixels < 0) {
      return failed("not a size in pixels: " + args[1]);
    }
    PaneSizes& panes = state.view_options().panes;
    float* size = args[0] == "tree"     ? &panes.tree_width
                  : args[0] == "object" ? &panes.object_width
                  : args[0] == "watch"  ? &panes.watch_height
                                        : nullptr;
    if (size == nullptr) {
      return failed("pane takes tree, object or watch");
    }
    *size = static_cast<float>(pixels);
    return Outcome::Next;
  }
  if (name == "theme") {
    if (args[0] != "dark" && args[0] != "light") {
      return failed("theme takes dark or light");
    }
    state.view_options().light_theme = args[0] == "light";
    return Outcome::Next;
  }
  if (name == "frames" || name == "screenshot") {
    int frames = options_.settle_frames;
    if (name == "frames") {
      const auto [p, ec] = std::from_chars(args[0].data(), args[0].data() + args[0].size(), frames);
      if (ec != std::errc() || frames < 0) {
        return failed("not a frame count: " + args[0]);
      }
    } else if (options_.screenshot_dir.empty()) {
      return failed("screenshot needs --screenshot-dir");
    }
    if (first) {
      frames_left_ = frames + 1;
    }
    if (--frames_left_ > 0) {
      started_ms_ = now_ms;  // frames never time out
      return Outcome::Pending;
    }
    if (name == "frames") {
      return Outcome::Next;
    }
    detail = (fs::path(options_.screenshot_dir) / (args[0] + ".png")).string();
    return Outcome::Screenshot;
  }
  if (name == "scroll") {
    int rows = 0;
    int frames = 0;
    const auto [p1, e1] = std::from_chars(args[0].data(), args[0].data() + args[0].size(), rows);
    const auto [p2, e2] = std::from_chars(args[1].data(), args[1].data() + args[1].size(), frames);
    if (e1 != std::errc() || p1 != args[0].data() + args[0].size()) {
      return failed("not a row count: " + args[0]);
    }
    if (e2 != std::errc() || p2 != args[1].data() + args[1].size() || frames <= 0) {
      return failed("not a frame count: " + args[1]);
    }
    if (state.current() == nullptr) {
      return failed("no kind is shown");
    }
    if (first) {
      frames_left_ = frames;
    }
    state.move_selection(rows);
    if (--frames_left_ > 0) {
      started_ms_ = now_ms;  // frames never time out
      return Outcome::Pending;
    }
    return Outcome::Next;
  }
  if (name == "dump-state") {
    const std::string path = args.empty() ? options_.state_dump_path : args[0];
    if (path.empty()) {
      return failed("dump-state needs a file or --state-dump");
    }
    const auto error = write_state(state, path);
    return error ? failed(*error) : Outcome::Next;
  }
  if (name == "quit") {
    return Outcome::Quit;
  }
  return failed("unknown command");
}

}  // namespace console::app
