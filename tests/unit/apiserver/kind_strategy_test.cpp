#include "registry/kind_strategy.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "apiserver/registry.h"
#include "builtin_resources.h"
#include "registry/defaults.h"
#include "registry/table.h"

using apiserver::registry::kind_strategies;
using apiserver::registry::kind_strategy;
using apiserver::testing::all_builtin_resources;
using nlohmann::json;

namespace {

TEST_CASE("every kind strategy names a served built-in kind, once", "[registry][strategy]") {
  std::set<std::pair<std::string, std::string>> served;
  for (const auto& r : all_builtin_resources()->resources()) {
    served.emplace(r.group, r.kind);
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& s : kind_strategies()) {
    const std::pair<std::string, std::string> key{std::string(s.group), std::string(s.kind)};
    CAPTURE(key.first, key.second);
    CHECK(served.count(key) == 1);
    CHECK(seen.insert(key).second);
    CHECK(kind_strategy(s.group, s.kind) == &s);
  }
  CHECK(kind_strategy("apps", "NoSuchKind") == nullptr);
  CHECK(kind_strategy("", "Deployment") == nullptr);
}

// Name, Age and Created At are filled for any kind; every other column needs the kind's printer.
bool needs_printer(const apiserver::registry::Resource& r) {
  for (const auto& column : r.table_columns) {
    if (column.name != "Name" && column.name != "Age" && column.name != "Created At") {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("every built-in kind with columns of its own has a printer that fills each column",
          "[registry][strategy][table]") {
  const json bare = {{"metadata", {{"name", "x"}, {"creationTimestamp", "2024-06-01T11:00:00Z"}}}};
  const auto now = std::chrono::system_clock::from_time_t(1717243200);
  for (const auto& r : all_builtin_resources()->resources()) {
    if (r.table_columns.empty()) {
      continue;
    }
    CAPTURE(r.group, r.version, r.resource);
    if (needs_printer(r)) {
      const auto* strategy = kind_strategy(r.group, r.kind);
      REQUIRE(strategy != nullptr);
      CHECK(strategy->print != nullptr);
    }
    const json cells = apiserver::registry::table_cells(r, bare, now);
    // Upstream's IPAddress printer emits an Age cell its two column definitions do not declare.
    const size_t extra = r.group == "networking.k8s.io" && r.kind == "IPAddress" ? 1 : 0;
    CHECK(cells.size() == r.table_columns.size() + extra);
    CHECK(std::find(cells.begin(), cells.end(), json("x")) != cells.end());
  }
}

TEST_CASE("a kind has defaults exactly when defaulting can change its objects",
          "[registry][strategy][defaults]") {
  const auto resources = all_builtin_resources();
  const auto* pods = resources->find("", "v1", "pods");
  const auto* config_maps = resources->find("", "v1", "configmaps");
  REQUIRE(pods != nullptr);
  REQUIRE(config_maps != nullptr);
  CHECK(apiserver::registry::has_defaults(*pods));
  CHECK_FALSE(apiserver::registry::has_defaults(*config_maps));
  // Every kind without defaults leaves a bare object exactly as it was.
  for (const auto& r : resources->resources()) {
    if (apiserver::registry::has_defaults(r)) {
      continue;
    }
    CAPTURE(r.group, r.resource);
    json object = {{"metadata", {{"name", "x"}}}, {"spec", json::object()}};
    const json before = object;
    apiserver::registry::apply_defaults(r, object);
    CHECK(object == before);
  }
}
