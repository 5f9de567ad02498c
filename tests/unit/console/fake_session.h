// A Session with no network for the console's state tests: it records what the state asks for,
// and the test plays the server's part by queueing stream messages and replies.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "console/app/console_state.h"
#include "console/app/script.h"
#include "console/client/session.h"

namespace console::testing {

using nlohmann::json;

class FakeSession final : public client::Session {
 public:
  FakeSession() {
    access_.context = "test";
    access_.server = "https://127.0.0.1:6443";
  }

  uint64_t watch(client::WatchTarget target) override {
    target.stream_id = next_stream_++;
    watched.push_back(target);
    return target.stream_id;
  }
  void unwatch(const std::string& key) override { unwatched.push_back(key); }
  uint64_t submit(client::Request request) override {
    if (refuse_requests) {
      return 0;
    }
    requests.emplace_back(next_request_, std::move(request));
    return next_request_++;
  }
  void drain(std::vector<client::StreamMessage>& out, size_t max,
             std::vector<client::ApiReply>& out_replies) override {
    size_t n = 0;
    while (n < max && n < messages.size()) {
      out.push_back(std::move(messages[n++]));
    }
    messages.erase(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(n));
    for (auto& r : replies) {
      out_replies.push_back(std::move(r));
    }
    replies.clear();
  }
  size_t requests_in_flight() const override { return 0; }
  uint64_t dropped_messages() const override { return 0; }
  const client::ClusterAccess& access() const override { return access_; }

  // --- the server's part
  // The id of the last request for `path` (its query aside); 0 when none.
  uint64_t find(const std::string& method, const std::string& path) const {
    for (auto it = requests.rbegin(); it != requests.rend(); ++it) {
      const std::string& target = it->second.target;
      if (it->second.method == method && target.substr(0, target.find('?')) == path) {
        return it->first;
      }
    }
    return 0;
  }
  size_t count(const std::string& method) const {
    size_t n = 0;
    for (const auto& [id, r] : requests) {
      n += r.method == method ? 1 : 0;
    }
    return n;
  }
  const client::Request& request(uint64_t id) const {
    for (const auto& [rid, r] : requests) {
      if (rid == id) {
        return r;
      }
    }
    throw std::out_of_range("no request " + std::to_string(id));
  }
  void reply(uint64_t id, int status, const std::string& body) {
    client::ApiReply r;
    r.id = id;
    r.sent = true;
    r.response.status = status;
    r.response.body = body;
    replies.push_back(std::move(r));
  }
  void fail(uint64_t id, const std::string& error) {
    client::ApiReply r;
    r.id = id;
    r.error = error;
    replies.push_back(std::move(r));
  }
  uint64_t stream(const std::string& key) const {
    for (auto it = watched.rbegin(); it != watched.rend(); ++it) {
      if (it->key == key) {
        return it->stream_id;
      }
    }
    return 0;
  }
  void listed(const std::string& key, json columns, std::vector<client::TableRowData> rows,
              const std::string& rv) {
    client::StreamMessage m;
    m.type = client::StreamMessage::Type::Listed;
    m.key = key;
    m.stream_id = stream(key);
    m.columns = std::move(columns);
    m.rows = std::move(rows);
    m.resource_version = rv;
    messages.push_back(std::move(m));
  }
  void event(const std::string& key, const std::string& type, json object, json cells = nullptr) {
    client::StreamMessage m;
    m.type = client::StreamMessage::Type::Event;
    m.key = key;
    m.stream_id = stream(key);
    m.event_type = type;
    m.item = {std::move(object), std::move(cells)};
    messages.push_back(std::move(m));
  }
  void state(const std::string& key, client::StreamState state, const std::string& error = "",
             int http_status = 0) {
    client::StreamMessage m;
    m.type = client::StreamMessage::Type::State;
    m.key = key;
    m.stream_id = stream(key);
    m.state = state;
    m.error = error;
    m.http_status = http_status;
    messages.push_back(std::move(m));
  }

  std::vector<client::WatchTarget> watched;
  std::vector<std::string> unwatched;
  std::vector<std::pair<uint64_t, client::Request>> requests;
  std::vector<client::StreamMessage> messages;
  std::vector<client::ApiReply> replies;
  bool refuse_requests = false;

 private:
  client::ClusterAccess access_;
  uint64_t next_stream_ = 1;
  uint64_t next_request_ = 1;
};

// Aggregated discovery documents for a small cluster: core v1 (namespaces, configmaps, pods,
// nodes) and apps/v1 (deployments).
inline json discovery_resource(const std::string& plural, const std::string& kind, bool namespaced,
                               std::vector<std::string> short_names = {}) {
  return {{"resource", plural},
          {"responseKind", {{"group", ""}, {"version", ""}, {"kind", kind}}},
          {"scope", namespaced ? "Namespaced" : "Cluster"},
          {"singularResource", plural.substr(0, plural.size() - 1)},
          {"shortNames", short_names},
          {"verbs", {"create", "delete", "get", "list", "patch", "update", "watch"}}};
}

inline json discovery_document(const std::string& group, const std::vector<json>& resources) {
  json item = {{"metadata", json::object()},
               {"versions", std::vector<json>{{{"version", "v1"}, {"resources", resources}}}}};
  if (!group.empty()) {
    item["metadata"]["name"] = group;
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/v2"},
          {"items", std::vector<json>{item}}};
}

inline json core_discovery() {
  return discovery_document("", {discovery_resource("namespaces", "Namespace", false, {"ns"}),
                                 discovery_resource("configmaps", "ConfigMap", true, {"cm"}),
                                 discovery_resource("pods", "Pod", true, {"po"}),
                                 discovery_resource("nodes", "Node", false, {"no"})});
}

inline json apps_discovery() {
  return discovery_document("apps",
                            {discovery_resource("deployments", "Deployment", true, {"deploy"})});
}

// apps_discovery() and the custom group example.com with widgets, as once a CRD is established.
inline json apps_and_widgets_discovery() {
  json groups = apps_discovery();
  groups["items"].push_back(discovery_document(
      "example.com", {discovery_resource("widgets", "Widget", true)})["items"][0]);
  return groups;
}

inline json configmap_columns() {
  return json::array({{{"name", "Name"}, {"type", "string"}, {"format", "name"}},
                      {{"name", "Data"}, {"type", "integer"}, {"format", ""}},
                      {{"name", "Age"}, {"type", "string"}, {"format", ""}}});
}

inline json configmap(const std::string& ns, const std::string& name, const std::string& rv,
                      json data = {{"key", "one"}}) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"namespace", ns},
            {"name", name},
            {"resourceVersion", rv},
            {"uid", "u-" + name},
            {"creationTimestamp", "2024-06-01T11:55:00Z"},
            {"managedFields",
             {{{"manager", "kubectl-create"}, {"operation", "Update"}, {"apiVersion", "v1"}}}}}},
          {"data", std::move(data)}};
}

inline client::TableRowData configmap_row(const std::string& ns, const std::string& name,
                                          const std::string& rv) {
  return {configmap(ns, name, rv), json{name, 1, "5m"}};
}

inline json namespace_object(const std::string& name, const std::string& rv) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}, {"resourceVersion", rv}}}};
}

// Plays what a console hears first from the small cluster after start(): discovery, and the
// namespaces listed (resourceVersions 1, 2, ... in order); then one update.
inline void answer_start(FakeSession& session, app::ConsoleState& state, int64_t now,
                         const std::vector<std::string>& namespaces = {"default", "team"}) {
  session.reply(session.find("GET", "/api"), 200, core_discovery().dump());
  session.reply(session.find("GET", "/apis"), 200, apps_discovery().dump());
  std::vector<client::TableRowData> rows;
  for (size_t i = 0; i < namespaces.size(); ++i) {
    rows.push_back({namespace_object(namespaces[i], std::to_string(i + 1)), nullptr});
  }
  session.listed("core/namespaces", nullptr, std::move(rows), std::to_string(namespaces.size()));
  state.update(now);
}

// Shows configmaps, listed with `rows` at resourceVersion `rv`; false when the kind is unknown.
inline bool show_configmaps(FakeSession& session, app::ConsoleState& state, int64_t now,
                            std::vector<client::TableRowData> rows, const std::string& rv) {
  if (!state.select_kind("", "configmaps")) {
    return false;
  }
  session.listed("core/configmaps", configmap_columns(), std::move(rows), rv);
  state.update(now);
  return true;
}

// Steps `runner` a frame at a time (10 ms apart) until it stops doing Continue, playing the
// server's part through `serve` before each frame; throws when it never stops.
template <class Serve>
app::ScriptStep run_until_stop(app::ScriptRunner& runner, app::ConsoleState& state, int64_t& now,
                               Serve serve, int max_frames = 2000) {
  for (int frame = 0; frame < max_frames; ++frame) {
    serve();
    state.update(now);
    app::ScriptStep step = runner.step(state, now);
    now += 10;
    if (step.kind != app::ScriptStep::Kind::Continue) {
      return step;
    }
  }
  throw std::logic_error("the script did not stop");
}

// A console that has discovered the small cluster and shows configmaps, listed with default/cm1
// at resourceVersion 10 (`now` is the time it was fed at).
struct ShowingConfigMaps {
  static constexpr int64_t now = 1717243200000;  // 2024-06-01T12:00:00Z
  FakeSession session;
  app::ConsoleState state{session};

  explicit ShowingConfigMaps(const std::vector<std::string>& namespaces = {"default", "team"}) {
    state.start(now);
    answer_start(session, state, now, namespaces);
    if (!show_configmaps(session, state, now, {configmap_row("default", "cm1", "10")}, "10")) {
      throw std::logic_error("the fake cluster has no configmaps");
    }
  }
};

}  // namespace console::testing
