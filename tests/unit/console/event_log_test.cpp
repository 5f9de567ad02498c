#include <catch2/catch.hpp>

#include "console/model/event_log.h"

using console::model::EventLog;
using console::model::LoggedEvent;

namespace {
LoggedEvent named(const std::string& name) {
  LoggedEvent e;
  e.type = "ADDED";
  e.name = name;
  return e;
}
}  // namespace

TEST_CASE("the event log keeps the newest events and counts the dropped ones", "[console][model]") {
  EventLog log(3);
  for (int i = 0; i < 5; ++i) {
    log.append(named("e" + std::to_string(i)));
  }
  CHECK(log.size() == 3);
  CHECK(log.dropped() == 2);
  CHECK(log.at(0).name == "e2");
  CHECK(log.at(2).name == "e4");
}

TEST_CASE("a paused event log keeps receiving but shows what it held when paused",
          "[console][model]") {
  EventLog log(10);
  log.append(named("a"));
  log.append(named("b"));
  log.set_paused(true);
  log.append(named("c"));
  CHECK(log.size() == 3);
  CHECK(log.visible_size() == 2);
  log.set_paused(false);
  CHECK(log.visible_size() == 3);
  CHECK(log.dropped() == 0);
}
