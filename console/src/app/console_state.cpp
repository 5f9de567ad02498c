// ConsoleState fed by the network, its core: the kinds opened (each with its watch stream) and
// closed, update() draining stream messages and request replies, discovery, the tree's counts of
// kinds not watched, the namespaces, and the shown table rebuilt. ConsoleState's other members
// are spread by concept: console_state_navigation.cpp (what the user picks),
// console_state_editor.cpp (the editor and the writes) and console_state_dump.cpp (dump()).
#include "console/app/console_state.h"

#include <algorithm>
#include <chrono>

#include "app/console_state_dump.h"
#include "model/json_fields.h"

namespace console::app {

namespace {

using json = nlohmann::json;

constexpr const char* kDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
constexpr const char* kNamespacesKey = "core/namespaces";
constexpr const char* kCrdsKey = "apiextensions.k8s.io/customresourcedefinitions";
// Rows a frame updates in place for watch events (tens of microseconds each at 50,000 rows); a
// burst beyond it spreads over the next frames.
constexpr size_t kChangedRowsPerFrame = 500;

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

}  // namespace

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
    // A refusal is the server answering: the user may not, which is no fault of the connection.
    if (kind.state == client::StreamState::Retrying && kind.refused == 0) {
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

void ConsoleState::open_kind(const model::ApiResource& resource, const std::string& scope) {
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
  kind.scope = resource.namespaced ? scope : std::string();
  client::WatchTarget target;
  target.key = key;
  target.path = kind.scope.empty() ? collection_path(resource) : create_path(resource, kind.scope);
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
  ask_access();
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
        kind->refused = message.http_status;
        if (kind->refused != 0) {
          any_success_ = true;  // the server answered: the user may not, shown where it applies
          on_refused(*kind);
        } else {
          fail(message.error);
        }
      } else if (message.state == client::StreamState::Watching) {
        kind->refused = 0;
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
    count_refused_.clear();
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
  if (r != nullptr && sent && (status == 401 || status == 403)) {
    count_refused_[r->key()] = client::refusal_text(status, body);
    return;
  }
  if (r != nullptr) {
    count_refused_.erase(r->key());
  }
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
  namespaces_denied_.clear();
  if (namespaces_.selected() != before) {
    on_namespace_changed();
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
    case Purpose::WhoAmI:
    case Purpose::Rules:
      on_access_reply(purpose, reply.id, reply.sent, status, body);
      return;
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
        result.resource_version = model::string_field(
            model::field(json::parse(body, nullptr, false), "metadata"), "resourceVersion");
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

}  // namespace console::app
