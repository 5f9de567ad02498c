#include "console/model/table_view.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <ctime>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "console/model/resource_cache.h"

using console::model::ColumnKind;
using console::model::FilterMode;
using console::model::human_age;
using console::model::ResourceCache;
using console::model::SortDirection;
using console::model::TableView;
using nlohmann::json;

namespace {

// Every test measures ages from this instant: 2024-06-01T12:00:00Z.
constexpr int64_t kNowS = 1717243200;
constexpr int64_t kNowMs = kNowS * 1000;
constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 24 * kHour;

// The RFC 3339 text of kNow minus `ago` seconds.
std::string ts(int64_t ago) {
  const std::time_t t = static_cast<std::time_t>(kNowS - ago);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json column(const std::string& name, const std::string& type, const std::string& format = "",
            int priority = 0) {
  return {{"name", name},
          {"type", type},
          {"format", format},
          {"priority", priority},
          {"description", "..."}};
}

json meta(const std::string& ns, const std::string& name, int64_t age, const json& labels) {
  json metadata = {{"name", name}, {"creationTimestamp", ts(age)}};
  if (!ns.empty()) {
    metadata["namespace"] = ns;
  }
  if (!labels.is_null()) {
    metadata["labels"] = labels;
  }
  return metadata;
}

json row(const json& cells, const json& metadata) {
  return {{"cells", cells},
          {"object",
           {{"kind", "PartialObjectMetadata"},
            {"apiVersion", "meta.k8s.io/v1"},
            {"metadata", metadata}}}};
}

// Five pods, in this load order:
//   default/pod-10  1/1  0 restarts   5m   app=web
//   default/pod-2   0/1  12           2d   app=db, canary=true
//   default/Pod-1   1/1  (none)       45s  app=web, tier=fe
//   default/api     1/1  3            3h   (no labels)
//   other/db-0      1/1  3            10d  app=db
json pods_table() {
  json table = {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}};
  table["columnDefinitions"] = {column("Name", "string", "name"), column("Ready", "string"),
                                column("Restarts", "integer"), column("Age", "string"),
                                column("IP", "string", "", 1)};
  table["rows"] = {
      row({"pod-10", "1/1", 0, "5m", "10.0.0.1"}, meta("default", "pod-10", 300, {{"app", "web"}})),
      row({"pod-2", "0/1", 12, "2d", "10.0.0.2"},
          meta("default", "pod-2", 2 * kDay, {{"app", "db"}, {"canary", "true"}})),
      row({"Pod-1", "1/1", nullptr, "45s", "10.0.0.3"},
          meta("default", "Pod-1", 45, {{"app", "web"}, {"tier", "fe"}})),
      row({"api", "1/1", 3, "3h", "10.0.0.4"}, meta("default", "api", 3 * kHour, nullptr)),
      row({"db-0", "1/1", 3, "10d", "10.0.0.5"}, meta("other", "db-0", 10 * kDay, {{"app", "db"}})),
  };
  return table;
}

TableView loaded(const json& table, bool namespace_column = false) {
  TableView view;
  const auto error = view.set_table(table, kNowMs, namespace_column);
  INFO(error.value_or(""));
  REQUIRE_FALSE(error.has_value());
  return view;
}

std::vector<std::string> visible_names(const TableView& view) {
  std::vector<std::string> names;
  for (const uint32_t r : view.visible_rows()) {
    names.push_back(view.row(r).name);
  }
  return names;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("a served table loads its columns and rows", "[console][model][table]") {
  const TableView view = loaded(pods_table());
  REQUIRE(view.columns().size() == 5);
  CHECK(view.columns()[0].name == "Name");
  CHECK(view.columns()[0].format == "name");
  CHECK(view.columns()[0].kind == ColumnKind::Text);
  CHECK(view.columns()[2].type == "integer");
  CHECK(view.columns()[2].kind == ColumnKind::Number);
  CHECK(view.columns()[3].kind == ColumnKind::Time);  // "Age" is a string column on the wire
  CHECK(view.columns()[4].priority == 1);
  REQUIRE(view.row_count() == 5);
  CHECK(view.row(1).namespace_ == "default");
  CHECK(view.row(1).name == "pod-2");
  CHECK(view.row(1).cells == std::vector<std::string>{"pod-2", "0/1", "12", "2d", "10.0.0.2"});
  CHECK(view.row(2).cells[2].empty());  // null renders as nothing
  CHECK(view.row(1).labels == json{{"app", "db"}, {"canary", "true"}});
  CHECK(visible_names(view) == Names{"pod-10", "pod-2", "Pod-1", "api", "db-0"});
  CHECK(view.filter_mode() == FilterMode::None);
  CHECK_FALSE(view.sort_column().has_value());
}

TEST_CASE("rows sort by any column in either direction", "[console][model][table]") {
  struct Row {
    size_t column;
    SortDirection direction;
    Names expected;
  };
  const auto asc = SortDirection::Ascending;
  const auto desc = SortDirection::Descending;
  const auto row = GENERATE_REF(values<Row>({
      // Names naturally: digits by value, letters ignoring case.
      {0, asc, {"api", "db-0", "Pod-1", "pod-2", "pod-10"}},
      {0, desc, {"pod-10", "pod-2", "Pod-1", "db-0", "api"}},
      // Text with ties: equal cells keep load order in both directions.
      {1, asc, {"pod-2", "pod-10", "Pod-1", "api", "db-0"}},
      {1, desc, {"pod-10", "Pod-1", "api", "db-0", "pod-2"}},
      // Integers numerically (12 after 3); the row without a number last either way.
      {2, asc, {"pod-10", "api", "db-0", "pod-2", "Pod-1"}},
      {2, desc, {"pod-2", "api", "db-0", "pod-10", "Pod-1"}},
      // Ages by time: ascending is oldest first.
      {3, asc, {"db-0", "pod-2", "api", "pod-10", "Pod-1"}},
      {3, desc, {"Pod-1", "pod-10", "api", "pod-2", "db-0"}},
  }));
  CAPTURE(row.column, row.direction == asc);
  TableView view = loaded(pods_table());
  view.sort_by(row.column, row.direction);
  CHECK(view.sort_column() == row.column);
  CHECK(view.sort_direction() == row.direction);
  CHECK(visible_names(view) == row.expected);

  SECTION("and back to load order") {
    view.clear_sort();
    CHECK(visible_names(view) == Names{"pod-10", "pod-2", "Pod-1", "api", "db-0"});
  }
}

TEST_CASE("a sort by a column that does not exist is ignored", "[console][model][table]") {
  TableView view = loaded(pods_table());
  view.sort_by(0, SortDirection::Descending);
  view.sort_by(5, SortDirection::Ascending);
  CHECK(view.sort_column() == 0u);
  CHECK(view.sort_direction() == SortDirection::Descending);
}

TEST_CASE("natural order compares digit runs by value", "[console][model][table]") {
  json table = {{"columnDefinitions", {column("Name", "string", "name")}}};
  const Names load = {"a10", "a2", "a02", "A1", "a1", "b", "a", "a1b", "a1a", "10", "9", ""};
  for (const std::string& name : load) {
    table["rows"].push_back({{"cells", {name}}});
  }
  TableView view = loaded(table);
  view.sort_by(0, SortDirection::Ascending);
  // "a02" and "a2" are the same number; byte order settles it ("0" before "2"), as it does
  // "A1" before "a1".
  CHECK(visible_names(view) ==
        Names{"", "9", "10", "a", "A1", "a1", "a1a", "a1b", "a02", "a2", "a10", "b"});
}

TEST_CASE("natural order agrees with a character-by-character reference",
          "[console][model][table]") {
  // The reference: walk both texts; digit runs compare by value (leading zeros skipped), other
  // characters by lowercase letter; a text that runs out first sorts first; exact bytes last.
  auto reference_less = [](const std::string& a, const std::string& b) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
      if (digit(a[i]) && digit(b[j])) {
        std::string x;
        std::string y;
        while (i < a.size() && digit(a[i])) {
          x += a[i++];
        }
        while (j < b.size() && digit(b[j])) {
          y += b[j++];
        }
        x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
        y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
        if (x.size() != y.size()) {
          return x.size() < y.size();
        }
        if (x != y) {
          return x < y;
        }
        continue;
      }
      const char x = static_cast<char>(std::tolower(static_cast<unsigned char>(a[i++])));
      const char y = static_cast<char>(std::tolower(static_cast<unsigned char>(b[j++])));
      if (x != y) {
        return static_cast<unsigned char>(x) < static_cast<unsigned char>(y);
      }
    }
    if (i < a.size() || j < b.size()) {
      return j < b.size();
    }
    return a < b;
  };
  std::mt19937 random(2024);
  const std::string alphabet = "00129aAbB-./ ";
  for (int round = 0; round < 20; ++round) {
    json table = {{"columnDefinitions", {column("Name", "string", "name")}}};
    // A shared prefix in some rounds, so that the keys' common bytes get skipped.
    const std::string prefix = round % 2 == 0 ? "" : "deployment-web-";
    for (int r = 0; r < 300; ++r) {
      std::string name = prefix;
      const size_t length = std::uniform_int_distribution<size_t>(0, 24)(random);
      for (size_t k = 0; k < length; ++k) {
        name += alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(random)];
      }
      table["rows"].push_back({{"cells", {name}}});
    }
    TableView view = loaded(table);
    view.sort_by(0, SortDirection::Ascending);
    const Names sorted = visible_names(view);
    for (size_t k = 1; k < sorted.size(); ++k) {
      CAPTURE(round, sorted[k - 1], sorted[k]);
      CHECK_FALSE(reference_less(sorted[k], sorted[k - 1]));
      // Equal keys keep load order, so any two neighbours either tie exactly or are in order.
      CHECK((sorted[k - 1] == sorted[k] || reference_less(sorted[k - 1], sorted[k])));
    }
  }
}

TEST_CASE("an Age column orders by creation time, finer than its rounded cells",
          "[console][model][table]") {
  json table = {{"columnDefinitions", {column("Name", "string", "name"), column("Age", "string")}}};
  table["rows"] = {row({"younger", "2d"}, meta("ns", "younger", 2 * kDay, nullptr)),
                   row({"older", "2d"}, meta("ns", "older", 2 * kDay + 5 * kHour, nullptr))};
  TableView view = loaded(table);
  view.sort_by(1, SortDirection::Ascending);
  CHECK(visible_names(view) == Names{"older", "younger"});
}

TEST_CASE("date cells sort by the time they denote", "[console][model][table]") {
  // No objects (includeObject=None): names come from the name column, times from the cells.
  json table = {
      {"columnDefinitions",
       {column("Name", "string", "name"), column("Last Seen", "date"), column("Score", "number")}}};
  table["rows"] = {
      {{"cells", {"five-minutes", "5m", 1.5}}},
      {{"cells", {"timestamp", ts(kHour), "2 (5m ago)"}}},
      {{"cells", {"unknown", "<unknown>", "n/a"}}},
      {{"cells", {"three-hours", "3h", -4}}},
      {{"cells", {"offset", "2024-06-01T13:30:00+02:00", 10}}},  // 11:30Z
  };
  TableView view = loaded(table);
  CHECK(view.columns()[1].kind == ColumnKind::Time);
  CHECK(view.columns()[2].kind == ColumnKind::Number);
  CHECK(view.row(0).namespace_.empty());
  CHECK(view.row(0).cells[2] == "1.5");

  view.sort_by(1, SortDirection::Ascending);
  CHECK(visible_names(view) ==
        Names{"three-hours", "timestamp", "offset", "five-minutes", "unknown"});
  view.sort_by(1, SortDirection::Descending);
  CHECK(visible_names(view) ==
        Names{"five-minutes", "offset", "timestamp", "three-hours", "unknown"});
  // Numbers: a string counts by its leading number; none at all sorts last.
  view.sort_by(2, SortDirection::Ascending);
  CHECK(visible_names(view) ==
        Names{"three-hours", "five-minutes", "timestamp", "offset", "unknown"});
}

TEST_CASE("the filter is a name search or a label selector", "[console][model][table]") {
  struct Row {
    std::string filter;
    FilterMode mode;
    Names expected;
  };
  const auto row = GENERATE_REF(values<Row>({
      {"", FilterMode::None, {"pod-10", "pod-2", "Pod-1", "api", "db-0"}},
      {"   ", FilterMode::None, {"pod-10", "pod-2", "Pod-1", "api", "db-0"}},
      {"pod", FilterMode::Name, {"pod-10", "pod-2", "Pod-1"}},
      {"POD-1", FilterMode::Name, {"pod-10", "Pod-1"}},
      {"  api ", FilterMode::Name, {"api"}},
      {"zzz", FilterMode::Name, {}},
      {"app", FilterMode::Name, {}},       // a bare key is a search word
      {"app in (", FilterMode::Name, {}},  // half typed: still a search
      {"default", FilterMode::Name, {}},   // names only, not namespaces
      {"app=web", FilterMode::Labels, {"pod-10", "Pod-1"}},
      {"app = web", FilterMode::Labels, {"pod-10", "Pod-1"}},
      {"app!=web", FilterMode::Labels, {"pod-2", "api", "db-0"}},
      {"app in (db)", FilterMode::Labels, {"pod-2", "db-0"}},
      {"app notin (db,web)", FilterMode::Labels, {"api"}},
      {"!canary", FilterMode::Labels, {"pod-10", "Pod-1", "api", "db-0"}},
      {"app,!canary", FilterMode::Labels, {"pod-10", "Pod-1", "db-0"}},
      {"tier=fe,app=web", FilterMode::Labels, {"Pod-1"}},
  }));
  CAPTURE(row.filter);
  TableView view = loaded(pods_table());
  view.set_filter(row.filter);
  CHECK(view.filter() == row.filter);
  CHECK(view.filter_mode() == row.mode);
  CHECK(visible_names(view) == row.expected);
}

TEST_CASE("filter and sort combine", "[console][model][table]") {
  TableView view = loaded(pods_table());
  view.set_filter("app=db");
  view.sort_by(0, SortDirection::Descending);
  CHECK(visible_names(view) == Names{"pod-2", "db-0"});
  view.set_filter("");
  CHECK(visible_names(view) == Names{"pod-10", "pod-2", "Pod-1", "db-0", "api"});
}

TEST_CASE("the selection follows its row through sorts, filters and reloads",
          "[console][model][table]") {
  TableView view = loaded(pods_table());
  REQUIRE(view.select("default", "api"));
  REQUIRE(view.selected() != nullptr);
  CHECK(view.selected()->name == "api");
  CHECK(view.selected_position() == 3u);

  view.sort_by(0, SortDirection::Ascending);
  CHECK(view.selected_position() == 0u);
  view.sort_by(0, SortDirection::Descending);
  CHECK(view.selected_position() == 4u);

  SECTION("hidden by the filter, it stays selected without a position") {
    view.set_filter("pod");
    CHECK(view.selected()->name == "api");
    CHECK_FALSE(view.selected_position().has_value());
    view.set_filter("a");
    CHECK(view.selected_position() == 0u);  // "api" is the only name with an "a"
  }
  SECTION("a reload that keeps the row keeps the selection") {
    json table = pods_table();
    table["rows"].erase(0);  // pod-10 goes
    REQUIRE_FALSE(view.set_table(table, kNowMs, false));
    CHECK(view.selected()->name == "api");
    CHECK(view.selected_position() == 3u);  // descending: pod-2, Pod-1, db-0, api
  }
  SECTION("a reload without the row clears the selection") {
    json table = pods_table();
    table["rows"].erase(3);
    REQUIRE_FALSE(view.set_table(table, kNowMs, false));
    CHECK(view.selected() == nullptr);
    CHECK_FALSE(view.selected_position().has_value());
  }
  SECTION("an unknown row does not change the selection") {
    CHECK_FALSE(view.select("default", "db-0"));  // db-0 lives in "other"
    CHECK(view.selected()->name == "api");
    CHECK(view.select("other", "db-0"));
    CHECK(view.selected()->namespace_ == "other");
  }
  SECTION("clearing") {
    view.clear_selection();
    CHECK(view.selected() == nullptr);
    CHECK_FALSE(view.selected_position().has_value());
  }
}

TEST_CASE("a reload keeps the sort column by name and the filter", "[console][model][table]") {
  TableView view = loaded(pods_table());
  view.sort_by(2, SortDirection::Descending);
  view.set_filter("!canary");

  json table = pods_table();
  table["rows"][0]["cells"][2] = 50;                   // pod-10 now has the most restarts
  REQUIRE_FALSE(view.set_table(table, kNowMs, true));  // a Namespace column shifts the others
  CHECK(view.sort_column() == 3u);
  CHECK(view.columns()[3].name == "Restarts");
  CHECK(view.sort_direction() == SortDirection::Descending);
  CHECK(view.filter_mode() == FilterMode::Labels);
  CHECK(visible_names(view) == Names{"pod-10", "api", "db-0", "Pod-1"});

  SECTION("a table without the column drops the sort") {
    json other = {{"columnDefinitions", {column("Name", "string", "name")}},
                  {"rows", {row({"x"}, meta("ns", "x", 1, nullptr))}}};
    REQUIRE_FALSE(view.set_table(other, kNowMs, false));
    CHECK_FALSE(view.sort_column().has_value());
    CHECK(visible_names(view) == Names{"x"});
  }
}

TEST_CASE("a Namespace column comes first for all namespaces", "[console][model][table]") {
  TableView view = loaded(pods_table(), true);
  REQUIRE(view.columns().size() == 6);
  CHECK(view.columns()[0].name == "Namespace");
  CHECK(view.columns()[1].name == "Name");
  CHECK(view.row(4).cells[0] == "other");
  CHECK(view.row(4).cells[1] == "db-0");
  view.sort_by(0, SortDirection::Descending);
  CHECK(visible_names(view).front() == "db-0");
}

TEST_CASE("a malformed table changes nothing", "[console][model][table]") {
  struct Row {
    json table;
    std::string error;
  };
  const auto row = GENERATE_REF(values<Row>({
      {json::array(), "table: not an object"},
      {{{"rows", json::array()}}, "table: columnDefinitions is not an array"},
      {{{"columnDefinitions", json::array()}, {"rows", json::object()}},
       "table: rows is not an array"},
      {{{"columnDefinitions", {{{"type", "string"}}}}},
       "table: columnDefinitions[0].name is missing"},
      {{{"columnDefinitions", {column("Name", "string")}},
        {"rows", {{{"cells", {"a"}}}, {{"cells", "b"}}}}},
       "table: rows[1].cells is not an array"},
  }));
  CAPTURE(row.table.dump());
  TableView view = loaded(pods_table());
  CHECK(view.set_table(row.table, kNowMs, false) == row.error);
  CHECK(view.row_count() == 5);
  CHECK(view.columns().size() == 5);
}

TEST_CASE("kinds without a table show NAME and AGE from the cache", "[console][model][table]") {
  ResourceCache cache;
  json list = {{"kind", "WidgetList"}, {"metadata", {{"resourceVersion", "9"}}}};
  list["items"] = {{{"metadata", meta("ns", "w-10", 90, {{"app", "x"}})}},
                   {{"metadata", meta("ns", "w-9", 3 * kDay, nullptr)}},
                   {{"metadata", {{"name", "w-new"}, {"namespace", "ns"}}}}};
  REQUIRE_FALSE(cache.replace(list, 0));

  TableView view;
  view.set_from_cache(cache, kNowMs, false);
  REQUIRE(view.columns().size() == 2);
  CHECK(view.columns()[0].name == "Name");
  CHECK(view.columns()[1].name == "Age");
  CHECK(view.columns()[1].kind == ColumnKind::Time);
  // The cache iterates by name: w-10, w-9, w-new.
  REQUIRE(view.row_count() == 3);
  CHECK(view.row(0).cells == std::vector<std::string>{"w-10", "90s"});
  CHECK(view.row(1).cells == std::vector<std::string>{"w-9", "3d"});
  CHECK(view.row(2).cells == std::vector<std::string>{"w-new", "<unknown>"});

  view.sort_by(1, SortDirection::Ascending);
  CHECK(visible_names(view) == Names{"w-9", "w-10", "w-new"});
  view.sort_by(0, SortDirection::Ascending);
  CHECK(visible_names(view) == Names{"w-9", "w-10", "w-new"});
  view.set_filter("app=x");
  CHECK(visible_names(view) == Names{"w-10"});

  SECTION("with a Namespace column") {
    view.set_from_cache(cache, kNowMs, true);
    CHECK(view.row(0).cells == std::vector<std::string>{"ns", "w-10", "90s"});
    CHECK(view.sort_column() == 1u);  // still by Name
  }
}

TEST_CASE("ages render the way kubectl renders them", "[console][model][table]") {
  struct Row {
    int64_t seconds;
    std::string text;
  };
  const auto row = GENERATE_REF(values<Row>({
      {-2, "<invalid>"},
      {-1, "0s"},
      {0, "0s"},
      {119, "119s"},
      {120, "2m"},
      {125, "2m5s"},
      {599, "9m59s"},
      {600, "10m"},
      {3 * kHour - 1, "179m"},
      {3 * kHour, "3h"},
      {3 * kHour + 300, "3h5m"},
      {8 * kHour + 300, "8h"},
      {47 * kHour, "47h"},
      {2 * kDay, "2d"},
      {2 * kDay + 5 * kHour, "2d5h"},
      {8 * kDay + 5 * kHour, "8d"},
      {729 * kDay, "729d"},
      {730 * kDay, "2y"},
      {740 * kDay, "2y10d"},
      {8 * 365 * kDay + 40 * kDay, "8y"},
  }));
  CAPTURE(row.seconds);
  CHECK(human_age(row.seconds) == row.text);
}

TEST_CASE("50,000 rows sort and filter correctly", "[console][model][table]") {
  constexpr int kRows = 50000;
  json table = {
      {"columnDefinitions",
       {column("Name", "string", "name"), column("Restarts", "integer"), column("Age", "string")}}};
  json& rows = table["rows"] = json::array();
  for (int i = 0; i < kRows; ++i) {
    // Load order scrambled by a multiplier coprime to kRows.
    const int n = static_cast<int>((static_cast<int64_t>(i) * 7919) % kRows);
    const std::string name = "pod-" + std::to_string(n);
    rows.push_back(row({name, n % 100, human_age(n)},
                       meta("ns", name, n, {{"shard", std::to_string(n % 10)}})));
  }
  TableView view = loaded(table);

  view.sort_by(0, SortDirection::Ascending);
  REQUIRE(view.visible_rows().size() == kRows);
  for (int k = 0; k < kRows; k += 997) {
    CHECK(view.row(view.visible_rows()[k]).name == "pod-" + std::to_string(k));
  }
  view.sort_by(2, SortDirection::Ascending);  // oldest first: the largest n
  CHECK(view.row(view.visible_rows().front()).name == "pod-49999");
  CHECK(view.row(view.visible_rows().back()).name == "pod-0");

  view.sort_by(1, SortDirection::Descending);
  view.set_filter("shard=3");
  REQUIRE(view.visible_rows().size() == kRows / 10);
  int previous = 100;
  for (const uint32_t r : view.visible_rows()) {
    const int restarts = std::stoi(view.row(r).cells[1]);
    CHECK(restarts % 10 == 3);
    CHECK(restarts <= previous);
    previous = restarts;
  }
}

namespace {

// Rows as KindTable keeps them between loads: (namespace, name) -> cells, creation time and
// labels, loaded with set_rows() in key order. Columns: Name, Count (integer), Age, Note.
struct Truth {
  struct Entry {
    std::vector<std::string> cells;
    double created = 0;
    json labels;
  };
  std::map<std::pair<std::string, std::string>, Entry> rows;

  static std::vector<console::model::TableColumn> columns() {
    return {{"Name", "string", "name", 0, ColumnKind::Text},
            {"Count", "integer", "", 0, ColumnKind::Text},
            {"Age", "string", "", 0, ColumnKind::Text},
            {"Note", "string", "", 0, ColumnKind::Text}};
  }
  static console::model::TableRow table_row(const std::pair<std::string, std::string>& key,
                                            const Entry& entry) {
    return {key.first, key.second, entry.cells, entry.labels};
  }
  void load(TableView& view, bool namespace_column) const {
    std::vector<console::model::TableRow> loaded;
    std::vector<double> created;
    for (const auto& [key, entry] : rows) {
      loaded.push_back(table_row(key, entry));
      created.push_back(entry.created);
    }
    view.set_rows(columns(), std::move(loaded), created, kNowMs, namespace_column);
  }
};

Truth::Entry entry(int count, int64_t age, const std::string& note, const std::string& app) {
  return {{"", std::to_string(count), human_age(age), note},
          static_cast<double>(kNowS - age),
          app.empty() ? json() : json{{"app", app}}};
}

Truth small_truth() {
  Truth truth;
  truth.rows[{"a", "cm-1"}] = entry(3, 300, "x", "web");
  truth.rows[{"a", "cm-2"}] = entry(1, 60, "y", "db");
  truth.rows[{"a", "cm-10"}] = entry(2, 7200, "x", "web");
  truth.rows[{"b", "cm-1"}] = entry(5, 30, "z", "");
  for (auto& [key, e] : truth.rows) {
    e.cells[0] = key.second;
  }
  return truth;
}

// Applies a change to both the truth and the view, as a watch event would.
void upsert(Truth& truth, TableView& view, const std::string& ns, const std::string& name,
            Truth::Entry e) {
  e.cells[0] = name;
  truth.rows[{ns, name}] = e;
  REQUIRE(view.upsert_row(Truth::table_row({ns, name}, e), e.created, kNowMs));
}

std::vector<std::string> visible_keys(const TableView& view) {
  std::vector<std::string> out;
  for (const uint32_t r : view.visible_rows()) {
    out.push_back(view.row(r).namespace_ + "/" + view.row(r).name);
  }
  return out;
}

}  // namespace

TEST_CASE("a changed row moves to its place under the sort, the others keep theirs",
          "[console][model][table][incremental]") {
  Truth truth = small_truth();
  TableView view;
  truth.load(view, true);
  view.sort_by(2, SortDirection::Descending);  // Count, highest first
  CHECK(visible_keys(view) == Names{"b/cm-1", "a/cm-1", "a/cm-10", "a/cm-2"});

  upsert(truth, view, "a", "cm-2", entry(4, 60, "y", "db"));
  CHECK(visible_keys(view) == Names{"b/cm-1", "a/cm-2", "a/cm-1", "a/cm-10"});
  upsert(truth, view, "a", "cm-1", entry(2, 300, "x", "web"));  // ties keep (namespace, name)
  CHECK(visible_keys(view) == Names{"b/cm-1", "a/cm-2", "a/cm-1", "a/cm-10"});
  upsert(truth, view, "a", "cm-3", entry(9, 0, "new", "web"));
  CHECK(visible_keys(view) == Names{"a/cm-3", "b/cm-1", "a/cm-2", "a/cm-1", "a/cm-10"});
  CHECK(view.row_count() == 5);
  const uint32_t added = view.visible_rows().front();
  CHECK(view.row(added).cells == std::vector<std::string>{"a", "cm-3", "9", "0s", "new"});

  view.clear_sort();  // load order: (namespace, name)
  CHECK(visible_keys(view) == Names{"a/cm-1", "a/cm-10", "a/cm-2", "a/cm-3", "b/cm-1"});
}

TEST_CASE("changed rows are filtered as they change", "[console][model][table][incremental]") {
  Truth truth = small_truth();
  TableView view;
  truth.load(view, false);
  view.set_filter("app=web");
  CHECK(visible_keys(view) == Names{"a/cm-1", "a/cm-10"});
  upsert(truth, view, "a", "cm-1", entry(3, 300, "x", "db"));  // leaves the filter
  CHECK(visible_keys(view) == Names{"a/cm-10"});
  upsert(truth, view, "b", "cm-1", entry(5, 30, "z", "web"));  // enters it
  CHECK(visible_keys(view) == Names{"a/cm-10", "b/cm-1"});
  view.set_filter("");
  CHECK(visible_keys(view) == Names{"a/cm-1", "a/cm-10", "a/cm-2", "b/cm-1"});
}

TEST_CASE("the selection follows its row through changes and goes with its deletion",
          "[console][model][table][incremental]") {
  Truth truth = small_truth();
  TableView view;
  truth.load(view, false);
  view.sort_by(1, SortDirection::Ascending);  // Count
  REQUIRE(view.select("a", "cm-1"));           // counts 1, 2, 3, 5: third
  CHECK(view.selected_position() == 2u);
  upsert(truth, view, "a", "cm-1", entry(0, 300, "x", "web"));
  REQUIRE(view.selected() != nullptr);
  CHECK(view.selected()->name == "cm-1");
  CHECK(view.selected_position() == 0u);
  upsert(truth, view, "a", "cm-0", entry(0, 10, "x", "web"));  // ties; "cm-0" < "cm-1"
  CHECK(view.selected_position() == 1u);
  CHECK(view.erase_row("a", "cm-0"));
  CHECK(view.selected_position() == 0u);
  view.set_filter("app=db");
  CHECK_FALSE(view.selected_position().has_value());  // hidden, still selected
  CHECK(view.selected()->name == "cm-1");
  view.set_filter("");
  CHECK(view.erase_row("a", "cm-1"));
  CHECK(view.selected() == nullptr);
  CHECK_FALSE(view.selected_position().has_value());
  CHECK_FALSE(view.erase_row("a", "cm-1"));
  CHECK(view.row_count() == 3);
  CHECK(visible_keys(view) == Names{"a/cm-2", "a/cm-10", "b/cm-1"});
}

TEST_CASE("a view loaded out of (namespace, name) order refuses row changes",
          "[console][model][table][incremental]") {
  TableView view = loaded(pods_table());  // pod-10 before pod-2 before Pod-1
  console::model::TableRow row{"default", "pod-2", {"pod-2", "1/1", "0", "1m", ""}, json()};
  CHECK_FALSE(view.upsert_row(row, kNowS - 60.0, kNowMs));
  CHECK_FALSE(view.erase_row("default", "pod-2"));
  CHECK(view.row_count() == 5);
  CHECK(view.select("default", "api"));  // selection still finds rows
}

TEST_CASE("rows changed one at a time end as a reload of the same rows would",
          "[console][model][table][incremental]") {
  // Random adds, changes and deletions under every sort, direction and filter; after each, the
  // view must show what a fresh set_rows() of the same rows shows, with the same selection.
  const size_t sort = GENERATE(0u, 1u, 2u, 3u, 4u, 5u);  // 5: unsorted
  const auto direction = GENERATE(SortDirection::Ascending, SortDirection::Descending);
  const std::string filter = GENERATE(std::string(), std::string("app=web"), std::string("1"));
  CAPTURE(sort, direction == SortDirection::Descending, filter);
  std::mt19937 random(static_cast<uint32_t>(sort * 31 + filter.size()));
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
  const std::vector<std::string> notes = {"", "a", "b-2", "b-10", "Z"};
  auto random_entry = [&] {
    Truth::Entry e = entry(pick(6), pick(4) * 600, notes[static_cast<size_t>(pick(5))],
                           pick(3) == 0 ? "" : (pick(2) == 0 ? "web" : "db"));
    if (pick(5) == 0) {  // no creation time: the Age cell orders by its text, here none
      e.created = std::numeric_limits<double>::quiet_NaN();
      e.cells[2] = "<unknown>";
    }
    return e;
  };
  auto random_key = [&] {
    return std::make_pair("ns-" + std::to_string(pick(3)), "cm-" + std::to_string(pick(40)));
  };

  Truth truth;
  for (int i = 0; i < 30; ++i) {
    truth.rows[random_key()] = random_entry();
  }
  for (auto& [key, e] : truth.rows) {
    e.cells[0] = key.second;
  }
  TableView view;
  truth.load(view, true);
  if (sort < 5) {
    view.sort_by(sort, direction);
  }
  view.set_filter(filter);
  for (int step = 0; step < 300; ++step) {
    const auto key = random_key();
    if (pick(4) == 0) {
      const bool existed = truth.rows.erase(key) == 1;
      CHECK(view.erase_row(key.first, key.second) == existed);
    } else {
      upsert(truth, view, key.first, key.second, random_entry());
    }
    if (pick(10) == 0 && !truth.rows.empty()) {
      auto it = truth.rows.begin();
      std::advance(it, pick(static_cast<int>(truth.rows.size())));
      REQUIRE(view.select(it->first.first, it->first.second));
    }
    TableView fresh;
    truth.load(fresh, true);
    if (sort < 5) {
      fresh.sort_by(sort, direction);
    }
    fresh.set_filter(filter);
    if (const auto* selected = view.selected()) {
      REQUIRE(fresh.select(selected->namespace_, selected->name));
    }
    CAPTURE(step);
    REQUIRE(visible_keys(view) == visible_keys(fresh));
    REQUIRE(view.row_count() == fresh.row_count());
    REQUIRE(view.selected_position() == fresh.selected_position());
    for (const uint32_t r : view.visible_rows()) {
      const auto& want = truth.rows.at({view.row(r).namespace_, view.row(r).name});
      REQUIRE(view.row(r).cells.size() == 5);
      REQUIRE(std::equal(want.cells.begin(), want.cells.end(), view.row(r).cells.begin() + 1));
    }
  }
  // A sort after the changes ranks the changed keys afresh.
  view.sort_by(3, SortDirection::Ascending);
  TableView fresh;
  truth.load(fresh, true);
  fresh.sort_by(3, SortDirection::Ascending);
  fresh.set_filter(filter);
  CHECK(visible_keys(view) == visible_keys(fresh));
}
