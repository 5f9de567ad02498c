// The Table itself: ages, includeObject, each kind's column definitions, the default table for
// kinds without a printer, the envelope around the rows, and the order of flow schemas. The
// cells of each kind's rows are in table_pod_cells_test.cpp and table_kind_cells_test.cpp.
#include "registry/table.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/registry.h"
#include "table_test_support.h"

using apiserver::registry::human_duration;
using apiserver::registry::IncludeObject;
using apiserver::registry::parse_include_object;
using apiserver::registry::TableOptions;
using apiserver::registry::to_table;
using apiserver::registry::to_table_for_object;
using namespace table_test;

TEST_CASE("HumanDuration follows apimachinery's thresholds", "[table]") {
  using std::chrono::hours;
  using std::chrono::milliseconds;
  using std::chrono::minutes;
  using std::chrono::nanoseconds;
  const auto day = hours(24);
  const auto [d, text] = GENERATE_COPY(table<nanoseconds, std::string>({
      {-3s, "<invalid>"},
      {-2s, "<invalid>"},
      {-milliseconds(1500), "0s"},
      {-1s, "0s"},
      {0s, "0s"},
      {milliseconds(999), "0s"},
      {59s, "59s"},
      {60s, "60s"},
      {119s, "119s"},
      {120s, "2m"},
      {125s, "2m5s"},
      {599s, "9m59s"},
      {600s, "10m"},
      {minutes(90), "90m"},
      {minutes(179) + 59s, "179m"},
      {minutes(180), "3h"},
      {hours(3) + minutes(5), "3h5m"},
      {hours(7) + minutes(59) + 59s, "7h59m"},
      {hours(8), "8h"},
      {hours(47) + minutes(59), "47h"},
      {hours(48), "2d"},
      {hours(53), "2d5h"},
      {day * 3, "3d"},
      {day * 7 + hours(23), "7d23h"},
      {day * 8, "8d"},
      {day * 400, "400d"},
      {day * 729 + hours(23), "729d"},
      {day * 730, "2y"},
      {day * 733, "2y3d"},
      {day * (365 * 8 - 1), "7y364d"},
      {day * 365 * 8, "8y"},
      {day * 365 * 20 + day * 100, "20y"},
  }));
  CAPTURE(d.count());
  CHECK(human_duration(d) == text);
}

TEST_CASE("includeObject accepts upstream's three values", "[table]") {
  CHECK(*parse_include_object("") == IncludeObject::Metadata);
  CHECK(*parse_include_object("Metadata") == IncludeObject::Metadata);
  CHECK(*parse_include_object("None") == IncludeObject::None);
  CHECK(*parse_include_object("Object") == IncludeObject::Object);
  auto bad = parse_include_object("metadata");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "unrecognized includeObject value: \"metadata\"");
}

TEST_CASE("every served kind's columns are the facts' columns and rows fill them", "[table]") {
  const json object = {{"apiVersion", "v1"}, {"kind", "Thing"}, {"metadata", meta("x")}};
  size_t checked = 0;
  for (const auto& r : all_builtin_resources()->resources()) {
    CAPTURE(r.group, r.version, r.kind);
    TableOptions options;
    options.now = kNow;
    const json table = to_table(r, {object}, options);
    const auto& defs = table.at("columnDefinitions");
    const auto expected =
        r.table_columns.empty()
            ? std::vector<std::pair<std::string, std::string>>{{"Name", "string"},
                                                               {"Created At", "date"}}
            : std::vector<std::pair<std::string, std::string>>{};
    if (!r.table_columns.empty()) {
      REQUIRE(defs.size() == r.table_columns.size());
      for (size_t i = 0; i < defs.size(); ++i) {
        CHECK(defs[i].at("name") == r.table_columns[i].name);
        CHECK(defs[i].at("type") == r.table_columns[i].type);
        CHECK(defs[i].at("format") == r.table_columns[i].format);
        CHECK(defs[i].at("priority") == r.table_columns[i].priority);
        CHECK(defs[i].at("description").is_string());
      }
    } else {
      REQUIRE(defs.size() == 2);
      CHECK(defs[0].at("name") == expected[0].first);
      CHECK(defs[1].at("type") == expected[1].second);
    }
    const auto& row_cells = table.at("rows").at(0).at("cells");
    if (r.group == "networking.k8s.io" && r.kind == "IPAddress") {
      // Upstream's IPAddress printer emits an Age cell its two columns do not declare.
      CHECK(row_cells.size() == defs.size() + 1);
    } else {
      CHECK(row_cells.size() == defs.size());
    }
    CHECK(row_cells.at(0) == (r.kind == "Event" ? json("<unknown>") : json("x")));
    ++checked;
  }
  CHECK(checked > 60);
}

TEST_CASE("kinds without a printer get the default Name / Created At table", "[table]") {
  TableOptions options;
  options.now = kNow;
  options.resource_version = "77";
  const Resource& roles = resource("rbac.authorization.k8s.io", "v1", "roles");
  const json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                     {"kind", "Role"},
                     {"metadata",
                      {{"name", "reader"},
                       {"namespace", "default"},
                       {"creationTimestamp", "2024-06-01T14:30:00+02:00"}}}};
  const json table = to_table(roles, {role}, options);
  CHECK(table.at("columnDefinitions").at(1).at("name") == "Created At");
  CHECK(table.at("columnDefinitions").at(1).at("type") == "date");
  CHECK(table.at("rows").at(0).at("cells") == json({"reader", "2024-06-01T12:30:00Z"}));
  // The default convertor builds rows from a nil slice.
  CHECK(to_table(roles, {}, options).at("rows").is_null());
  CHECK(to_table(resource("", "v1", "pods"), {}, options).at("rows") == json::array());

  Resource custom;
  custom.group = "example.com";
  custom.version = "v1";
  custom.kind = "Widget";
  custom.resource = "widgets";
  const json widget = {
      {"metadata", {{"name", "w"}, {"creationTimestamp", "2024-01-02T03:04:05Z"}}}};
  const json t2 = to_table(custom, {widget}, options);
  CHECK(t2.at("columnDefinitions").size() == 2);
  CHECK(t2.at("columnDefinitions").at(0) == json({{"name", "Name"},
                                                  {"type", "string"},
                                                  {"format", "name"},
                                                  {"description", "Name of the object."},
                                                  {"priority", 0}}));
  CHECK(t2.at("rows").at(0).at("cells") == json({"w", "2024-01-02T03:04:05Z"}));
  const json no_time = {{"metadata", {{"name", "z"}}}};
  CHECK(to_table(custom, {no_time}, options).at("rows").at(0).at("cells") ==
        json({"z", "0001-01-01T00:00:00Z"}));
}

TEST_CASE("table envelope: metadata, headers and the row object", "[table]") {
  const Resource& cms = resource("", "v1", "configmaps");
  const json cm = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata",
                    {{"name", "cfg"},
                     {"namespace", "default"},
                     {"uid", "1234"},
                     {"resourceVersion", "15"},
                     {"labels", {{"a", "b"}}},
                     {"creationTimestamp", ts(10s)}}},
                   {"data", {{"k", "v"}}}};
  TableOptions options;
  options.now = kNow;
  options.resource_version = "42";

  SECTION("Metadata (the default) wraps the metadata in a PartialObjectMetadata") {
    const json table = to_table(cms, {cm}, options);
    CHECK(table.at("kind") == "Table");
    CHECK(table.at("apiVersion") == "meta.k8s.io/v1");
    CHECK(table.at("metadata") == json({{"resourceVersion", "42"}}));
    CHECK(table.at("rows").at(0).at("object") == json({{"kind", "PartialObjectMetadata"},
                                                       {"apiVersion", "meta.k8s.io/v1"},
                                                       {"metadata", cm.at("metadata")}}));
  }
  SECTION("Object carries the whole object") {
    options.include = IncludeObject::Object;
    CHECK(to_table(cms, {cm}, options).at("rows").at(0).at("object") == cm);
  }
  SECTION("None leaves the object null") {
    options.include = IncludeObject::None;
    const json row = to_table(cms, {cm}, options).at("rows").at(0);
    CHECK(row.at("object").is_null());
    CHECK(row.at("cells") == json({"cfg", 1, "10s"}));
  }
  SECTION("paging fields and noHeaders") {
    options.continue_token = "abc";
    options.remaining_item_count = 5;
    options.no_headers = true;
    const json table = to_table(cms, {cm, cm}, options);
    CHECK(table.at("metadata") ==
          json({{"resourceVersion", "42"}, {"continue", "abc"}, {"remainingItemCount", 5}}));
    CHECK(table.at("columnDefinitions").is_null());
    CHECK(table.at("rows").size() == 2);
  }
  SECTION("a single object takes its own resourceVersion") {
    options.continue_token = "ignored";
    const json table = to_table_for_object(cms, cm, options);
    CHECK(table.at("metadata") == json({{"resourceVersion", "15"}}));
    CHECK(table.at("rows").size() == 1);
    CHECK(table.at("columnDefinitions").size() == 3);
  }
}

TEST_CASE("flow schemas are listed by matching precedence, then name", "[table]") {
  TableOptions options;
  options.now = kNow;
  const auto fs = [](const std::string& name, int precedence) {
    return json{{"metadata", meta(name)},
                {"spec",
                 {{"matchingPrecedence", precedence},
                  {"priorityLevelConfiguration", {{"name", "workload-low"}}}}}};
  };
  const json table = to_table(resource("flowcontrol.apiserver.k8s.io", "v1", "flowschemas"),
                              {fs("service-accounts", 9000), fs("exempt", 1),
                               fs("catch-all", 10000), fs("b", 1000), fs("a", 1000)},
                              options);
  std::vector<std::string> names;
  for (const auto& row : table.at("rows")) {
    names.push_back(row.at("cells").at(0));
  }
  CHECK(names == std::vector<std::string>{"exempt", "a", "b", "service-accounts", "catch-all"});
  CHECK(table.at("rows").at(0).at("cells") ==
        json({"exempt", "workload-low", 1, "<none>", "5m", "?"}));
}
