// registry/changed_paths: the fields a step (defaulting) set, for the request trace.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "registry/changed_paths.h"

using apiserver::registry::changed_paths;
using nlohmann::json;

TEST_CASE("changed paths are the values added or changed, in document order", "[trace]") {
  json before = {{"spec", {{"containers", {{{"name", "app"}}}}, {"replicas", 1}}},
                 {"metadata", {{"name", "x"}, {"gone", true}}}};
  json after = {
      {"spec",
       {{"containers", {{{"name", "app"}, {"imagePullPolicy", "Always"}}, {{"name", "b"}}}},
        {"replicas", 2},
        {"strategy", {{"type", "RollingUpdate"}}}}},
      {"metadata", {{"name", "x"}}}};
  CHECK(changed_paths(before, after, 10) ==
        std::vector<std::string>{"spec.containers[0].imagePullPolicy", "spec.containers[1]",
                                 "spec.replicas", "spec.strategy"});
  size_t more = 0;
  CHECK(changed_paths(before, after, 2, &more).size() == 2);
  CHECK(more == 2);
  CHECK(changed_paths(after, after, 10).empty());
  CHECK(changed_paths(json(5), json("5"), 10) == std::vector<std::string>{""});
}

TEST_CASE("changed paths of a deep object stop spelling out at 64 levels", "[trace]") {
  json before = json::object();
  json after = json::object();
  json* b = &before;
  json* a = &after;
  for (int i = 0; i < 10000; ++i) {
    b = &(*b)["a"];
    a = &(*a)["a"];
  }
  *b = 1;
  *a = 2;
  auto paths = changed_paths(before, after, 10);
  REQUIRE(paths.size() == 1);
  CHECK(paths[0].size() == 64 * 2 - 1 + 3);  // "a.a. ... .a" 64 times, then "..."
  CHECK(paths[0].substr(paths[0].size() - 3) == "...");
}
