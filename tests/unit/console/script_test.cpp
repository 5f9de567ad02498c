#include "console/app/script.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fake_session.h"

using console::app::ConsoleState;
using console::app::parse_script;
using console::app::ScriptOptions;
using console::app::ScriptRunner;
using console::app::ScriptStep;
using console::testing::FakeSession;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kNowMs = 1717243200000;

ScriptRunner runner_for(const std::string& text, ScriptOptions options = {}) {
  auto commands = parse_script(text);
  INFO((commands.ok() ? "" : commands.error()));
  REQUIRE(commands.ok());
  return ScriptRunner(std::move(*commands), std::move(options));
}

using console::testing::run_until_stop;

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ks-script-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("scripts parse one command per line with quotes and comments", "[console][script]") {
  const auto commands = parse_script(
      "# a comment\n"
      "\n"
      "select-kind configmaps\n"
      "  filter app in (web, db)  \n"
      "edit-set data.key \"two words\\n\"\n"
      "wait-event ADDED cm default/x\n");
  INFO((commands.ok() ? "" : commands.error()));
  REQUIRE(commands.ok());
  REQUIRE(commands->size() == 4);
  CHECK((*commands)[0].line == 3);
  CHECK((*commands)[0].args == std::vector<std::string>{"configmaps"});
  CHECK((*commands)[1].args == std::vector<std::string>{"app in (web, db)"});
  CHECK((*commands)[2].args == std::vector<std::string>{"data.key", "two words\n"});
  CHECK((*commands)[3].args.size() == 3);
}

TEST_CASE("script errors name the line", "[console][script]") {
  using Case = std::pair<const char*, const char*>;
  const auto [text, message] =
      GENERATE(Case{"quit\nslect-kind pods\n", "line 2: unknown command \"slect-kind\""},
               Case{"wait-rows\n", "line 1: wait-rows takes 1 argument, not 0"},
               Case{"wait-event ADDED pods\n", "line 1: wait-event takes 3 arguments, not 2"},
               Case{"edit-text \"open\n", "line 1: unclosed quote"});
  CAPTURE(text);
  const auto commands = parse_script(text);
  REQUIRE_FALSE(commands.ok());
  CHECK(commands.error() == message);
}

TEST_CASE("a script drives the console: kinds, waits, an edit and its apply", "[console][script]") {
  Scratch scratch;
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  int64_t now = kNowMs;
  ScriptOptions options;
  options.state_dump_path = (scratch.dir / "state.json").string();
  ScriptRunner runner = runner_for(
      "timeout 5\n"
      "select-kind cm\n"
      "namespace default\n"
      "wait-rows 1\n"
      "wait-event ADDED configmaps default/late\n"
      "wait-rows 2\n"
      "open default/cm1\n"
      "edit\n"
      "edit-set data.key changed\n"
      "apply\n"
      "expect-apply Conflict\n"
      "force on\n"
      "apply\n"
      "expect-apply ok\n"
      "dump-state\n"
      "quit\n"
      "wait-rows 99\n",
      options);
  int frame = 0;
  uint64_t patched = 0;
  auto serve = [&] {
    ++frame;
    if (frame == 3) {  // discovery arrives a little late
      session.reply(session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
      session.reply(session.find("GET", "/apis"), 200, console::testing::apps_discovery().dump());
      session.listed("core/namespaces", nullptr,
                     {{console::testing::namespace_object("default", "1"), nullptr}}, "1");
    }
    if (session.stream("core/configmaps") != 0 && frame < 100 &&
        state.open_kinds().count("core/configmaps") != 0 &&
        !state.open_kinds().at("core/configmaps").table.listed() && session.messages.empty()) {
      session.listed("core/configmaps", console::testing::configmap_columns(),
                     {console::testing::configmap_row("default", "cm1", "10")}, "10");
    }
    if (frame == 20) {
      session.event("core/configmaps", "ADDED",
                    console::testing::configmap("default", "late", "11"), json{"late", 1, "0s"});
    }
    const uint64_t patch = session.find("PATCH", "/api/v1/namespaces/default/configmaps/cm1");
    if (patch != 0 && patch != patched) {
      patched = patch;
      const bool forced = session.request(patch).target.find("&force=true") != std::string::npos;
      if (forced) {
        session.reply(patch, 200, console::testing::configmap("default", "cm1", "12").dump());
      } else {
        session.reply(patch, 409,
                      R"({"kind":"Status","reason":"Conflict","message":"conflict","code":409})");
      }
    }
  };
  const ScriptStep step = run_until_stop(runner, state, now, serve);
  INFO(step.message);
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  const auto& body = session.request(patched).body;
  CHECK(body.find("  key: changed\n") != std::string::npos);
  std::ifstream in(options.state_dump_path);
  const json dump = json::parse(in);
  CHECK(dump["kinds"]["core/configmaps"]["visible"] == json{"default/cm1", "default/late"});
  CHECK(dump["lastAction"]["ok"] == true);
  CHECK(dump["namespace"] == "default");
}

TEST_CASE("a wait that is never met fails the run with what was seen", "[console][script]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  session.reply(session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
  session.reply(session.find("GET", "/apis"), 200, console::testing::apps_discovery().dump());
  int64_t now = kNowMs;
  ScriptRunner runner = runner_for("timeout 1\nselect-kind configmaps\nwait-rows 3\n");
  bool listed = false;
  const ScriptStep step = run_until_stop(runner, state, now, [&] {
    if (!listed && session.stream("core/configmaps") != 0) {
      listed = true;
      session.listed("core/configmaps", console::testing::configmap_columns(),
                     {console::testing::configmap_row("default", "cm1", "10")}, "10");
    }
  });
  REQUIRE(step.kind == ScriptStep::Kind::Failed);
  CHECK(step.message == "script line 3 (wait-rows 3): timed out after 1 s: the table shows 1 rows");
}

TEST_CASE("commands that cannot act fail at once with a reason", "[console][script]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  session.reply(session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
  session.reply(session.find("GET", "/apis"), 200, console::testing::apps_discovery().dump());
  int64_t now = kNowMs;
  using Case = std::pair<const char*, const char*>;
  const auto [text, message] = GENERATE(
      Case{"select-kind widgets\n",
           "script line 1 (select-kind widgets): discovery lists no kind named \"widgets\""},
      Case{"edit\n", "script line 1 (edit): no object is open to edit"},
      Case{"edit-set a b\n", "script line 1 (edit-set a b): the editor is not open (edit first)"},
      Case{"screenshot x\n", "script line 1 (screenshot x): screenshot needs --screenshot-dir"},
      Case{"expect-apply ok\n",
           "script line 1 (expect-apply ok): expected ok; no apply, create, replace or delete "
           "has been answered"});
  CAPTURE(text);
  ScriptRunner runner = runner_for(text);
  const ScriptStep step = run_until_stop(runner, state, now, [] {});
  REQUIRE(step.kind == ScriptStep::Kind::Failed);
  CHECK(step.message == message);
}

TEST_CASE("screenshots come after the frames settle, named in the screenshot dir",
          "[console][script]") {
  FakeSession session;
  ConsoleState state(session);
  ScriptOptions options;
  options.screenshot_dir = "/shots";
  options.settle_frames = 2;
  ScriptRunner runner = runner_for("help on\nscreenshot main\n", options);
  int64_t now = kNowMs;
  CHECK(runner.step(state, now).kind == ScriptStep::Kind::Continue);  // help on
  CHECK(state.view_options().show_help);
  CHECK(runner.step(state, now).kind == ScriptStep::Kind::Continue);
  CHECK(runner.step(state, now).kind == ScriptStep::Kind::Continue);
  const ScriptStep shot = runner.step(state, now);
  CHECK(shot.kind == ScriptStep::Kind::Screenshot);
  CHECK(shot.path == "/shots/main.png");
  CHECK(runner.step(state, now).kind == ScriptStep::Kind::Done);
}

TEST_CASE("scroll moves the selection a number of rows in each of a number of frames",
          "[console][script]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  session.reply(session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
  session.reply(session.find("GET", "/apis"), 200, console::testing::apps_discovery().dump());
  session.listed("core/namespaces", nullptr,
                 {{console::testing::namespace_object("default", "1"), nullptr}}, "1");
  int64_t now = kNowMs;
  ScriptRunner runner = runner_for(
      "timeout 5\nselect-kind cm\nnamespace default\nwait-rows 6\nscroll 2 2\nframes 1\n"
      "scroll -10 1\n");
  std::vector<std::string> seen;  // the selection after each frame of the scrolls
  bool listed = false;
  for (int frame = 0; frame < 100; ++frame) {
    if (!listed && session.stream("core/configmaps") != 0) {
      listed = true;
      std::vector<console::client::TableRowData> rows;
      for (int i = 0; i < 6; ++i) {
        rows.push_back(console::testing::configmap_row("default", "cm" + std::to_string(i), "10"));
      }
      session.listed("core/configmaps", console::testing::configmap_columns(), std::move(rows),
                     "10");
    }
    state.update(now);
    const size_t line = runner.current_line();
    const ScriptStep step = runner.step(state, now);
    now += 10;
    if ((line == 5 || line == 7) && state.selected_ref()) {
      seen.push_back(state.selected_ref()->name);
    }
    if (step.kind != ScriptStep::Kind::Continue) {
      INFO(step.message);
      REQUIRE(step.kind == ScriptStep::Kind::Done);
      break;
    }
  }
  CHECK(seen == std::vector<std::string>{"cm1", "cm3", "cm0"});
}

TEST_CASE("scroll wants a row count and a positive frame count", "[console][script]") {
  FakeSession session;
  ConsoleState state(session);
  int64_t now = kNowMs;
  using Case = std::pair<const char*, const char*>;
  const auto [text, message] =
      GENERATE(Case{"scroll x 3\n", "script line 1 (scroll x 3): not a row count: x"},
               Case{"scroll 3 0\n", "script line 1 (scroll 3 0): not a frame count: 0"},
               Case{"scroll 3 2\n", "script line 1 (scroll 3 2): no kind is shown"});
  CAPTURE(text);
  ScriptRunner runner = runner_for(text);
  const ScriptStep step = run_until_stop(runner, state, now, [] {});
  REQUIRE(step.kind == ScriptStep::Kind::Failed);
  CHECK(step.message == message);
}

TEST_CASE("wait-kind and wait-no-kind follow discovery as CRDs come and go", "[console][script]") {
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  int64_t now = kNowMs;
  ScriptRunner runner = runner_for(
      "timeout 5\n"
      "wait-kind widgets\n"
      "wait-no-kind widgets\n"
      "quit\n");
  const std::string crds = "apiextensions.k8s.io/customresourcedefinitions";
  json crd = {{"metadata", {{"name", "widgets.example.com"}, {"resourceVersion", "5"}}}};
  int frame = 0;
  auto answer_discovery = [&](bool with_widgets) {
    json groups = with_widgets ? console::testing::apps_and_widgets_discovery()
                               : console::testing::apps_discovery();
    session.reply(session.find("GET", "/api"), 200, console::testing::core_discovery().dump());
    session.reply(session.find("GET", "/apis"), 200, groups.dump());
  };
  auto serve = [&] {
    ++frame;
    if (frame == 2) {
      answer_discovery(false);
      session.listed(crds, nullptr, {}, "4");
    }
    if (frame == 10) {
      answer_discovery(false);
      session.event(crds, "ADDED", crd);
    }
    if (frame == 20) {
      answer_discovery(true);
    }
    if (frame == 30) {
      crd["metadata"]["resourceVersion"] = "6";
      session.event(crds, "DELETED", crd);
    }
    if (frame == 40) {
      answer_discovery(false);
    }
  };
  ScriptStep step = run_until_stop(runner, state, now, serve);
  INFO(step.message);
  CHECK(step.kind == ScriptStep::Kind::Done);
  CHECK(frame > 40);
}

TEST_CASE("event-kind and event-namespace choose what the watch window lists", "[console][script]") {
  Scratch scratch;
  FakeSession session;
  ConsoleState state(session);
  state.start(kNowMs);
  console::testing::answer_start(session, state, kNowMs);
  REQUIRE(console::testing::show_configmaps(
      session, state, kNowMs, {console::testing::configmap_row("default", "cm1", "10")}, "10"));
  session.event("core/configmaps", "ADDED", console::testing::configmap("default", "a", "11"));
  session.event("core/configmaps", "ADDED", console::testing::configmap("team", "b", "12"));
  session.event("core/namespaces", "ADDED", console::testing::namespace_object("ops", "13"));
  state.update(kNowMs);
  const fs::path dump = scratch.dir / "events.json";
  int64_t now = kNowMs;
  ScriptOptions options;
  options.state_dump_path = dump.string();
  ScriptRunner runner = runner_for(
      "event-kind ConfigMap\ndump-state " + (scratch.dir / "kind.json").string() +
          "\nevent-namespace team\ndump-state " + (scratch.dir / "both.json").string() +
          "\nevent-kind all\nevent-namespace all\ndump-state\nquit\n",
      options);
  const ScriptStep step = run_until_stop(runner, state, now, [] {});
  INFO(step.message);
  REQUIRE(step.kind == ScriptStep::Kind::Done);
  auto events_of = [](const fs::path& file) {
    std::ifstream in(file);
    return json::parse(in)["events"];
  };
  CHECK(events_of(scratch.dir / "kind.json")["shown"] == 2);
  CHECK(events_of(scratch.dir / "kind.json")["filter"] ==
        json{{"kind", "ConfigMap"}, {"namespace", ""}});
  CHECK(events_of(scratch.dir / "both.json")["shown"] == 1);
  CHECK(events_of(dump)["shown"] == 3);
}
