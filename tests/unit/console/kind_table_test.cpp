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
