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

TEST_CASE("the event filter passes by type, kind and namespace, and the log lists the choices",
          "[console][model]") {
  auto event = [](const std::string& type, const std::string& kind, const std::string& ns) {
    LoggedEvent e;
    e.type = type;
    e.kind = kind;
    e.namespace_ = ns;
    return e;
  };
  EventLog log(10);
  log.append(event("ADDED", "ConfigMap", "team"));
  log.append(event("MODIFIED", "Deployment", "default"));
  log.append(event("ADDED", "Namespace", ""));
  log.append(event("BOOKMARK", "ConfigMap", ""));
  log.append(event("DELETED", "ConfigMap", "default"));
  CHECK(log.kinds() == std::vector<std::string>{"ConfigMap", "Deployment", "Namespace"});
  CHECK(log.namespaces() == std::vector<std::string>{"default", "team"});

  auto passed = [&](const console::model::EventFilter& filter) {
    std::vector<size_t> out;
    for (size_t i = 0; i < log.size(); ++i) {
      if (filter.matches(log.at(i))) {
        out.push_back(i);
      }
    }
    return out;
  };
  console::model::EventFilter filter;  // bookmarks hidden by default
  CHECK(passed(filter) == std::vector<size_t>{0, 1, 2, 4});
  filter.kind = "ConfigMap";
  CHECK(passed(filter) == std::vector<size_t>{0, 4});
  filter.namespace_ = "default";
  CHECK(passed(filter) == std::vector<size_t>{4});
  filter.kind.clear();
  CHECK(passed(filter) == std::vector<size_t>{1, 4});
  filter.hidden_types = {"DELETED"};
  CHECK(passed(filter) == std::vector<size_t>{1});
}
