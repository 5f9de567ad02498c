// Everything the console's windows show and every action they offer, with no drawing in it: the
// glue between the Session (network threads) and the pure models. The UI thread calls update()
// at the start of each frame, which drains what the network threads sent and applies it; the
// windows then read the state and call the actions below. Scripts (script.h) drive the same
// actions, and a test can drive it all with a fake Session.
//
// What it keeps:
// - discovery (/api and /apis, aggregated) as a ResourceTree, and /version;
// - one KindTable per opened kind, each fed by its own watch stream (at most kMaxOpenKinds at
//   once; the least recently shown is closed first), plus the namespaces stream behind the
//   namespace selector and the CustomResourceDefinitions stream, whose changes trigger a new
//   discovery so that custom kinds appear and leave the tree live;
// - the watch event log; the object pane (the selected object, the editor, the last apply or
//   delete and its error); the connection state and the last error.
//
// Not thread-safe: the UI thread owns it. Nothing here waits for the network.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "console/app/settings.h"
#include "console/client/session.h"
#include "console/model/access_rules.h"
#include "console/model/event_log.h"
#include "console/model/kind_table.h"
#include "console/model/namespaces.h"
#include "console/model/object_diff.h"
#include "console/model/resource_tree.h"

namespace console::app {

// A failed request as the API server explained it (a meta.k8s.io/v1 Status), or a transport
// failure (http_status 0, reason empty).
struct ApiError {
  struct Cause {
    std::string reason;  // FieldValueInvalid, FieldManagerConflict, ...
    std::string message;
    std::string field;
  };
  int http_status = 0;
  std::string reason;  // Conflict, Invalid, NotFound, ...
  std::string message;
  std::vector<Cause> causes;
};

// The Status in a response body; a body that is not a Status gives the HTTP status and the text.
ApiError parse_status(int http_status, std::string_view body);

// The object minus what a person does not edit and an apply must not send: status,
// metadata.managedFields and the server-set metadata (uid, resourceVersion, creationTimestamp,
// generation, selfLink, deletion fields).
nlohmann::json apply_form(const nlohmann::json& object);

// Sets `dotted` ("data.key", "metadata.labels.app") in `object` to `value`, creating objects on
// the way. False when a step is not an object.
bool set_path(nlohmann::json& object, std::string_view dotted, nlohmann::json value);

// The request path of a collection (all namespaces) or of one object.
std::string collection_path(const model::ApiResource& resource);
std::string object_path(const model::ApiResource& resource, std::string_view namespace_,
                        std::string_view name);
// Where a POST creates an object of `resource` in `namespace_` (ignored for cluster-scoped kinds).
std::string create_path(const model::ApiResource& resource, std::string_view namespace_);

enum class ConnectionState { Connecting, Connected, Degraded, Disconnected };
const char* to_string(ConnectionState state);

// An opened kind: its table and the state of its stream.
struct OpenKind {
  explicit OpenKind(model::ApiResource resource) : table(std::move(resource)) {}
  model::KindTable table;
  uint64_t stream_id = 0;
  client::StreamState state = client::StreamState::Listing;
  std::string error;          // why the stream is retrying
  int64_t last_shown_ms = 0;  // for closing the least recently shown
  uint64_t events = 0;        // watch events applied
  uint64_t lists = 0;         // LISTs applied (more than one: it relisted)
  // The namespace the stream watches: "" for every namespace; the selected one for a namespaced
  // kind the user may not list cluster-wide (the server refused that with a 403).
  std::string scope;
  int refused = 0;  // the HTTP status (401, 403) of the server's refusal behind `error`, or 0
};

// Whether the user may take an action, as the server's rules say; `reason` says why not.
struct Permission {
  bool allowed = true;
  std::string reason;
};

struct ObjectRef {
  std::string kind_key;  // "core/configmaps"
  std::string namespace_;
  std::string name;
  bool operator==(const ObjectRef&) const = default;
};

// The outcome of the last apply, create, replace or delete.
struct ActionResult {
  std::string action;  // "apply", "create", "replace" or "delete"
  ObjectRef target;
  bool ok = false;
  std::optional<ApiError> error;
  std::string resource_version;  // after a successful apply
};

// An event of the watch window opened in the object pane: the object as of that event and a line
// diff against the version before it, as far as the console still holds them (the cache keeps
// the last ResourceCache::kDefaultHistoryDepth versions of each object; a DELETED event keeps
// its object and the one before it).
struct EventHistory {
  model::LoggedEvent event;
  bool found = false;                     // `yaml` holds the object as of the event
  std::string yaml;                       // managedFields folded
  std::string previous_resource_version;  // empty: no previous version to compare with
  model::TextDiff diff;                   // previous -> this version; empty without a previous
  std::string note;                       // what is missing and why, for the UI; may be empty
};

// Display choices that scripts set too (so they live here, not in the windows).
struct ViewOptions {
  bool show_help = false;
  bool light_theme = false;
  model::EventFilter events;  // what the watch window lists
  bool focus_filter = false;  // the table's filter box takes the keyboard next frame
  PaneSizes panes;            // as the splitters left them; 0: the default layout
};

struct ConsoleOptions {
  size_t event_log_capacity = 10000;
  size_t max_messages_per_frame = 20000;  // the rest waits for the next frame
  int64_t highlight_ms = 2500;            // how long a changed row stays highlighted
};

class ConsoleState {
 public:
  static constexpr size_t kMaxOpenKinds = 8;
  // The tree's counts of kinds that are not followed by a watch come from a LIST with limit=1
  // (its items plus metadata.remainingItemCount) in the selected namespace: every kind in turn,
  // a round every kCountIntervalMs, at most kCountsInFlight requests at once so that counting
  // never crowds out what the user asks for. A kind that cannot be listed shows no count.
  static constexpr int64_t kCountIntervalMs = 10000;
  static constexpr size_t kCountsInFlight = 2;
  static constexpr const char* kFieldManager = "kube-sandbox-console";
  // How long the rules of a namespace (a SelfSubjectRulesReview) are trusted before they are
  // asked again, while that namespace is in use.
  static constexpr int64_t kRulesRefreshMs = 30000;

  // `session` must outlive the state.
  explicit ConsoleState(client::Session& session, ConsoleOptions options = {});

  // Sends /version and discovery and opens the namespaces stream.
  void start(int64_t now_ms);
  // Drains the session (at most max_messages_per_frame stream messages) and applies what came;
  // rebuilds the shown table when its objects changed; counts the kinds not followed (below).
  // `now_ms` is wall-clock Unix time.
  // Returns how many messages and replies came.
  size_t update(int64_t now_ms);
  // Sends discovery again (CRDs may have come or gone).
  void refresh_discovery();
  // refresh_discovery(), or once the discovery in flight is in (a CRD changed meanwhile).
  void rediscover();

  // --- what the windows read
  const client::ClusterAccess& access() const { return session_.access(); }
  const std::string& server_version() const { return server_version_; }
  ConnectionState connection() const;
  const std::string& last_error() const { return last_error_; }
  int64_t last_error_ms() const { return last_error_ms_; }
  size_t requests_in_flight() const { return session_.requests_in_flight(); }
  uint64_t dropped_messages() const { return session_.dropped_messages(); }
  bool discovered() const { return discovered_; }
  const std::string& discovery_error() const { return discovery_error_; }
  const model::ResourceTree& tree() const { return tree_; }
  const model::NamespaceSelector& namespaces() const { return namespaces_; }
  model::EventLog& events() { return events_; }
  const model::EventLog& events() const { return events_; }
  const std::map<std::string, OpenKind>& open_kinds() const { return kinds_; }
  // The kind shown in the table, or null.
  OpenKind* current();
  const OpenKind* current() const;
  const std::string& current_key() const { return current_key_; }
  const ConsoleOptions& options() const { return options_; }
  ViewOptions& view_options() { return view_options_; }
  const ViewOptions& view_options() const { return view_options_; }
  int64_t now_ms() const { return now_ms_; }
  // When a list or watch event last changed some kind's objects (0: never); a UI that draws only
  // when something moves keeps drawing while changed rows are highlighted.
  int64_t last_change_ms() const { return last_change_ms_; }

  // The object in the pane (the table's selection), or null; and its YAML (managedFields folded).
  const model::CachedObject* selected_object() const;
  std::optional<ObjectRef> selected_ref() const;
  const std::string& selected_yaml();

  // --- who the console is and what it may do (console_state_access.cpp)
  // The user the server sees (a SelfSubjectReview, asked once discovery is in); nullopt until it
  // answers, or when it cannot (`whoami_error()`).
  const std::optional<model::UserInfo>& user() const { return user_; }
  const std::string& whoami_error() const { return whoami_error_; }
  // The rules of `namespace_` (a SelfSubjectRulesReview, asked for the namespaces in use: the
  // selected one, else the context's, and the selected object's), or null while unknown.
  const model::AccessRules* rules(const std::string& namespace_) const;
  // The namespace whose rules stand for the selection: the selected one, else the context's.
  std::string rules_namespace() const;
  // Whether the user may `verb` objects of `resource` in `namespace_` (ignored for cluster-scoped
  // kinds), named `name` ("" for the collection). Allowed while the rules are unknown: the server
  // decides, and its refusal is shown.
  Permission may(std::string_view verb, const model::ApiResource& resource,
                 std::string_view namespace_, std::string_view name = {}) const;
  // What the object pane offers: edit (patch or update) and delete the selected object; create
  // an object of the shown kind in the selected namespace.
  Permission may_edit() const;
  Permission may_delete() const;
  Permission may_create() const;
  // The editor's object: "patch" (Apply), "update" (Replace) or "create"; allowed when not editing.
  Permission may_editor(std::string_view verb) const;
  // Why the user may not list `resource` in the selected namespace (all of them for "") as the
  // server said it (a 403 to a LIST), or as its rules say; nullopt when they may, or unknown.
  std::optional<std::string> list_denied(const model::ApiResource& resource) const;
  // The server's refusal of the namespace LIST; the selector then offers the context's namespace.
  const std::string& namespaces_denied() const { return namespaces_denied_; }

  // --- actions
  // Shows a kind (opening its stream); false when discovery does not list it.
  bool select_kind(std::string_view group, std::string_view resource);
  // The kind a person names: "configmaps", "configmap", "cm", "ConfigMap", "apps/deployments",
  // "deployments.apps"; null when none matches (or before discovery).
  const model::ApiResource* find_kind(std::string_view name) const;
  // Pins a kind (by key, "apps/deployments") on top of the resource tree, or unpins it. Kinds
  // discovery does not list may be pinned: they show once they are served.
  void set_favourite(std::string_view key, bool favourite);
  bool is_favourite(std::string_view key) const;

  // What console.ini keeps of this state (theme, favourites, pane sizes), and setting it back.
  // The window's geometry and ImGui's own settings are the UI's.
  void apply_settings(const ConsoleSettings& settings);
  void fill_settings(ConsoleSettings& settings) const;

  // "" for all namespaces; false for a name the list lacks.
  bool select_namespace(std::string_view name);
  void set_filter(std::string_view text);
  // The row in the current table; false when it has no such row.
  bool select_object(std::string_view namespace_, std::string_view name);
  void clear_selection();
  // Moves the selection by `delta` visible rows (arrow keys).
  void move_selection(int delta);

  // Opens the event at `index` of events() in the object pane (its version and the diff against
  // the version before it). False for an index past the log.
  bool select_event(size_t index);
  void close_event();
  const std::optional<EventHistory>& event_history() const { return event_history_; }

  // The editor. begin_edit() fills it with the selected object's apply form (for Apply and
  // Replace); begin_create() with a template of the shown kind in the selected namespace
  // (model/object_template.h); begin_duplicate() with a copy of the selected object, renamed.
  // The last two are for Create. None of them replaces text being edited: each returns false
  // while the editor is open (or an action is in flight, or there is nothing to start from).
  bool begin_edit();
  bool begin_create();
  bool begin_duplicate();
  void cancel_edit();
  bool editing() const { return editor_target_.has_value(); }
  // The editor holds a new object (begin_create or begin_duplicate), to be sent by create().
  bool creating() const { return editing() && creating_; }
  // Edit: the object edited. Create: the kind, and the namespace and name the editor began with.
  const std::optional<ObjectRef>& editor_target() const { return editor_target_; }
  std::string& editor_text() { return editor_text_; }
  bool& force_apply() { return force_; }
  // Sends the editor's text as a server-side apply (PATCH application/apply-patch+yaml,
  // fieldManager=kube-sandbox-console, force when ticked). False when nothing can be sent (not
  // editing, one in flight, the YAML does not parse: see action_result()).
  bool apply();
  // Sends the editor's object as a POST (create mode only), to the namespace its YAML names, else
  // the one the editor began with. Once created, the table selects it when its watch brings it.
  bool create();
  // Sends the editor's object as a PUT (edit mode only). Without a metadata.resourceVersion in
  // the text, the version the edit began from is sent, so a change made meanwhile is a Conflict
  // rather than overwritten.
  bool replace();
  // Ctrl+S: create() in create mode, else apply().
  bool submit_editor();
  // Delete asks first: request_delete() opens the confirmation, confirm_delete() sends.
  bool request_delete();
  bool delete_pending_confirmation() const { return confirm_delete_.has_value(); }
  const std::optional<ObjectRef>& delete_target() const { return confirm_delete_; }
  bool confirm_delete();
  void cancel_delete();
  // An apply, create, replace or delete sent and not answered yet.
  bool action_in_flight() const { return action_request_ != 0; }
  const std::optional<ActionResult>& action_result() const { return action_result_; }
  // Incremented by each answered apply or delete, so a script can wait for the next one.
  uint64_t actions_answered() const { return actions_answered_; }

  // The whole state as JSON, for --state-dump and scripts' dump-state.
  nlohmann::json dump() const;

 private:
  enum class Purpose {
    Version,
    DiscoveryCore,
    DiscoveryGroups,
    Apply,
    Create,
    Replace,
    Delete,
    Count,
    WhoAmI,
    Rules
  };

  void open_kind(const model::ApiResource& resource, const std::string& scope = {});
  // Watches an open kind in `scope` instead ("" for every namespace): a new stream and table.
  void rescope(const std::string& key, const std::string& scope);
  // After the selected namespace changed: kinds watched in one namespace follow it.
  void on_namespace_changed();
  // A stream's refusal (403): a namespaced kind refused cluster-wide is watched in the selected
  // namespace; a refused namespace LIST leaves the selector the context's namespace.
  void on_refused(OpenKind& kind);
  // Asks who the user is once, and the rules of the namespaces in use when unknown or stale.
  void ask_access();
  void on_access_reply(Purpose purpose, uint64_t id, bool sent, int status,
                       const std::string& body);
  // dump()'s "access": the user, the rules' namespace, the pane's permissions, kinds not listable.
  nlohmann::json access_json() const;
  void open_creator(const nlohmann::json& object);
  bool send_editor(Purpose purpose);
  void close_least_recent();
  void on_message(client::StreamMessage& message);
  void on_reply(client::ApiReply& reply);
  void on_discovery();
  void refresh_namespaces();
  void count_kinds();
  void on_count(uint64_t id, bool sent, int status, const std::string& body);
  void rebuild_current(bool force);
  void fail(std::string message);
  OpenKind* find_open(const std::string& key);
  uint64_t send(Purpose purpose, client::Request request);

  client::Session& session_;
  ConsoleOptions options_;
  int64_t now_ms_ = 0;
  int64_t last_change_ms_ = 0;

  std::string server_version_;
  bool discovered_ = false;
  std::string discovery_error_;
  std::optional<nlohmann::json> discovery_core_;
  std::optional<nlohmann::json> discovery_groups_;
  bool rediscover_ = false;  // discover again when the pair in flight is in
  model::ResourceTree tree_;
  model::NamespaceSelector namespaces_;
  std::map<std::string, OpenKind> kinds_;  // by ApiResource::key()
  std::string current_key_;
  int64_t rebuild_interval_ms_ = 0;  // grows with the cost of the last rebuild
  int64_t last_rebuild_ms_ = 0;

  model::EventLog events_;
  ViewOptions view_options_;

  std::optional<EventHistory> event_history_;
  std::optional<ObjectRef> editor_target_;
  std::string editor_text_;
  bool force_ = false;
  bool creating_ = false;
  std::string editor_base_rv_;                   // the resourceVersion an edit began from
  std::optional<ObjectRef> select_when_listed_;  // a created object, selected once it shows
  std::optional<ObjectRef> confirm_delete_;
  uint64_t action_request_ = 0;
  std::optional<ActionResult> pending_action_;
  std::optional<ActionResult> action_result_;
  uint64_t actions_answered_ = 0;

  std::map<uint64_t, Purpose> pending_;  // request id -> what it was for
  // Counting: (group, resource) still to count this round, the requests out, when the next round
  // starts, and the namespace the counts are of.
  std::vector<std::pair<std::string, std::string>> count_queue_;
  std::map<uint64_t, std::pair<std::string, std::string>> counts_pending_;
  int64_t next_count_round_ms_ = 0;
  std::string counted_namespace_;
  // Access: who the user is, and per namespace its rules and when they were asked.
  struct NamespaceRules {
    std::optional<model::AccessRules> rules;
    int64_t asked_ms = 0;
    bool in_flight = false;
  };
  std::optional<model::UserInfo> user_;
  std::string whoami_error_;
  bool whoami_asked_ = false;
  std::map<std::string, NamespaceRules> rules_;       // by namespace
  std::map<uint64_t, std::string> rules_pending_;     // request id -> namespace
  std::map<std::string, std::string> count_refused_;  // kind key -> the 403 to its count LIST
  std::string namespaces_denied_;
  bool any_success_ = false;
  bool transport_failed_ = false;  // the last reply was a transport failure
  std::string last_error_;
  int64_t last_error_ms_ = 0;

  // selected_yaml()'s memo: the object and version it rendered.
  std::optional<ObjectRef> yaml_ref_;
  std::string yaml_version_;
  std::string yaml_text_;
};

}  // namespace console::app
