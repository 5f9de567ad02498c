#include "console/model/kind_table.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using console::model::ApiResource;
using console::model::ApplyOutcome;
using console::model::KindTable;
using console::model::ObjectRow;
using nlohmann::json;

namespace {

// 2024-06-01T12:00:00Z
constexpr int64_t kNowMs = 1717243200000;

ApiResource configmaps() {
  ApiResource r;
  r.version = "v1";
  r.resource = "configmaps";
  r.kind = "ConfigMap";
  r.namespaced = true;
  return r;
}

json columns() {
  return json::array({{{"name", "Name"}, {"type", "string"}, {"format", "name"}},
                      {{"name", "Data"}, {"type", "integer"}, {"format", ""}},
                      {{"name", "Age"}, {"type", "string"}, {"format", ""}}});
}

json object(const std::string& ns, const std::string& name, const std::string& rv,
            const json& labels = nullptr) {
  json metadata = {{"namespace", ns},
                   {"name", name},
                   {"resourceVersion", rv},
                   {"creationTimestamp", "2024-06-01T11:55:00Z"}};
  if (!labels.is_null()) {
    metadata["labels"] = labels;
  }
  return {{"metadata", metadata}, {"data", {{"k", "v"}}}};
}

ObjectRow row(const std::string& ns, const std::string& name, const std::string& rv,
              const json& labels = nullptr) {
  return {object(ns, name, rv, labels), json{name, 1, "5m"}};
}

std::vector<std::string> names(const KindTable& table) {
  std::vector<std::string> out;
  for (uint32_t i : table.view().visible_rows()) {
    const auto& r = table.view().row(i);
    out.push_back(r.namespace_ + "/" + r.name);
  }
  return out;
}

KindTable listed() {
  KindTable table(configmaps());
  std::vector<ObjectRow> rows;
  rows.push_back(row("default", "a", "5", json{{"app", "web"}}));
  rows.push_back(row("kube-system", "b", "6"));
  REQUIRE_FALSE(table.on_list(columns(), std::move(rows), "7", kNowMs).has_value());
  return table;
}

}  // namespace

TEST_CASE("a kind's table shows one namespace or all, with a Namespace column for all",
          "[console][model][kind]") {
  KindTable table = listed();
  CHECK(table.listed());
  CHECK(table.stale());
  table.rebuild("default", kNowMs);
  CHECK_FALSE(table.stale());
  CHECK(names(table) == std::vector<std::string>{"default/a"});
  CHECK(table.view().columns().size() == 3);
  CHECK(table.view().row(0).cells == std::vector<std::string>{"a", "1", "5m"});

  table.rebuild("", kNowMs);
  CHECK(names(table) == std::vector<std::string>{"default/a", "kube-system/b"});
  REQUIRE(table.view().columns().size() == 4);
  CHECK(table.view().columns()[0].name == "Namespace");
  CHECK(table.count_in("") == 2);
  CHECK(table.count_in("kube-system") == 1);
}

TEST_CASE("watch events change the rows and mark them stale until rebuilt",
          "[console][model][kind]") {
  KindTable table = listed();
  table.rebuild("default", kNowMs);
  CHECK(table.on_event("ADDED", object("default", "c", "8"), json{"c", 3, "0s"}, kNowMs + 10) ==
        ApplyOutcome::Added);
  CHECK(table.stale());
  table.rebuild("default", kNowMs + 10);
  CHECK(names(table) == std::vector<std::string>{"default/a", "default/c"});
  CHECK(table.view().row(1).cells[1] == "3");

  CHECK(table.on_event("MODIFIED", object("default", "a", "4"), json{"a", 9, "1m"}, kNowMs) ==
        ApplyOutcome::Stale);
  CHECK_FALSE(table.stale());
  CHECK(table.on_event("DELETED", object("default", "a", "9"), nullptr, kNowMs + 20) ==
        ApplyOutcome::Deleted);
  table.rebuild("default", kNowMs + 20);
  CHECK(names(table) == std::vector<std::string>{"default/c"});
}

TEST_CASE("watch events update the built view row by row", "[console][model][kind]") {
  KindTable table = listed();
  table.rebuild("", kNowMs);
  table.view().sort_by(2, console::model::SortDirection::Descending);  // Data
  REQUIRE(table.view().select("kube-system", "b"));
  table.on_event("ADDED", object("default", "c", "8"), json{"c", 3, "0s"}, kNowMs + 10);
  table.on_event("MODIFIED", object("default", "a", "9"), json{"a", 2, "5m"}, kNowMs + 10);
  table.on_event("MODIFIED", object("default", "a", "10"), json{"a", 4, "5m"}, kNowMs + 20);
  CHECK(table.stale());
  CHECK(table.apply_changes(kNowMs + 20, 100));
  CHECK_FALSE(table.stale());
  CHECK(names(table) == std::vector<std::string>{"default/a", "default/c", "kube-system/b"});
  CHECK(table.view().row_count() == 3);
  REQUIRE(table.view().selected() != nullptr);
  CHECK(table.view().selected()->name == "b");
  CHECK(table.view().selected_position() == 2u);

  table.on_event("DELETED", object("default", "a", "11"), nullptr, kNowMs + 30);
  table.on_event("ADDED", object("default", "x", "12"), json{"x", 1, "0s"}, kNowMs + 30);
  table.on_event("DELETED", object("default", "x", "13"), nullptr, kNowMs + 30);
  CHECK(table.apply_changes(kNowMs + 30, 100));
  CHECK(names(table) == std::vector<std::string>{"default/c", "kube-system/b"});
  CHECK(table.view().selected_position() == 1u);
}

TEST_CASE("row changes are applied a bounded number at a time, oldest first",
          "[console][model][kind]") {
  KindTable table(configmaps());
  std::vector<ObjectRow> rows;
  for (int i = 0; i < 20; ++i) {
    rows.push_back(row("default", "cm-" + std::to_string(100 + i), "5"));
  }
  REQUIRE_FALSE(table.on_list(columns(), std::move(rows), "7", kNowMs).has_value());
  table.rebuild("default", kNowMs);
  for (int i = 0; i < 3; ++i) {
    const std::string name = "cm-" + std::to_string(119 - i);
    table.on_event("MODIFIED", object("default", name, std::to_string(10 + i)),
                   json{name, 7, "5m"}, kNowMs);
  }
  table.on_event("MODIFIED", object("default", "cm-119", "20"), json{"cm-119", 8, "5m"}, kNowMs);
  auto data_of = [&](const std::string& name) {
    for (uint32_t r : table.view().visible_rows()) {
      if (table.view().row(r).name == name) {
        return table.view().row(r).cells[1];
      }
    }
    return std::string("absent");
  };
  CHECK(table.apply_changes(kNowMs, 2));  // cm-119 (noted once, at its latest) and cm-118
  CHECK(table.stale());
  CHECK(data_of("cm-119") == "8");
  CHECK(data_of("cm-118") == "7");
  CHECK(data_of("cm-117") == "1");
  CHECK(table.apply_changes(kNowMs, 2));
  CHECK_FALSE(table.stale());
  CHECK(data_of("cm-117") == "7");

  // More waiting changes than the bound and a quarter of the rows: a rebuild is cheaper.
  for (int i = 0; i < 6; ++i) {
    const std::string name = "cm-" + std::to_string(100 + i);
    table.on_event("MODIFIED", object("default", name, std::to_string(30 + i)),
                   json{name, 9, "5m"}, kNowMs);
  }
  CHECK_FALSE(table.apply_changes(kNowMs, 5));
  CHECK(table.stale());
  table.rebuild("default", kNowMs);
  CHECK_FALSE(table.stale());
  CHECK(data_of("cm-105") == "9");
}

TEST_CASE("a LIST or an unbuilt view needs a rebuild, and other namespaces are not noted",
          "[console][model][kind]") {
  KindTable table = listed();
  CHECK_FALSE(table.apply_changes(kNowMs, 100));  // never built
  table.rebuild("default", kNowMs);
  table.on_event("ADDED", object("kube-system", "z", "8"), json{"z", 1, "0s"}, kNowMs);
  CHECK_FALSE(table.stale());  // the view shows default only
  std::vector<ObjectRow> rows;
  rows.push_back(row("default", "a", "5"));
  REQUIRE_FALSE(table.on_list(columns(), std::move(rows), "9", kNowMs).has_value());
  CHECK(table.stale());
  CHECK_FALSE(table.apply_changes(kNowMs, 100));
  table.rebuild("", kNowMs);
  CHECK(names(table) == std::vector<std::string>{"default/a"});
}

TEST_CASE("rows changed by the watch are recent for a while, listed ones never",
          "[console][model][kind]") {
  KindTable table = listed();
  CHECK_FALSE(table.recently_changed("default", "a", kNowMs, 2000));
  table.on_event("MODIFIED", object("default", "a", "9"), json{"a", 2, "5m"}, kNowMs + 100);
  CHECK(table.recently_changed("default", "a", kNowMs + 100, 2000));
  CHECK(table.recently_changed("default", "a", kNowMs + 2000, 2000));
  CHECK_FALSE(table.recently_changed("default", "a", kNowMs + 2100, 2000));
  CHECK_FALSE(table.recently_changed("default", "missing", kNowMs, 2000));
}

TEST_CASE("ages are computed now from the creation time", "[console][model][kind]") {
  KindTable table = listed();
  CHECK(table.age("default", "a", kNowMs) == "5m");
  CHECK(table.age("default", "a", kNowMs + 3600 * 1000) == "65m");
  CHECK(table.age("default", "missing", kNowMs).empty());
}

TEST_CASE("the view keeps its filter and selection across rebuilds", "[console][model][kind]") {
  KindTable table = listed();
  table.rebuild("", kNowMs);
  table.view().set_filter("app=web");
  REQUIRE(table.view().select("default", "a"));
  table.on_event("ADDED", object("default", "d", "10", json{{"app", "web"}}), json{"d", 1, "0s"},
                 kNowMs);
  table.rebuild("", kNowMs);
  CHECK(names(table) == std::vector<std::string>{"default/a", "default/d"});
  REQUIRE(table.view().selected() != nullptr);
  CHECK(table.view().selected()->name == "a");
}

TEST_CASE("without server Tables the columns are Name and Age", "[console][model][kind]") {
  KindTable table(configmaps());
  std::vector<ObjectRow> rows;
  rows.push_back({object("default", "a", "5"), nullptr});
  REQUIRE_FALSE(table.on_list(nullptr, std::move(rows), "7", kNowMs).has_value());
  table.on_event("ADDED", object("default", "b", "8"), nullptr, kNowMs);
  table.rebuild("default", kNowMs);
  REQUIRE(table.view().columns().size() == 2);
  CHECK(table.view().columns()[0].name == "Name");
  CHECK(table.view().row(0).cells == std::vector<std::string>{"a", "5m"});
  CHECK(table.view().row(1).cells == std::vector<std::string>{"b", "5m"});
}

TEST_CASE("an event without a row fills the server's columns with the name only",
          "[console][model][kind]") {
  KindTable table = listed();
  table.on_event("ADDED", object("default", "e", "11"), nullptr, kNowMs);
  table.rebuild("default", kNowMs);
  CHECK(table.view().row(1).cells == std::vector<std::string>{"e", "", ""});
}

TEST_CASE("a malformed list leaves the kind table as it was", "[console][model][kind]") {
  KindTable table = listed();
  std::vector<ObjectRow> rows;
  rows.push_back({json{{"metadata", json::object()}}, nullptr});
  CHECK(table.on_list(columns(), std::move(rows), "9", kNowMs) ==
        "list: items[0].metadata.name is missing");
  CHECK(table.cache().size() == 2);
  CHECK(table.on_list(json("x"), {}, "9", kNowMs) == "list: columnDefinitions is not an array");
}

TEST_CASE("50,000 rows rebuild well inside a frame budget", "[console][model][kind][.perf]") {
  KindTable table(configmaps());
  std::vector<ObjectRow> rows;
  for (int i = 0; i < 50000; ++i) {
    rows.push_back(row("ns-" + std::to_string(i % 50), "cm-" + std::to_string(i),
                       std::to_string(i + 1), json{{"app", i % 2 == 0 ? "web" : "db"}}));
  }
  REQUIRE_FALSE(table.on_list(columns(), std::move(rows), "60000", kNowMs).has_value());
  const auto start = std::chrono::steady_clock::now();
  table.rebuild("", kNowMs);
  const auto took = std::chrono::steady_clock::now() - start;
  WARN("rebuild of 50,000 rows: "
       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  CHECK(table.view().row_count() == 50000);
}

TEST_CASE("watch changes to 50,000 rows apply row by row well inside a frame budget",
          "[console][model][kind][.perf]") {
  KindTable table(configmaps());
  std::vector<ObjectRow> rows;
  for (int i = 0; i < 50000; ++i) {
    rows.push_back(row("ns-" + std::to_string(i % 50), "cm-" + std::to_string(i),
                       std::to_string(i + 1), json{{"app", i % 2 == 0 ? "web" : "db"}}));
  }
  REQUIRE_FALSE(table.on_list(columns(), std::move(rows), "60000", kNowMs).has_value());
  table.rebuild("", kNowMs);
  const bool sorted = GENERATE(false, true);
  if (sorted) {
    table.view().sort_by(2, console::model::SortDirection::Ascending);  // Data: every row moves
  }
  for (int k = 0; k < 1000; ++k) {
    const int i = k * 7919 % 50000;
    const std::string name = "cm-" + std::to_string(i);
    table.on_event("MODIFIED", object("ns-" + std::to_string(i % 50), name, std::to_string(70000 + k)),
                   json{name, 2 + k % 5, "5m"}, kNowMs);
  }
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(table.apply_changes(kNowMs, 1000));
  const auto took = std::chrono::steady_clock::now() - start;
  WARN((sorted ? "sorted by Data" : "unsorted") << ": 1,000 changed rows of 50,000 applied in "
       << std::chrono::duration_cast<std::chrono::microseconds>(took).count() << " us");
  CHECK_FALSE(table.stale());
  CHECK(table.view().row_count() == 50000);
}
