#include "console/app/console_state.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "console/model/object_template.h"
#include "console/model/yaml_text.h"
#include "model/json_fields.h"

namespace console::app {

namespace {

using json = nlohmann::json;

constexpr const char* kDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
constexpr const char* kNamespacesKey = "core/namespaces";
constexpr const char* kCrdsKey = "apiextensions.k8s.io/customresourcedefinitions";
constexpr size_t kDumpedNames = 2000;
constexpr size_t kDumpedEvents = 1000;
// Rows a frame updates in place for watch events (tens of microseconds each at 50,000 rows); a
// burst beyond it spreads over the next frames.
constexpr size_t kChangedRowsPerFrame = 500;
constexpr size_t kDumpedDiffLines = 500;

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

model::ApiResource namespaces_resource() {
  model::ApiResource r;
  r.version = "v1";
  r.resource = "namespaces";
  r.kind = "Namespace";
  r.singular = "namespace";
  r.namespaced = false;
  r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  r.short_names = {"ns"};
  return r;
}

// The CustomResourceDefinitions, watched so that kinds appear in the tree once their CRD is
// established and leave it when the CRD goes.
model::ApiResource crds_resource() {
  model::ApiResource r;
  r.group = "apiextensions.k8s.io";
  r.version = "v1";
  r.resource = "customresourcedefinitions";
  r.kind = "CustomResourceDefinition";
  r.singular = "customresourcedefinition";
  r.namespaced = false;
  r.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  r.short_names = {"crd", "crds"};
  return r;
}

// Kinds the console itself follows from start to end: never closed to make room for others.
bool always_open(const std::string& key) {
  return key == kNamespacesKey || key == kCrdsKey;
}

std::string describe(const ObjectRef& ref) {
  return ref.namespace_.empty() ? ref.name : ref.namespace_ + "/" + ref.name;
}

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

ApiError parse_status(int http_status, std::string_view body) {
  ApiError error;
  error.http_status = http_status;
  const json status = json::parse(body, nullptr, false);
  if (status.is_object() && model::string_field(status, "kind") == "Status") {
    error.reason = model::string_field(status, "reason");
    error.message = model::string_field(status, "message");
    const json& causes = model::field(model::field(status, "details"), "causes");
    if (causes.is_array()) {
      for (const json& c : causes) {
        error.causes.push_back(ApiError::Cause{
            model::string_field(c, "reason"), model::string_field(c, "message"), model::string_field(c, "field")});
      }
    }
    return error;
  }
  error.message = "HTTP " + std::to_string(http_status);
  if (!body.empty()) {
    error.message += ": " + std::string(body.substr(0, 300));
  }
  return error;
}

json apply_form(const json& object) {
  json form = object;
  if (!form.is_object()) {
    return form;
  }
  form.erase("status");
  auto metadata = form.find("metadata");
  if (metadata != form.end() && metadata->is_object()) {
    for (const char* key :
         {"managedFields", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink",
          "deletionTimestamp", "deletionGracePeriodSeconds"}) {
      metadata->erase(key);
    }
  }
  return form;
}

bool set_path(json& object, std::string_view dotted, json value) {
  json* at = &object;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string step(
        dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start));
    if (step.empty()) {
      return false;
    }
    if (at->is_null()) {
      *at = json::object();
    }
    if (!at->is_object()) {
      return false;
    }
    if (dot == std::string_view::npos) {
      (*at)[step] = std::move(value);
      return true;
    }
    at = &(*at)[step];
    start = dot + 1;
  }
}

std::string collection_path(const model::ApiResource& resource) {
  const std::string base = resource.group.empty()
                               ? "/api/" + resource.version
                               : "/apis/" + resource.group + "/" + resource.version;
  return base + "/" + resource.resource;
}

std::string object_path(const model::ApiResource& resource, std::string_view namespace_,
                        std::string_view name) {
  std::string base = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced) {
    base += "/namespaces/" + std::string(namespace_);
  }
  return base + "/" + resource.resource + "/" + std::string(name);
}

std::string create_path(const model::ApiResource& resource, std::string_view namespace_) {
  std::string base = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced) {
    base += "/namespaces/" + std::string(namespace_);
  }
  return base + "/" + resource.resource;
}

const char* to_string(ConnectionState state) {
  switch (state) {
    case ConnectionState::Connecting:
      return "connecting";
    case ConnectionState::Connected:
      return "connected";
    case ConnectionState::Degraded:
      return "degraded";
    case ConnectionState::Disconnected:
      return "disconnected";
  }
  return "unknown";
}

ConsoleState::ConsoleState(client::Session& session, ConsoleOptions options)
    : session_(session), options_(options), events_(options.event_log_capacity) {}

void ConsoleState::start(int64_t now_ms) {
  now_ms_ = now_ms;
  client::Request version;
  version.target = "/version";
  send(Purpose::Version, version);
  refresh_discovery();
  open_kind(namespaces_resource());
  open_kind(crds_resource());
}

void ConsoleState::rediscover() {
  for (const auto& [id, purpose] : pending_) {
    if (purpose == Purpose::DiscoveryCore || purpose == Purpose::DiscoveryGroups) {
      rediscover_ = true;  // once the discovery in flight is in: it may predate the change
      return;
    }
  }
  rediscover_ = false;
  refresh_discovery();
}

void ConsoleState::refresh_discovery() {
  client::Request core;
  core.target = "/api";
  core.accept = kDiscoveryAccept;
  send(Purpose::DiscoveryCore, core);
  client::Request groups;
  groups.target = "/apis";
  groups.accept = kDiscoveryAccept;
  send(Purpose::DiscoveryGroups, groups);
}

uint64_t ConsoleState::send(Purpose purpose, client::Request request) {
  const uint64_t id = session_.submit(std::move(request));
  if (id == 0) {
    fail("too many requests in flight; try again");
    return 0;
  }
  pending_[id] = purpose;
  return id;
}

void ConsoleState::fail(std::string message) {
  last_error_ = std::move(message);
  last_error_ms_ = now_ms_;
}

ConnectionState ConsoleState::connection() const {
  if (!any_success_) {
    return transport_failed_ ? ConnectionState::Disconnected : ConnectionState::Connecting;
  }
  if (transport_failed_) {
    return ConnectionState::Degraded;
  }
  for (const auto& [key, kind] : kinds_) {
    if (kind.state == client::StreamState::Retrying) {
      return ConnectionState::Degraded;
    }
  }
  return ConnectionState::Connected;
}

OpenKind* ConsoleState::find_open(const std::string& key) {
  const auto it = kinds_.find(key);
  return it != kinds_.end() ? &it->second : nullptr;
}

OpenKind* ConsoleState::current() {
  return find_open(current_key_);
}

const OpenKind* ConsoleState::current() const {
  const auto it = kinds_.find(current_key_);
  return it != kinds_.end() ? &it->second : nullptr;
}

void ConsoleState::open_kind(const model::ApiResource& resource) {
  const std::string key = resource.key();
  if (kinds_.count(key) != 0) {
    return;
  }
  size_t watched = 0;
  for (const auto& [k, kind] : kinds_) {
    watched += always_open(k) ? 0 : 1;
  }
  if (!always_open(key) && watched >= kMaxOpenKinds) {
    close_least_recent();
  }
  OpenKind& kind = kinds_.emplace(key, OpenKind(resource)).first->second;
  kind.last_shown_ms = now_ms_;
  client::WatchTarget target;
  target.key = key;
  target.path = collection_path(resource);
  target.table = true;
  kind.stream_id = session_.watch(std::move(target));
}

void ConsoleState::close_least_recent() {
  auto victim = kinds_.end();
  for (auto it = kinds_.begin(); it != kinds_.end(); ++it) {
    if (always_open(it->first) || it->first == current_key_ ||
        (editor_target_ && editor_target_->kind_key == it->first)) {
      continue;
    }
    if (victim == kinds_.end() || it->second.last_shown_ms < victim->second.last_shown_ms) {
      victim = it;
    }
  }
  if (victim != kinds_.end()) {
    session_.unwatch(victim->first);
    const model::ApiResource& r = victim->second.table.resource();
    tree_.set_count(r.group, r.resource, 0);
    kinds_.erase(victim);
  }
}

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
  if (!namespaces_.select(name)) {
    return false;
  }
  rebuild_current(true);
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

bool ConsoleState::begin_edit() {
  const model::CachedObject* object = selected_object();
  if (object == nullptr || action_in_flight() || editing()) {
    return false;
  }
  editor_target_ = selected_ref();
  editor_text_ = model::to_yaml(apply_form(object->object()), model::ManagedFields::Show);
  editor_base_rv_ = object->resource_version();
  creating_ = false;
  event_history_.reset();
  action_result_.reset();
  return true;
}

void ConsoleState::open_creator(const json& object) {
  const json& metadata = model::field(object, "metadata");
  editor_target_ = ObjectRef{current_key_, model::string_field(metadata, "namespace"),
                             model::string_field(metadata, "name")};
  editor_text_ = model::to_yaml(object, model::ManagedFields::Show);
  editor_base_rv_.clear();
  creating_ = true;
  force_ = false;
  event_history_.reset();
  action_result_.reset();
}

bool ConsoleState::begin_create() {
  const OpenKind* kind = current();
  if (kind == nullptr || action_in_flight() || editing()) {
    return false;
  }
  const model::ApiResource& r = kind->table.resource();
  if (!r.has_verb("create")) {
    fail(r.kind + " objects cannot be created: the server does not offer create for them");
    return false;
  }
  open_creator(model::object_template(r, r.namespaced ? namespaces_.selected() : ""));
  return true;
}

bool ConsoleState::begin_duplicate() {
  const model::CachedObject* object = selected_object();
  if (object == nullptr || action_in_flight() || editing()) {
    return false;
  }
  open_creator(model::duplicate_object(object->object()));
  return true;
}

void ConsoleState::cancel_edit() {
  editor_target_.reset();
  editor_text_.clear();
  editor_base_rv_.clear();
  creating_ = false;
  action_result_.reset();
}

bool ConsoleState::apply() {
  return send_editor(Purpose::Apply);
}

bool ConsoleState::create() {
  return send_editor(Purpose::Create);
}

bool ConsoleState::replace() {
  return send_editor(Purpose::Replace);
}

bool ConsoleState::submit_editor() {
  return creating() ? create() : apply();
}

bool ConsoleState::send_editor(Purpose purpose) {
  if (!editor_target_ || action_in_flight() || (purpose == Purpose::Create) != creating_) {
    return false;  // Create sends a new object; Apply and Replace an edited one
  }
  const char* action = purpose == Purpose::Create    ? "create"
                       : purpose == Purpose::Replace ? "replace"
                                                     : "apply";
  ObjectRef target = *editor_target_;
  auto fail_locally = [&](std::string reason, std::string message) {
    ActionResult result;
    result.action = action;
    result.target = target;
    result.error = ApiError{0, std::move(reason), std::move(message), {}};
    action_result_ = std::move(result);
    ++actions_answered_;
    return false;
  };
  std::string yaml_error;
  const auto parsed = model::parse_yaml(editor_text_, yaml_error);
  if (!parsed) {
    return fail_locally("Invalid", "the YAML does not parse: " + yaml_error);
  }
  if (!parsed->is_object()) {
    return fail_locally("Invalid", "the YAML is not an object");
  }
  const OpenKind* kind = find_open(target.kind_key);
  if (kind == nullptr) {
    return fail_locally("", "the object's kind is no longer open");
  }
  const model::ApiResource& resource = kind->table.resource();
  client::Request request;
  if (purpose == Purpose::Apply) {
    request.method = "PATCH";
    request.target = object_path(resource, target.namespace_, target.name) +
                     "?fieldManager=" + kFieldManager + (force_ ? "&force=true" : "");
    request.content_type = "application/apply-patch+yaml";
    request.body = editor_text_;
  } else {
    json object = *parsed;
    const json& metadata = model::field(object, "metadata");
    if (purpose == Purpose::Create) {
      const std::string ns = model::string_field(metadata, "namespace");
      if (resource.namespaced && !ns.empty()) {
        target.namespace_ = ns;
      }
      target.name = model::string_field(metadata, "name");
      request.method = "POST";
      request.target = create_path(resource, target.namespace_) + "?fieldManager=" + kFieldManager;
    } else {
      if (model::string_field(metadata, "resourceVersion").empty() && !editor_base_rv_.empty()) {
        set_path(object, "metadata.resourceVersion", editor_base_rv_);
      }
      request.method = "PUT";
      request.target =
          object_path(resource, target.namespace_, target.name) + "?fieldManager=" + kFieldManager;
    }
    request.content_type = "application/json";
    request.body = object.dump();
  }
  const uint64_t id = send(purpose, std::move(request));
  if (id == 0) {
    return false;
  }
  action_request_ = id;
  pending_action_ = ActionResult{action, target, false, std::nullopt, {}};
  action_result_.reset();
  return true;
}

bool ConsoleState::request_delete() {
  const std::optional<ObjectRef> ref = selected_ref();
  if (!ref || action_in_flight()) {
    return false;
  }
  confirm_delete_ = ref;
  return true;
}

void ConsoleState::cancel_delete() {
  confirm_delete_.reset();
}

bool ConsoleState::confirm_delete() {
  if (!confirm_delete_ || action_in_flight()) {
    return false;
  }
  const ObjectRef target = *confirm_delete_;
  confirm_delete_.reset();
  const OpenKind* kind = find_open(target.kind_key);
  if (kind == nullptr) {
    return false;
  }
  client::Request request;
  request.method = "DELETE";
  request.target = object_path(kind->table.resource(), target.namespace_, target.name);
  const uint64_t id = send(Purpose::Delete, std::move(request));
  if (id == 0) {
    return false;
  }
  action_request_ = id;
  pending_action_ = ActionResult{"delete", target, false, std::nullopt, {}};
  action_result_.reset();
  return true;
}

size_t ConsoleState::update(int64_t now_ms) {
  now_ms_ = now_ms;
  std::vector<client::StreamMessage> messages;
  std::vector<client::ApiReply> replies;
  session_.drain(messages, options_.max_messages_per_frame, replies);
  for (auto& message : messages) {
    on_message(message);
  }
  for (auto& reply : replies) {
    on_reply(reply);
  }
  for (const auto& [key, kind] : kinds_) {
    const model::ApiResource& r = kind.table.resource();
    tree_.set_count(r.group, r.resource,
                    kind.table.count_in(r.namespaced ? namespaces_.selected() : ""));
  }
  rebuild_current(false);
  count_kinds();
  if (select_when_listed_ && select_when_listed_->kind_key == current_key_ &&
      select_object(select_when_listed_->namespace_, select_when_listed_->name)) {
    select_when_listed_.reset();
  }
  return messages.size() + replies.size();
}

void ConsoleState::on_message(client::StreamMessage& message) {
  OpenKind* kind = find_open(message.key);
  if (kind == nullptr || kind->stream_id != message.stream_id) {
    return;  // from a stream closed since
  }
  const bool is_namespaces = message.key == kNamespacesKey;
  const bool is_crds = message.key == kCrdsKey;
  switch (message.type) {
    case client::StreamMessage::Type::Listed: {
      std::vector<model::ObjectRow> rows;
      rows.reserve(message.rows.size());
      for (auto& row : message.rows) {
        rows.push_back(model::ObjectRow{std::move(row.object), std::move(row.cells)});
      }
      if (auto error = kind->table.on_list(std::move(message.columns), std::move(rows),
                                           message.resource_version, now_ms_)) {
        fail(kind->table.resource().resource + ": " + *error);
        return;
      }
      ++kind->lists;
      any_success_ = true;
      last_change_ms_ = now_ms_;
      if (is_namespaces) {
        refresh_namespaces();
      }
      if (is_crds) {
        rediscover();
      }
      return;
    }
    case client::StreamMessage::Type::Event: {
      const json& object = message.item.object;
      const json& metadata = model::field(object, "metadata");
      model::LoggedEvent logged;
      logged.received_unix_ms = now_ms_;
      logged.type = message.event_type;
      logged.kind = kind->table.resource().kind;
      logged.namespace_ = model::string_field(metadata, "namespace");
      logged.name = model::string_field(metadata, "name");
      logged.resource_version = model::string_field(metadata, "resourceVersion");
      logged.kind_key = message.key;
      if (message.event_type == "DELETED") {
        logged.deleted_object = std::make_shared<const json>(object);
        if (const model::CachedObject* held =
                kind->table.cache().find(logged.namespace_, logged.name)) {
          logged.previous_object = std::make_shared<const json>(held->object());
        }
      }
      if (message.event_type == "ERROR") {
        logged.name = model::string_field(object, "message");
        fail(kind->table.resource().resource + " watch: " + model::string_field(object, "message"));
      }
      events_.append(std::move(logged));
      const model::ApplyOutcome outcome =
          kind->table.on_event(message.event_type, object, std::move(message.item.cells), now_ms_);
      ++kind->events;
      last_change_ms_ = now_ms_;
      if (is_namespaces &&
          (outcome == model::ApplyOutcome::Added || outcome == model::ApplyOutcome::Modified ||
           outcome == model::ApplyOutcome::Deleted)) {
        refresh_namespaces();
      }
      if (is_crds &&
          (outcome == model::ApplyOutcome::Added || outcome == model::ApplyOutcome::Modified ||
           outcome == model::ApplyOutcome::Deleted)) {
        rediscover();  // a CRD established, changed or gone: its kinds come and go
      }
      return;
    }
    case client::StreamMessage::Type::State:
      kind->state = message.state;
      kind->error = message.error;
      if (message.state == client::StreamState::Retrying) {
        fail(message.error);
      } else if (message.state == client::StreamState::Watching) {
        any_success_ = true;
      }
      return;
  }
}

void ConsoleState::count_kinds() {
  if (!discovered_) {
    return;
  }
  const std::string& ns = namespaces_.selected();
  if (ns != counted_namespace_) {  // counts of another namespace: a new round now
    counted_namespace_ = ns;
    count_queue_.clear();
    next_count_round_ms_ = 0;
  }
  if (count_queue_.empty() && counts_pending_.empty() && now_ms_ >= next_count_round_ms_) {
    for (const auto& group : tree_.groups()) {
      for (const auto& r : group.resources) {
        if (r.has_verb("list") && kinds_.count(r.key()) == 0) {
          count_queue_.emplace_back(r.group, r.resource);
        }
      }
    }
    std::reverse(count_queue_.begin(), count_queue_.end());  // taken from the back: tree order
    next_count_round_ms_ = now_ms_ + kCountIntervalMs;
  }
  while (!count_queue_.empty() && counts_pending_.size() < kCountsInFlight) {
    auto [group, resource] = std::move(count_queue_.back());
    count_queue_.pop_back();
    const model::ApiResource* r = tree_.find(group, resource);
    if (r == nullptr || kinds_.count(r->key()) != 0) {
      continue;  // gone from discovery, or followed by a watch meanwhile
    }
    std::string path = collection_path(*r);
    if (r->namespaced && !ns.empty()) {
      const size_t at = path.rfind('/');
      path = path.substr(0, at) + "/namespaces/" + ns + path.substr(at);
    }
    client::Request request;
    request.target = path + "?limit=1";
    const uint64_t id = session_.submit(std::move(request));
    if (id == 0) {
      count_queue_.clear();  // the request queue is full: the next round tries again
      return;
    }
    pending_[id] = Purpose::Count;
    counts_pending_[id] = {std::move(group), std::move(resource)};
  }
}

void ConsoleState::on_count(uint64_t id, bool sent, int status, const std::string& body) {
  const auto it = counts_pending_.find(id);
  if (it == counts_pending_.end()) {
    return;
  }
  const auto [group, resource] = std::move(it->second);
  counts_pending_.erase(it);
  const json list = sent && status == 200 ? json::parse(body, nullptr, false) : json();
  const model::ApiResource* r = tree_.find(group, resource);
  if (!list.is_object() || r == nullptr || kinds_.count(r->key()) != 0) {
    return;  // not listable here, or followed by a watch now (its table counts it)
  }
  size_t count = model::field(list, "items").is_array() ? model::field(list, "items").size() : 0;
  const json& remaining = model::field(model::field(list, "metadata"), "remainingItemCount");
  if (remaining.is_number_unsigned()) {
    count += remaining.get<size_t>();
  }
  tree_.set_count(group, resource, count);
}

void ConsoleState::refresh_namespaces() {
  const OpenKind* kind = find_open(kNamespacesKey);
  if (kind == nullptr) {
    return;
  }
  json items = json::array();
  for (const auto& [key, object] : kind->table.cache().objects()) {
    items.push_back({{"metadata", {{"name", object.name}}}});
  }
  const std::string before = namespaces_.selected();
  namespaces_.replace(json{{"items", std::move(items)}});
  if (namespaces_.selected() != before) {
    rebuild_current(true);
  }
}

void ConsoleState::on_reply(client::ApiReply& reply) {
  const auto it = pending_.find(reply.id);
  if (it == pending_.end()) {
    return;
  }
  const Purpose purpose = it->second;
  pending_.erase(it);
  transport_failed_ = !reply.sent;
  if (reply.sent) {
    any_success_ = true;
  } else {
    fail(reply.error);
  }
  const int status = reply.response.status;
  const std::string& body = reply.response.body;
  switch (purpose) {
    case Purpose::Count:
      on_count(reply.id, reply.sent, status, body);
      return;
    case Purpose::Version:
      if (reply.sent && status == 200) {
        server_version_ = model::string_field(json::parse(body, nullptr, false), "gitVersion");
      }
      return;
    case Purpose::DiscoveryCore:
    case Purpose::DiscoveryGroups: {
      if (!reply.sent || status != 200) {
        discovery_error_ = reply.sent ? client::status_text(status, body) : reply.error;
        fail("discovery: " + discovery_error_);
        return;
      }
      json document = json::parse(body, nullptr, false);
      if (document.is_discarded()) {
        discovery_error_ = "the discovery document is not JSON";
        fail("discovery: " + discovery_error_);
        return;
      }
      (purpose == Purpose::DiscoveryCore ? discovery_core_ : discovery_groups_) =
          std::move(document);
      if (discovery_core_ && discovery_groups_) {
        on_discovery();
        if (rediscover_) {
          rediscover_ = false;  // a CRD changed while this pair was in flight
          refresh_discovery();
        }
      }
      return;
    }
    case Purpose::Apply:
    case Purpose::Create:
    case Purpose::Replace:
    case Purpose::Delete: {
      ActionResult result = pending_action_.value_or(ActionResult{});
      pending_action_.reset();
      action_request_ = 0;
      ++actions_answered_;
      if (!reply.sent) {
        result.error = ApiError{0, "", reply.error, {}};
      } else if (status >= 200 && status < 300) {
        result.ok = true;
        result.resource_version =
            model::string_field(model::field(json::parse(body, nullptr, false), "metadata"), "resourceVersion");
        const bool created = purpose == Purpose::Create && creating();
        if (created ||
            (purpose != Purpose::Delete && !creating_ && editor_target_ == result.target)) {
          cancel_edit();
        }
        if (created) {
          const json answer = json::parse(body, nullptr, false);
          // The name the server gave, also for a generateName.
          result.target.name = model::string_field(model::field(answer, "metadata"), "name");
          select_when_listed_ = result.target;
        }
      } else {
        result.error = parse_status(status, body);
        fail(result.action + " " + describe(result.target) + ": " + result.error->message);
      }
      action_result_ = std::move(result);
      return;
    }
  }
}

void ConsoleState::on_discovery() {
  if (auto error = tree_.rebuild(*discovery_core_, *discovery_groups_)) {
    discovery_error_ = *error;
    fail("discovery: " + *error);
  } else {
    discovered_ = true;
    discovery_error_.clear();
  }
  discovery_core_.reset();
  discovery_groups_.reset();
}

void ConsoleState::rebuild_current(bool force) {
  OpenKind* kind = current();
  if (kind == nullptr || !kind->table.listed()) {
    return;
  }
  model::KindTable& table = kind->table;
  const std::string namespace_ = table.resource().namespaced ? namespaces_.selected() : "";
  const bool moved = table.view_namespace() != namespace_;
  if (!force && !moved && !table.stale()) {
    return;
  }
  if (!force && !moved && table.apply_changes(now_ms_, kChangedRowsPerFrame)) {
    return;  // the watch's changes, row by row
  }
  if (!force && !moved && now_ms_ - last_rebuild_ms_ < rebuild_interval_ms_) {
    return;  // a busy watch on a large table: at most one rebuild per interval
  }
  const auto start = std::chrono::steady_clock::now();
  table.rebuild(namespace_, now_ms_);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  rebuild_interval_ms_ = std::min<int64_t>(2000, took * 4);
  last_rebuild_ms_ = now_ms_;
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
                  {"viewNamespace", kind.table.view_namespace()}};
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
