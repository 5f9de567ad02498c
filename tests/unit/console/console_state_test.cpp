#include "console/app/console_state.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fake_session.h"

using console::app::ConnectionState;
using console::app::ConsoleState;
using console::client::StreamState;
using console::testing::FakeSession;
using nlohmann::json;

namespace {

constexpr int64_t kNowMs = 1717243200000;  // 2024-06-01T12:00:00Z
constexpr const char* kDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

// A state that has discovered the small cluster of fake_session.h, listed namespaces default and
// team, and shows configmaps with three objects.
struct Fixture {
  FakeSession session;
  ConsoleState state{session};

  Fixture() {
    state.start(kNowMs);
    session.reply(session.find("GET", "/version"), 200, R"({"gitVersion":"v1.32.0"})");
    console::testing::answer_start(session, state, kNowMs);
    REQUIRE(state.discovered());
    REQUIRE(console::testing::show_configmaps(
        session, state, kNowMs,
        {console::testing::configmap_row("default", "cm1", "10"),
         console::testing::configmap_row("default", "cm2", "11"),
         console::testing::configmap_row("team", "conf", "12")},
        "12"));
  }

  std::vector<std::string> visible() const {
    std::vector<std::string> out;
    const auto& view = state.current()->table.view();
    for (uint32_t i : view.visible_rows()) {
      out.push_back(view.row(i).namespace_ + "/" + view.row(i).name);
    }
    return out;
  }
};

}  // namespace

TEST_CASE("start asks for the version and discovery and watches namespaces and CRDs",
          "[console][app][state]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  REQUIRE(session.requests.size() == 3);
  CHECK(session.requests[0].second.target == "/version");
  CHECK(session.requests[1].second.target == "/api");
  CHECK(session.requests[1].second.accept == kDiscoveryAccept);
  CHECK(session.requests[2].second.target == "/apis");
  REQUIRE(session.watched.size() == 2);
  CHECK(session.watched[0].key == "core/namespaces");
  CHECK(session.watched[0].path == "/api/v1/namespaces");
  CHECK(session.watched[0].table);
  CHECK(session.watched[1].key == "apiextensions.k8s.io/customresourcedefinitions");
  CHECK(session.watched[1].path == "/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
  CHECK(state.connection() == ConnectionState::Connecting);
  CHECK_FALSE(state.discovered());
}

TEST_CASE("discovery fills the tree and kinds are found by any of their names",
          "[console][app][state]") {
  Fixture f;
  CHECK(f.state.server_version() == "v1.32.0");
  CHECK(f.state.connection() == ConnectionState::Connected);
  for (const char* name :
       {"configmaps", "configmap", "cm", "ConfigMap", "core/configmaps", "v1/configmaps"}) {
    CAPTURE(name);
    const auto* r = f.state.find_kind(name);
    REQUIRE(r != nullptr);
    CHECK(r->key() == "core/configmaps");
  }
  for (const char* name : {"deployments", "deploy", "apps/deployments", "deployments.apps"}) {
    CAPTURE(name);
    const auto* r = f.state.find_kind(name);
    REQUIRE(r != nullptr);
    CHECK(r->key() == "apps/deployments");
  }
  CHECK(f.state.find_kind("widgets") == nullptr);
  CHECK_FALSE(f.state.select_kind("", "widgets"));
}

TEST_CASE("selecting a kind opens its stream and shows its rows in the chosen namespace",
          "[console][app][state]") {
  Fixture f;
  REQUIRE(f.session.watched.size() == 3);
  CHECK(f.session.watched[2].key == "core/configmaps");
  CHECK(f.session.watched[2].path == "/api/v1/configmaps");
  CHECK(f.visible() == std::vector<std::string>{"default/cm1", "default/cm2", "team/conf"});
  CHECK(f.state.current()->table.view().columns()[0].name == "Namespace");
  CHECK(f.state.namespaces().names() == std::vector<std::string>{"default", "team"});

  REQUIRE(f.state.select_namespace("team"));
  CHECK(f.visible() == std::vector<std::string>{"team/conf"});
  CHECK_FALSE(f.state.select_namespace("nowhere"));
  REQUIRE(f.state.select_namespace(""));

  f.state.set_filter("cm");
  CHECK(f.visible() == std::vector<std::string>{"default/cm1", "default/cm2"});
  const auto& tree = f.state.tree();
  CHECK(tree.find("", "configmaps")->count == 3u);
}

TEST_CASE("watch events update the table and the event log", "[console][app][state]") {
  Fixture f;
  f.session.event("core/configmaps", "ADDED", console::testing::configmap("default", "cm3", "13"),
                  json{"cm3", 1, "0s"});
  f.session.event("core/configmaps", "DELETED",
                  console::testing::configmap("default", "cm1", "14"));
  f.state.update(kNowMs + 50);
  CHECK(f.visible() == std::vector<std::string>{"default/cm2", "default/cm3", "team/conf"});
  const auto& log = f.state.events();
  REQUIRE(log.size() == 2);
  CHECK(log.at(0).type == "ADDED");
  CHECK(log.at(0).kind == "ConfigMap");
  CHECK(log.at(0).namespace_ == "default");
  CHECK(log.at(0).name == "cm3");
  CHECK(log.at(0).resource_version == "13");
  CHECK(log.at(1).type == "DELETED");
  CHECK(f.state.current()->events == 2);
}

TEST_CASE("messages from a replaced stream are ignored", "[console][app][state]") {
  Fixture f;
  console::client::StreamMessage old;
  old.type = console::client::StreamMessage::Type::Event;
  old.key = "core/configmaps";
  old.stream_id = 999;
  old.event_type = "ADDED";
  old.item.object = console::testing::configmap("default", "ghost", "50");
  f.session.messages.push_back(old);
  f.state.update(kNowMs);
  CHECK(f.state.events().size() == 0);
  CHECK(f.state.current()->table.cache().find("default", "ghost") == nullptr);
}

TEST_CASE("a retrying stream makes the connection degraded and says why", "[console][app][state]") {
  Fixture f;
  f.session.state("core/configmaps", StreamState::Retrying, "connecting to x: refused");
  f.state.update(kNowMs);
  CHECK(f.state.connection() == ConnectionState::Degraded);
  CHECK(f.state.last_error() == "connecting to x: refused");
  CHECK(f.state.current()->error == "connecting to x: refused");
  f.session.state("core/configmaps", StreamState::Watching);
  f.state.update(kNowMs);
  CHECK(f.state.connection() == ConnectionState::Connected);
}

TEST_CASE("the editor holds the apply form and apply sends a server-side apply",
          "[console][app][state]") {
  Fixture f;
  REQUIRE(f.state.select_object("default", "cm1"));
  REQUIRE(f.state.begin_edit());
  const std::string& text = f.state.editor_text();
  CHECK(text.find("managedFields") == std::string::npos);
  CHECK(text.find("resourceVersion") == std::string::npos);
  CHECK(text.find("uid") == std::string::npos);
  CHECK(text.find("  name: cm1\n") != std::string::npos);
  CHECK(text.find("  key: one\n") != std::string::npos);

  f.state.editor_text() += "  other: two\n";
  SECTION("refused: the Status shows and the text stays") {
    REQUIRE(f.state.apply());
    const uint64_t id = f.session.find("PATCH", "/api/v1/namespaces/default/configmaps/cm1");
    REQUIRE(id != 0);
    const auto& request = f.session.request(id);
    CHECK(request.target ==
          "/api/v1/namespaces/default/configmaps/cm1?fieldManager=kube-sandbox-console");
    CHECK(request.content_type == "application/apply-patch+yaml");
    CHECK(request.body == f.state.editor_text());
    CHECK(f.state.action_in_flight());
    CHECK_FALSE(f.state.apply());  // one at a time

    const json status = {
        {"kind", "Status"},
        {"status", "Failure"},
        {"reason", "Conflict"},
        {"code", 409},
        {"message", "Apply failed with 1 conflict: conflict with \"kubectl-create\": .data.key"},
        {"details",
         {{"causes",
           {{{"reason", "FieldManagerConflict"},
             {"message", "conflict with \"kubectl-create\""},
             {"field", ".data.key"}}}}}}};
    f.session.reply(id, 409, status.dump());
    f.state.update(kNowMs);
    CHECK_FALSE(f.state.action_in_flight());
    REQUIRE(f.state.action_result());
    const auto& result = *f.state.action_result();
    CHECK_FALSE(result.ok);
    REQUIRE(result.error);
    CHECK(result.error->http_status == 409);
    CHECK(result.error->reason == "Conflict");
    REQUIRE(result.error->causes.size() == 1);
    CHECK(result.error->causes[0].field == ".data.key");
    CHECK(result.error->causes[0].reason == "FieldManagerConflict");
    CHECK(f.state.editing());
    CHECK(f.state.editor_text().find("  other: two\n") != std::string::npos);
  }
  SECTION("forced and accepted: the editor closes") {
    f.state.force_apply() = true;
    REQUIRE(f.state.apply());
    const uint64_t id = f.session.find("PATCH", "/api/v1/namespaces/default/configmaps/cm1");
    CHECK(f.session.request(id).target ==
          "/api/v1/namespaces/default/configmaps/cm1?fieldManager=kube-sandbox-console"
          "&force=true");
    f.session.reply(id, 200, console::testing::configmap("default", "cm1", "20").dump());
    f.state.update(kNowMs);
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->ok);
    CHECK(f.state.action_result()->resource_version == "20");
    CHECK_FALSE(f.state.editing());
  }
  SECTION("YAML that does not parse is refused before sending") {
    f.state.editor_text() = "data: [unclosed\n";
    const size_t sent = f.session.requests.size();
    CHECK_FALSE(f.state.apply());
    CHECK(f.session.requests.size() == sent);
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->error->reason == "Invalid");
    CHECK(f.state.action_result()->error->message.rfind("the YAML does not parse: line ", 0) == 0);
    CHECK(f.state.editing());
  }
}

TEST_CASE("delete asks first, then sends DELETE", "[console][app][state]") {
  Fixture f;
  REQUIRE(f.state.select_object("team", "conf"));
  REQUIRE(f.state.request_delete());
  CHECK(f.state.delete_pending_confirmation());
  SECTION("cancelled") {
    f.state.cancel_delete();
    CHECK_FALSE(f.state.delete_pending_confirmation());
    CHECK(f.session.count("DELETE") == 0);
  }
  SECTION("confirmed") {
    REQUIRE(f.state.confirm_delete());
    const uint64_t id = f.session.find("DELETE", "/api/v1/namespaces/team/configmaps/conf");
    REQUIRE(id != 0);
    f.session.reply(id, 200, R"({"kind":"Status","status":"Success"})");
    f.state.update(kNowMs);
    REQUIRE(f.state.action_result());
    CHECK(f.state.action_result()->ok);
    CHECK(f.state.action_result()->action == "delete");
  }
}

TEST_CASE("a transport failure of an apply is shown as the error", "[console][app][state]") {
  Fixture f;
  REQUIRE(f.state.select_object("default", "cm2"));
  REQUIRE(f.state.begin_edit());
  REQUIRE(f.state.apply());
  f.session.fail(f.session.find("PATCH", "/api/v1/namespaces/default/configmaps/cm2"),
                 "PATCH ...: timed out");
  f.state.update(kNowMs);
  REQUIRE(f.state.action_result());
  CHECK(f.state.action_result()->error->http_status == 0);
  CHECK(f.state.action_result()->error->message == "PATCH ...: timed out");
  CHECK(f.state.connection() == ConnectionState::Degraded);
  CHECK(f.state.editing());
}

TEST_CASE("a deleted namespace sends the selector back to all namespaces",
          "[console][app][state]") {
  Fixture f;
  REQUIRE(f.state.select_namespace("team"));
  f.session.event("core/namespaces", "DELETED", console::testing::namespace_object("team", "30"));
  f.state.update(kNowMs);
  CHECK(f.state.namespaces().all_selected());
  CHECK(f.visible() == std::vector<std::string>{"default/cm1", "default/cm2", "team/conf"});
}

TEST_CASE("at most kMaxOpenKinds kinds are watched: the least recently shown closes",
          "[console][app][state]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  std::vector<json> resources;
  for (size_t i = 0; i < ConsoleState::kMaxOpenKinds + 2; ++i) {
    resources.push_back(console::testing::discovery_resource("kind" + std::to_string(i) + "s",
                                                             "Kind" + std::to_string(i), true));
  }
  session.reply(session.find("GET", "/api"), 200,
                console::testing::discovery_document("", resources).dump());
  session.reply(session.find("GET", "/apis"), 200,
                console::testing::discovery_document("x.io", {}).dump());
  state.update(kNowMs);
  for (size_t i = 0; i < ConsoleState::kMaxOpenKinds + 1; ++i) {
    state.update(kNowMs + static_cast<int64_t>(i));
    REQUIRE(state.select_kind("", "kind" + std::to_string(i) + "s"));
  }
  CHECK(session.unwatched == std::vector<std::string>{"core/kind0s"});
  CHECK(state.open_kinds().size() == ConsoleState::kMaxOpenKinds + 2);  // + namespaces, CRDs
}

TEST_CASE("a CRD that comes or goes makes the tree discover again, one request pair at a time",
          "[console][app][state]") {
  Fixture f;
  const std::string crds = "apiextensions.k8s.io/customresourcedefinitions";
  auto crd = [](const std::string& rv) {
    return json{{"apiVersion", "apiextensions.k8s.io/v1"},
                {"kind", "CustomResourceDefinition"},
                {"metadata", {{"name", "widgets.example.com"}, {"resourceVersion", rv}}}};
  };
  auto discoveries = [&] {
    size_t n = 0;
    for (const auto& [id, request] : f.session.requests) {
      n += request.target == "/apis" ? 1 : 0;
    }
    return n;
  };
  auto answer_discovery = [&](bool with_widgets) {
    json groups = with_widgets ? console::testing::apps_and_widgets_discovery()
                               : console::testing::apps_discovery();
    f.session.reply(f.session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
    f.session.reply(f.session.find("GET", "/apis"), 200, groups.dump());
    f.state.update(kNowMs);
  };
  REQUIRE(f.state.find_kind("widgets") == nullptr);
  f.session.listed(crds, nullptr, {}, "20");
  f.state.update(kNowMs);
  REQUIRE(discoveries() == 2);  // the list may hold CRDs established after the first discovery
  answer_discovery(false);

  // Two changes while a discovery is in flight: one more pair once it is in, not two.
  f.session.event(crds, "ADDED", crd("21"));
  f.state.update(kNowMs);
  REQUIRE(discoveries() == 3);
  f.session.event(crds, "MODIFIED", crd("22"));
  f.state.update(kNowMs);
  CHECK(discoveries() == 3);
  answer_discovery(false);
  CHECK(discoveries() == 4);
  answer_discovery(true);
  CHECK(discoveries() == 4);
  REQUIRE(f.state.find_kind("widgets") != nullptr);
  CHECK(f.state.find_kind("widgets")->key() == "example.com/widgets");

  f.session.event(crds, "DELETED", crd("23"));
  f.state.update(kNowMs);
  REQUIRE(discoveries() == 5);
  answer_discovery(false);
  CHECK(f.state.find_kind("widgets") == nullptr);
}

TEST_CASE("the state dump says what a test needs to know", "[console][app][state]") {
  Fixture f;
  f.state.set_filter("app=web");
  f.session.event("core/configmaps", "ADDED", console::testing::configmap("default", "x", "40"));
  f.state.update(kNowMs);
  const json dump = f.state.dump();
  CHECK(dump["server"] == "https://127.0.0.1:6443");
  CHECK(dump["serverVersion"] == "v1.32.0");
  CHECK(dump["connection"] == "connected");
  CHECK(dump["kind"] == "core/configmaps");
  CHECK(dump["namespaces"] == json{"default", "team"});
  const json& kind = dump["kinds"]["core/configmaps"];
  CHECK(kind["objects"] == 4);
  CHECK(kind["rows"] == 4);
  CHECK(kind["visibleRows"] == 0);
  CHECK(kind["filter"] == "app=web");
  CHECK(kind["columns"] == json{"Namespace", "Name", "Data", "Age"});
  CHECK(dump["events"]["list"][0] == json{{"type", "ADDED"},
                                          {"kind", "ConfigMap"},
                                          {"namespace", "default"},
                                          {"name", "x"},
                                          {"resourceVersion", "40"}});
  CHECK(dump["selected"].is_null());
  CHECK(dump["lastAction"].is_null());
}

TEST_CASE("status bodies, apply forms and paths", "[console][app]") {
  const auto error = console::app::parse_status(
      422,
      R"({"kind":"Status","reason":"Invalid","message":"bad","details":{"causes":[)"
      R"({"reason":"FieldValueInvalid","message":"must be short","field":"metadata.name"}]}})");
  CHECK(error.reason == "Invalid");
  CHECK(error.message == "bad");
  REQUIRE(error.causes.size() == 1);
  CHECK(error.causes[0].field == "metadata.name");
  const auto plain = console::app::parse_status(502, "Bad Gateway");
  CHECK(plain.reason.empty());
  CHECK(plain.message == "HTTP 502: Bad Gateway");

  json object = console::testing::configmap("default", "a", "5");
  object["status"] = {{"x", 1}};
  const json form = console::app::apply_form(object);
  CHECK_FALSE(form.contains("status"));
  CHECK(form["metadata"] == json{{"namespace", "default"}, {"name", "a"}});

  json target = {{"data", {{"a", "1"}}}};
  CHECK(console::app::set_path(target, "data.b", "2"));
  CHECK(console::app::set_path(target, "metadata.labels.app", "web"));
  CHECK(target ==
        json{{"data", {{"a", "1"}, {"b", "2"}}}, {"metadata", {{"labels", {{"app", "web"}}}}}});
  CHECK_FALSE(console::app::set_path(target, "data.a.deeper", "x"));
  CHECK_FALSE(console::app::set_path(target, "data..x", "x"));

  console::model::ApiResource deployments;
  deployments.group = "apps";
  deployments.version = "v1";
  deployments.resource = "deployments";
  deployments.namespaced = true;
  CHECK(console::app::collection_path(deployments) == "/apis/apps/v1/deployments");
  CHECK(console::app::object_path(deployments, "web", "front") ==
        "/apis/apps/v1/namespaces/web/deployments/front");
  console::model::ApiResource nodes;
  nodes.version = "v1";
  nodes.resource = "nodes";
  CHECK(console::app::object_path(nodes, "", "n1") == "/api/v1/nodes/n1");
}

TEST_CASE("kinds not followed are counted with LIST limit=1, a few at a time, in the namespace",
          "[console][app][state]") {
  // The round began once discovery came, before configmaps were opened; tree order is by name.
  Fixture f;
  auto counts_sent = [&] {
    std::vector<std::string> out;
    for (const auto& [id, request] : f.session.requests) {
      if (request.target.ends_with("?limit=1")) {
        out.push_back(request.target);
      }
    }
    return out;
  };
  REQUIRE(counts_sent() == std::vector<std::string>{"/api/v1/configmaps?limit=1",
                                                    "/api/v1/nodes?limit=1"});
  f.session.reply(f.session.find("GET", "/api/v1/configmaps"), 200,
                  R"({"items":[{}],"metadata":{"remainingItemCount":40}})");
  f.session.reply(f.session.find("GET", "/api/v1/nodes"), 403, R"({"kind":"Status"})");
  f.state.update(kNowMs + 1);
  CHECK(f.state.tree().find("", "configmaps")->count == std::optional<size_t>(3));  // its table
  CHECK_FALSE(f.state.tree().find("", "nodes")->count.has_value());  // may not list: no count
  CHECK(f.state.last_error().empty());
  REQUIRE(counts_sent().size() == 4);
  CHECK(counts_sent()[2] == "/api/v1/pods?limit=1");
  CHECK(counts_sent()[3] == "/apis/apps/v1/deployments?limit=1");
  f.session.reply(f.session.find("GET", "/api/v1/pods"), 200,
                  R"({"items":[{}],"metadata":{"remainingItemCount":4}})");
  f.session.reply(f.session.find("GET", "/apis/apps/v1/deployments"), 200,
                  R"({"items":[],"metadata":{}})");
  f.state.update(kNowMs + 2);
  CHECK(f.state.tree().find("", "pods")->count == std::optional<size_t>(5));
  CHECK(f.state.tree().find("apps", "deployments")->count == std::optional<size_t>(0));
  CHECK(counts_sent().size() == 4);  // the round is over; the next one waits for its time
  f.state.update(kNowMs + ConsoleState::kCountIntervalMs);
  CHECK(counts_sent().size() == 6);  // configmaps is followed now: not counted this way

  // Another namespace counts again at once, in it (cluster-scoped kinds stay cluster-wide).
  f.session.reply(f.session.find("GET", "/api/v1/nodes"), 403, R"({"kind":"Status"})");
  f.session.reply(f.session.find("GET", "/api/v1/pods"), 200, R"({"items":[]})");
  REQUIRE(f.state.select_namespace("team"));
  f.state.update(kNowMs + ConsoleState::kCountIntervalMs + 1);
  const auto sent = counts_sent();
  REQUIRE(sent.size() == 8);
  CHECK(sent[6] == "/api/v1/nodes?limit=1");
  CHECK(sent[7] == "/api/v1/namespaces/team/pods?limit=1");
}
