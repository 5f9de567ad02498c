// Script commands for favourites, pane sizes, history, create, duplicate and replace.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "console/app/script.h"
#include "fake_session.h"

using console::app::ConsoleState;
using console::app::parse_script;
using console::app::ScriptRunner;
using console::app::ScriptStep;
using console::testing::FakeSession;
using nlohmann::json;

namespace {

constexpr int64_t kNowMs = 1717243200000;

// A console that has discovered the fake cluster and listed namespaces default and team.
struct Discovered {
  FakeSession session;
  ConsoleState state{session};
  int64_t now = kNowMs;

  Discovered() {
    state.start(now);
    console::testing::answer_start(session, state, now);
  }

  // Runs `text` a frame at a time until it stops; `serve` plays the server before each frame.
  template <class Serve>
  ScriptStep run(const std::string& text, Serve serve) {
    auto commands = parse_script(text);
    INFO((commands.ok() ? "" : commands.error()));
    REQUIRE(commands.ok());
    ScriptRunner runner(std::move(*commands), {});
    return console::testing::run_until_stop(runner, state, now, serve);
  }
  ScriptStep run(const std::string& text) {
    return run(text, [] {});
  }
};

}  // namespace

TEST_CASE("favourite pins and unpins a kind by any of its names", "[console][script]") {
  Discovered c;
  const ScriptStep step = c.run(
      "favourite deploy on\n"
      "favourite cm on\n"
      "favourite configmaps off\n");
  INFO(step.message);
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  CHECK(c.state.is_favourite("apps/deployments"));
  CHECK_FALSE(c.state.is_favourite("core/configmaps"));
  const json dump = c.state.dump();
  CHECK(dump["favourites"]["keys"] == json{"apps/deployments"});
  CHECK(dump["favourites"]["pinned"] == json{"apps/deployments"});
}

TEST_CASE("favourite and pane refuse what they cannot do", "[console][script]") {
  const auto [text, message] = GENERATE(table<std::string, std::string>({
      {"favourite widgets on",
       "script line 1 (favourite widgets on): discovery lists no kind "
       "named \"widgets\""},
      {"favourite cm maybe",
       "script line 1 (favourite cm maybe): favourite takes a kind and on "
       "or off"},
      {"pane middle 30", "script line 1 (pane middle 30): pane takes tree, object or watch"},
      {"pane tree -3", "script line 1 (pane tree -3): not a size in pixels: -3"},
  }));
  CAPTURE(text);
  Discovered c;
  const ScriptStep step = c.run(text + "\n");
  CHECK(step.kind == ScriptStep::Kind::Failed);
  CHECK(step.message == message);
}

TEST_CASE("pane sets the size a splitter would, 0 the default", "[console][script]") {
  Discovered c;
  const ScriptStep step = c.run("pane tree 300\npane watch 180\npane object 420\npane watch 0\n");
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  const auto& panes = c.state.view_options().panes;
  CHECK(panes.tree_width == 300);
  CHECK(panes.object_width == 420);
  CHECK(panes.watch_height == 0);
}

TEST_CASE("select-event waits for the event, then opens the latest such one",
          "[console][script][history]") {
  Discovered c;
  int frame = 0;
  const ScriptStep step = c.run(
      "select-kind configmaps\n"
      "select-event MODIFIED configmaps default/cm1\n",
      [&] {
        ++frame;
        if (frame == 2) {
          c.session.listed("core/configmaps", console::testing::configmap_columns(),
                           {console::testing::configmap_row("default", "cm1", "10")}, "10");
        }
        if (frame == 10) {  // two in one frame: the later one opens
          c.session.event("core/configmaps", "MODIFIED",
                          console::testing::configmap("default", "cm1", "11", {{"key", "two"}}));
          c.session.event("core/configmaps", "MODIFIED",
                          console::testing::configmap("default", "cm1", "12", {{"key", "three"}}));
        }
      });
  INFO(step.message);
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  CHECK(frame == 11);  // the events came in frame 10; the script ended in the next
  const auto& h = c.state.event_history();
  REQUIRE(h);
  CHECK(h->event.resource_version == "12");
  CHECK(h->previous_resource_version == "11");
}

TEST_CASE("cancel closes an opened event", "[console][script][history]") {
  Discovered c;
  c.state.select_kind("", "configmaps");
  c.session.listed("core/configmaps", console::testing::configmap_columns(),
                   {console::testing::configmap_row("default", "cm1", "10")}, "10");
  c.session.event("core/configmaps", "ADDED", console::testing::configmap("default", "cm2", "11"));
  c.state.update(c.now);
  const ScriptStep step = c.run("select-event added cm default/cm2\ncancel\n");
  INFO(step.message);
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  CHECK_FALSE(c.state.event_history());
}

TEST_CASE("new, create, duplicate and replace drive the editor and wait for the answers",
          "[console][script][create]") {
  Discovered c;
  int frame = 0;
  std::set<uint64_t> answered;
  // Answers a request to `path` once: `status` with `body` (the request's own body when null).
  const auto answer = [&](const char* method, const char* path, int status, json body) {
    const uint64_t id = c.session.find(method, path);
    if (id == 0 || !answered.insert(id).second) {
      return json();
    }
    const json sent = json::parse(c.session.request(id).body);
    c.session.reply(id, status, (body.is_null() ? sent : body).dump());
    return sent;
  };
  json created;
  json duplicated;
  json replaced;
  const ScriptStep step = c.run(
      "select-kind configmaps\n"
      "namespace team\n"
      "new\n"
      "edit-set data.key from-template\n"
      "create\n"
      "expect-apply ok\n"
      "namespace default\n"
      "open default/cm1\n"
      "duplicate\n"
      "create\n"
      "expect-apply AlreadyExists\n"
      "cancel\n"
      "edit\n"
      "replace\n"
      "expect-apply Conflict\n",
      [&] {
        ++frame;
        if (frame == 2) {
          c.session.listed("core/configmaps", console::testing::configmap_columns(),
                           {console::testing::configmap_row("default", "cm1", "10")}, "10");
        }
        if (json sent = answer("POST", "/api/v1/namespaces/team/configmaps", 201, nullptr);
            !sent.is_null()) {
          created = sent;
        }
        if (json sent = answer("POST", "/api/v1/namespaces/default/configmaps", 409,
                               {{"kind", "Status"},
                                {"reason", "AlreadyExists"},
                                {"code", 409},
                                {"message", "configmaps \"cm1-copy\" already exists"}});
            !sent.is_null()) {
          duplicated = sent;
        }
        if (json sent = answer("PUT", "/api/v1/namespaces/default/configmaps/cm1", 409,
                               {{"kind", "Status"},
                                {"reason", "Conflict"},
                                {"code", 409},
                                {"message", "the object has been modified"}});
            !sent.is_null()) {
          replaced = sent;
        }
      });
  INFO(step.message);
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  CHECK(created["metadata"] == json{{"name", "new-configmap"}, {"namespace", "team"}});
  CHECK(created["data"]["key"] == "from-template");
  CHECK(duplicated["metadata"]["name"] == "cm1-copy");
  CHECK(replaced["metadata"]["resourceVersion"] == "10");
  CHECK(c.state.editing());  // the refused replace keeps the editor and its text
  CHECK(c.state.action_result()->action == "replace");
}

TEST_CASE("new and duplicate refuse to replace an open editor", "[console][script][create]") {
  Discovered c;
  c.state.select_kind("", "configmaps");
  c.session.listed("core/configmaps", console::testing::configmap_columns(),
                   {console::testing::configmap_row("default", "cm1", "10")}, "10");
  c.state.update(c.now);
  REQUIRE(c.state.select_object("default", "cm1"));
  REQUIRE(c.state.begin_edit());
  const ScriptStep step = c.run("new\n");
  CHECK(step.kind == ScriptStep::Kind::Failed);
  CHECK(step.message == "script line 1 (new): the editor is open (cancel it first)");
  const ScriptStep create = c.run("create\n");
  CHECK(create.message ==
        "script line 1 (create): nothing to create (new or duplicate first; or one is in flight)");
}
