// An event clicked in the watch window: the object as of it and the diff to the version before.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "console/app/console_state.h"
#include "fake_session.h"

using console::app::ConsoleState;
using console::testing::configmap;
using nlohmann::json;

namespace {

constexpr int64_t kNowMs = console::testing::ShowingConfigMaps::now;

// Shows configmaps, listed with default/cm1 at resourceVersion 10; namespace default only.
struct Fixture : console::testing::ShowingConfigMaps {
  Fixture() : ShowingConfigMaps({"default"}) {}

  // Sends one watch event and returns its index in the event log.
  size_t event(const std::string& type, json object) {
    session.event("core/configmaps", type, std::move(object), json{"x", 1, "0s"});
    state.update(kNowMs);
    REQUIRE(state.events().size() > 0);
    return state.events().size() - 1;
  }

  std::vector<std::string> diff_lines() const {
    std::vector<std::string> out;
    const json dump = state.dump();
    for (const auto& line : dump["history"]["diff"]) {
      out.push_back(line.get<std::string>());
    }
    return out;
  }
};

}  // namespace

TEST_CASE("a MODIFIED event shows its version and the diff from the one before",
          "[console][history]") {
  Fixture f;
  const size_t first = f.event("MODIFIED", configmap("default", "cm1", "13", {{"key", "two"}}));
  f.event("MODIFIED", configmap("default", "cm1", "15", {{"key", "three"}, {"more", "x"}}));
  REQUIRE(f.state.select_event(first));
  const auto& h = f.state.event_history();
  REQUIRE(h);
  CHECK(h->found);
  CHECK(h->event.resource_version == "13");
  CHECK(h->previous_resource_version == "10");
  CHECK(h->yaml.find("  key: two\n") != std::string::npos);
  CHECK(h->yaml.find("three") == std::string::npos);  // as of the event, not as of now
  CHECK(h->diff.added == 2);                          // data.key and metadata.resourceVersion
  CHECK(h->diff.removed == 2);
  CHECK(h->note.empty());
  const auto lines = f.diff_lines();
  CHECK(std::find(lines.begin(), lines.end(), "-  key: one") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "+  key: two") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "-  resourceVersion: \"10\"") != lines.end());
  const json dump = f.state.dump()["history"];
  CHECK(dump["event"]["type"] == "MODIFIED");
  CHECK(dump["event"]["name"] == "cm1");
  CHECK(dump["previousResourceVersion"] == "10");
}

TEST_CASE("an ADDED event shows the first version and no diff", "[console][history]") {
  Fixture f;
  const size_t added = f.event("ADDED", configmap("default", "cm2", "20"));
  REQUIRE(f.state.select_event(added));
  const auto& h = f.state.event_history();
  REQUIRE(h);
  CHECK(h->found);
  CHECK(h->previous_resource_version.empty());
  CHECK(h->diff.hunks.empty());
  CHECK(h->note == "The first version: the object was created.");
}

TEST_CASE("a DELETED event keeps the deleted object and the version before it",
          "[console][history]") {
  Fixture f;
  f.event("MODIFIED", configmap("default", "cm1", "13", {{"key", "two"}}));
  const size_t deleted = f.event("DELETED", configmap("default", "cm1", "14", {{"key", "two"}}));
  CHECK(f.state.current()->table.cache().find("default", "cm1") == nullptr);
  REQUIRE(f.state.select_event(deleted));
  const auto& h = f.state.event_history();
  REQUIRE(h);
  CHECK(h->found);
  CHECK(h->previous_resource_version == "13");
  CHECK(h->diff.added == 1);
  CHECK(h->diff.removed == 1);
  CHECK(f.diff_lines() == std::vector<std::string>{"   # managedFields: 1 entry (folded)",
                                                   "   name: cm1", "   namespace: default",
                                                   "-  resourceVersion: \"13\"",
                                                   "+  resourceVersion: \"14\"", "   uid: u-cm1"});
}

TEST_CASE("what cannot be shown is explained", "[console][history]") {
  Fixture f;
  SECTION("a version older than the history kept") {
    const size_t old = f.event("MODIFIED", configmap("default", "cm1", "11", {{"key", "v0"}}));
    for (int i = 0; i < 20; ++i) {
      f.event("MODIFIED", configmap("default", "cm1", std::to_string(12 + i),
                                    {{"key", "v" + std::to_string(i + 1)}}));
    }
    REQUIRE(f.state.select_event(old));
    CHECK_FALSE(f.state.event_history()->found);
    CHECK(f.state.event_history()->note ==
          "This version is no longer held: the console keeps the last 16 versions of each "
          "object.");
  }
  SECTION("an object deleted since, through a relist") {
    const size_t added = f.event("ADDED", configmap("default", "gone", "21"));
    f.session.listed("core/configmaps", console::testing::configmap_columns(),
                     {console::testing::configmap_row("default", "cm1", "10")}, "30");
    f.state.update(kNowMs);
    REQUIRE(f.state.select_event(added));
    CHECK_FALSE(f.state.event_history()->found);
    CHECK(f.state.event_history()->note ==
          "The object is gone, and the console no longer holds its versions.");
  }
  SECTION("a bookmark") {
    const size_t bookmark = f.event("BOOKMARK", json{{"kind", "ConfigMap"},
                                                     {"apiVersion", "v1"},
                                                     {"metadata", {{"resourceVersion", "40"}}}});
    REQUIRE(f.state.select_event(bookmark));
    CHECK_FALSE(f.state.event_history()->found);
    CHECK(f.state.event_history()->note == "A BOOKMARK event carries no version of an object.");
  }
  SECTION("an index past the log") {
    CHECK_FALSE(f.state.select_event(f.state.events().size()));
    CHECK_FALSE(f.state.event_history());
  }
}

TEST_CASE("picking an object or a kind closes the event", "[console][history]") {
  Fixture f;
  const size_t added = f.event("ADDED", configmap("default", "cm2", "20"));
  REQUIRE(f.state.select_event(added));
  SECTION("a row") {
    REQUIRE(f.state.select_object("default", "cm1"));
    CHECK_FALSE(f.state.event_history());
  }
  SECTION("a kind") {
    REQUIRE(f.state.select_kind("", "pods"));
    CHECK_FALSE(f.state.event_history());
  }
  SECTION("Esc") {
    f.state.close_event();
    CHECK_FALSE(f.state.event_history());
    CHECK(f.state.dump()["history"].is_null());
  }
}
