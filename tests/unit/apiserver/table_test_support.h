// What the table tests share: the instant every age is measured from, timestamps before it, a
// built-in kind's resource and the cells of its Table row, and an object's metadata. The tests
// use them through `using namespace table_test;`.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "apiserver/registry.h"
#include "builtin_resources.h"
#include "registry/table.h"

namespace table_test {

using apiserver::registry::Resource;
using apiserver::registry::table_cells;
using apiserver::testing::all_builtin_resources;
using nlohmann::json;
using namespace std::chrono_literals;

// Every test measures ages from this instant: 2024-06-01T12:00:00Z.
inline const std::chrono::system_clock::time_point kNow =
    std::chrono::system_clock::from_time_t(1717243200);

// The RFC 3339 text of kNow minus `ago`.
inline std::string ts(std::chrono::seconds ago) {
  const std::time_t t = std::chrono::system_clock::to_time_t(kNow - ago);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

inline const Resource& resource(const std::string& group, const std::string& version,
                                const std::string& plural) {
  const Resource* r = all_builtin_resources()->find(group, version, plural);
  REQUIRE(r != nullptr);
  return *r;
}

inline json cells(const std::string& group, const std::string& version, const std::string& plural,
                  const json& object) {
  return table_cells(resource(group, version, plural), object, kNow);
}

inline json meta(const std::string& name, std::chrono::seconds age = 300s) {
  return {{"name", name}, {"namespace", "default"}, {"creationTimestamp", ts(age)}};
}

}  // namespace table_test
