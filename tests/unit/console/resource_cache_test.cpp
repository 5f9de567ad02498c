#include "console/model/resource_cache.h"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using console::model::ApplyOutcome;
using console::model::ResourceCache;
using nlohmann::json;

namespace {

json pod(const std::string& ns, const std::string& name, const std::string& rv,
         const std::string& image = "nginx") {
  json metadata = {{"name", name}, {"resourceVersion", rv}};
  if (!ns.empty()) {
    metadata["namespace"] = ns;
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", metadata},
          {"spec", {{"containers", {{{"name", "c"}, {"image", image}}}}}}};
}

json event(const std::string& type, const json& object) {
  return {{"type", type}, {"object", object}};
}

json pod_list(const std::string& rv, const std::vector<json>& items) {
  json list = {{"apiVersion", "v1"}, {"kind", "PodList"}, {"metadata", {{"resourceVersion", rv}}}};
  list["items"] = json::array();
  for (json item : items) {
    item.erase("kind");  // a LIST leaves kind and apiVersion off its items
    item.erase("apiVersion");
    list["items"].push_back(item);
  }
  return list;
}

json bookmark(const std::string& rv) {
  return event("BOOKMARK", {{"kind", "Pod"}, {"metadata", {{"resourceVersion", rv}}}});
}

json expired() {
  return event("ERROR", {{"kind", "Status"},
                         {"apiVersion", "v1"},
                         {"status", "Failure"},
                         {"message", "too old resource version: 5 (12)"},
                         {"reason", "Expired"},
                         {"code", 410}});
}

// "namespace/name" -> resourceVersion of every cached object.
std::map<std::string, std::string> contents(const ResourceCache& cache) {
  std::map<std::string, std::string> out;
  for (const auto& [key, object] : cache.objects()) {
    out[key.first + "/" + key.second] = object.resource_version();
  }
  return out;
}

}  // namespace

TEST_CASE("watch events move the cache forward and late ones are ignored",
          "[console][model][cache]") {
  struct Step {
    json event;
    ApplyOutcome outcome;
  };
  struct Scenario {
    std::string name;
    std::vector<Step> steps;
    std::map<std::string, std::string> objects;
    std::string resource_version;
  };
  // Every scenario starts from a list at RV 10 holding a@5 and b@6 in namespace "ns".
  const auto scenario = GENERATE_REF(values<Scenario>({
      {"an added object is stored",
       {{event("ADDED", pod("ns", "c", "11")), ApplyOutcome::Added}},
       {{"ns/a", "5"}, {"ns/b", "6"}, {"ns/c", "11"}},
       "11"},
      {"a modification replaces the object",
       {{event("MODIFIED", pod("ns", "a", "11")), ApplyOutcome::Modified}},
       {{"ns/a", "11"}, {"ns/b", "6"}},
       "11"},
      {"a modification of an unknown object adds it",
       {{event("MODIFIED", pod("ns", "z", "11")), ApplyOutcome::Added}},
       {{"ns/a", "5"}, {"ns/b", "6"}, {"ns/z", "11"}},
       "11"},
      {"a deletion removes the object",
       {{event("DELETED", pod("ns", "b", "11")), ApplyOutcome::Deleted}},
       {{"ns/a", "5"}},
       "11"},
      {"a deletion carrying the stored version still deletes",
       {{event("DELETED", pod("ns", "b", "6")), ApplyOutcome::Deleted}},
       {{"ns/a", "5"}},
       "10"},
      {"a modification older than the stored object is stale",
       {{event("MODIFIED", pod("ns", "a", "12")), ApplyOutcome::Modified},
        {event("MODIFIED", pod("ns", "a", "11")), ApplyOutcome::Stale}},
       {{"ns/a", "12"}, {"ns/b", "6"}},
       "12"},
      {"a repeated version is stale",
       {{event("MODIFIED", pod("ns", "a", "11")), ApplyOutcome::Modified},
        {event("MODIFIED", pod("ns", "a", "11", "changed")), ApplyOutcome::Stale}},
       {{"ns/a", "11"}, {"ns/b", "6"}},
       "11"},
      {"versions compare as integers, not as text",
       {{event("MODIFIED", pod("ns", "a", "9")), ApplyOutcome::Modified},
        {event("MODIFIED", pod("ns", "a", "100")), ApplyOutcome::Modified},
        {event("MODIFIED", pod("ns", "a", "99")), ApplyOutcome::Stale}},
       {{"ns/a", "100"}, {"ns/b", "6"}},
       "100"},
      {"a deletion older than the stored object is stale",
       {{event("MODIFIED", pod("ns", "a", "12")), ApplyOutcome::Modified},
        {event("DELETED", pod("ns", "a", "11")), ApplyOutcome::Stale}},
       {{"ns/a", "12"}, {"ns/b", "6"}},
       "12"},
      {"a deletion of an unknown object is stale",
       {{event("DELETED", pod("ns", "z", "11")), ApplyOutcome::Stale}},
       {{"ns/a", "5"}, {"ns/b", "6"}},
       "11"},
      {"versions that are not integers are applied unless repeated",
       {{event("MODIFIED", pod("ns", "a", "x2")), ApplyOutcome::Modified},
        {event("MODIFIED", pod("ns", "a", "x1")), ApplyOutcome::Modified},
        {event("MODIFIED", pod("ns", "a", "x1")), ApplyOutcome::Stale}},
       {{"ns/a", "x1"}, {"ns/b", "6"}},
       "x1"},
      {"the same name in another namespace is another object",
       {{event("ADDED", pod("other", "a", "11")), ApplyOutcome::Added},
        {event("DELETED", pod("ns", "a", "12")), ApplyOutcome::Deleted}},
       {{"ns/b", "6"}, {"other/a", "11"}},
       "12"},
      {"a bookmark only moves the resource version",
       {{bookmark("15"), ApplyOutcome::Bookmark}},
       {{"ns/a", "5"}, {"ns/b", "6"}},
       "15"},
      {"an older bookmark does not move it back",
       {{bookmark("15"), ApplyOutcome::Bookmark}, {bookmark("13"), ApplyOutcome::Bookmark}},
       {{"ns/a", "5"}, {"ns/b", "6"}},
       "15"},
      {"a late event does not move the resource version back",
       {{event("MODIFIED", pod("ns", "a", "14")), ApplyOutcome::Modified},
        {event("ADDED", pod("ns", "c", "12")), ApplyOutcome::Added}},
       {{"ns/a", "14"}, {"ns/b", "6"}, {"ns/c", "12"}},
       "14"},
  }));
  CAPTURE(scenario.name);
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("10", {pod("ns", "a", "5"), pod("ns", "b", "6")}), 0));
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    CAPTURE(i);
    CHECK(cache.apply(scenario.steps[i].event, 100 + static_cast<int64_t>(i)) ==
          scenario.steps[i].outcome);
  }
  CHECK(contents(cache) == scenario.objects);
  CHECK(cache.resource_version() == scenario.resource_version);
  CHECK_FALSE(cache.needs_relist());
}

TEST_CASE("410 Expired asks for a relist, and the relist starts over", "[console][model][cache]") {
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(
      pod_list("10", {pod("ns", "a", "5"), pod("ns", "b", "6"), pod("ns", "c", "7")}), 1000));
  REQUIRE(cache.apply(event("MODIFIED", pod("ns", "a", "11")), 2000) == ApplyOutcome::Modified);

  CHECK(cache.apply(expired(), 3000) == ApplyOutcome::Expired);
  CHECK(cache.needs_relist());
  CHECK(cache.last_error() == "too old resource version: 5 (12)");
  CHECK(cache.resource_version() == "11");  // unchanged by the error
  CHECK(cache.size() == 3);                 // the objects stay on screen until the relist

  // While the watch was down: a deleted, b unchanged, c modified, d created.
  REQUIRE_FALSE(cache.replace(
      pod_list("40", {pod("ns", "b", "6"), pod("ns", "c", "30"), pod("ns", "d", "35")}), 4000));
  CHECK_FALSE(cache.needs_relist());
  CHECK(cache.last_error().empty());
  CHECK(cache.resource_version() == "40");
  CHECK(contents(cache) ==
        std::map<std::string, std::string>{{"ns/b", "6"}, {"ns/c", "30"}, {"ns/d", "35"}});

  SECTION("an unchanged object keeps its change time and history") {
    CHECK(cache.find("ns", "b")->changed_at_ms() == 1000);
    CHECK(cache.history("ns", "b").size() == 1);
  }
  SECTION("a changed object gains a version stamped with the relist time") {
    const auto& versions = cache.history("ns", "c");
    REQUIRE(versions.size() == 2);
    CHECK(versions[0].resource_version == "7");
    CHECK(versions[1].resource_version == "30");
    CHECK(cache.find("ns", "c")->changed_at_ms() == 4000);
  }
  SECTION("a deleted object is gone with its history") {
    CHECK(cache.find("ns", "a") == nullptr);
    CHECK(cache.history("ns", "a").empty());
  }
  SECTION("the watch resumes from the relist") {
    CHECK(cache.apply(event("MODIFIED", pod("ns", "d", "41")), 5000) == ApplyOutcome::Modified);
    CHECK(cache.resource_version() == "41");
  }
}

TEST_CASE("other watch errors are reported without asking for a relist",
          "[console][model][cache]") {
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("10", {}), 0));
  const json forbidden =
      event("ERROR", {{"kind", "Status"}, {"code", 403}, {"message", "pods is forbidden"}});
  CHECK(cache.apply(forbidden, 1) == ApplyOutcome::Failed);
  CHECK(cache.last_error() == "pods is forbidden");
  CHECK_FALSE(cache.needs_relist());
  CHECK(cache.apply(event("ERROR", json::object()), 2) == ApplyOutcome::Failed);
  CHECK(cache.last_error() == "watch error");
}

TEST_CASE("malformed events are rejected with a reason", "[console][model][cache]") {
  struct Row {
    json event;
    std::string error;
  };
  const auto row = GENERATE_REF(values<Row>({
      {json::object(), "watch event without a type"},
      {{{"type", 1}}, "watch event without a type"},
      {{{"type", "ADDED"}}, "watch event ADDED without an object"},
      {{{"type", "ADDED"}, {"object", "x"}}, "watch event ADDED without an object"},
      {event("ADDED", {{"metadata", {{"namespace", "ns"}}}}),
       "watch event ADDED without metadata.name"},
      {event("PATCHED", pod("ns", "a", "1")), "unknown watch event type \"PATCHED\""},
      {event("BOOKMARK", {{"metadata", json::object()}}),
       "BOOKMARK without metadata.resourceVersion"},
  }));
  CAPTURE(row.event.dump());
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("10", {pod("ns", "a", "5")}), 0));
  CHECK(cache.apply(row.event, 1) == ApplyOutcome::Invalid);
  CHECK(cache.last_error() == row.error);
  CHECK(contents(cache) == std::map<std::string, std::string>{{"ns/a", "5"}});
  CHECK(cache.resource_version() == "10");
}

TEST_CASE("a malformed list changes nothing", "[console][model][cache]") {
  struct Row {
    json list;
    std::string error;
  };
  json nameless = pod_list("20", {pod("ns", "x", "1"), pod("ns", "y", "2")});
  nameless["items"][1]["metadata"].erase("name");
  const auto row = GENERATE_REF(values<Row>({
      {json::array(), "list: not an object"},
      {{{"items", json::object()}}, "list: items is not an array"},
      {nameless, "list: items[1].metadata.name is missing"},
  }));
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("10", {pod("ns", "a", "5")}), 0));
  CHECK(cache.replace(row.list, 1) == row.error);
  CHECK(cache.last_error() == row.error);
  CHECK(contents(cache) == std::map<std::string, std::string>{{"ns/a", "5"}});
  CHECK(cache.resource_version() == "10");
}

TEST_CASE("a list without items empties the cache", "[console][model][cache]") {
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("10", {pod("ns", "a", "5")}), 0));
  REQUIRE_FALSE(cache.replace({{"metadata", {{"resourceVersion", "11"}}}, {"items", nullptr}}, 1));
  CHECK(cache.size() == 0);
  CHECK(cache.namespace_counts().empty());
  CHECK(cache.resource_version() == "11");
}

TEST_CASE("listed objects get the kind and apiVersion their list implies",
          "[console][model][cache]") {
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("10", {pod("ns", "a", "5")}), 0));
  const json& object = cache.find("ns", "a")->object();
  CHECK(object["kind"] == "Pod");
  CHECK(object["apiVersion"] == "v1");
}

TEST_CASE("each object keeps its last versions, oldest first, within the bound",
          "[console][model][cache]") {
  ResourceCache cache("", 3);
  REQUIRE_FALSE(cache.replace(pod_list("1", {pod("ns", "a", "1", "v1")}), 10));
  for (int rv = 2; rv <= 5; ++rv) {
    REQUIRE(
        cache.apply(event("MODIFIED", pod("ns", "a", std::to_string(rv), "v" + std::to_string(rv))),
                    10 * rv) == ApplyOutcome::Modified);
  }
  const auto& versions = cache.history("ns", "a");
  REQUIRE(versions.size() == 3);
  CHECK(versions[0].resource_version == "3");
  CHECK(versions[0].seen_at_ms == 30);
  CHECK(versions[1].resource_version == "4");
  CHECK(versions[2].resource_version == "5");
  CHECK(versions[2].object["spec"]["containers"][0]["image"] == "v5");
  CHECK(cache.find("ns", "a")->object() == versions.back().object);
  CHECK(cache.find("ns", "a")->changed_at_ms() == 50);

  SECTION("a stale event neither adds a version nor touches the change time") {
    CHECK(cache.apply(event("MODIFIED", pod("ns", "a", "4")), 99) == ApplyOutcome::Stale);
    CHECK(cache.history("ns", "a").size() == 3);
    CHECK(cache.find("ns", "a")->changed_at_ms() == 50);
  }
  SECTION("a depth of zero still keeps the current version") {
    ResourceCache shallow("", 0);
    REQUIRE_FALSE(shallow.replace(pod_list("1", {pod("ns", "a", "1")}), 0));
    REQUIRE(shallow.apply(event("MODIFIED", pod("ns", "a", "2")), 1) == ApplyOutcome::Modified);
    REQUIRE(shallow.history("ns", "a").size() == 1);
    CHECK(shallow.history("ns", "a")[0].resource_version == "2");
  }
}

TEST_CASE("counts per namespace follow adds and deletes", "[console][model][cache]") {
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(
      pod_list("10", {pod("a", "p1", "1"), pod("a", "p2", "2"), pod("b", "p1", "3")}), 0));
  CHECK(cache.count_in("a") == 2);
  CHECK(cache.count_in("b") == 1);
  CHECK(cache.count_in("c") == 0);

  CHECK(cache.apply(event("ADDED", pod("c", "p1", "11")), 1) == ApplyOutcome::Added);
  CHECK(cache.apply(event("DELETED", pod("b", "p1", "12")), 2) == ApplyOutcome::Deleted);
  CHECK(cache.apply(event("MODIFIED", pod("a", "p1", "13")), 3) == ApplyOutcome::Modified);
  const std::map<std::string, size_t, std::less<>> expected = {{"a", 2}, {"c", 1}};
  CHECK(cache.namespace_counts() == expected);
  CHECK(cache.size() == 3);

  SECTION("cluster-scoped objects count under the empty namespace") {
    CHECK(cache.apply(event("ADDED", pod("", "node-1", "14")), 4) == ApplyOutcome::Added);
    CHECK(cache.count_in("") == 1);
    CHECK(cache.find("", "node-1") != nullptr);
  }
}

TEST_CASE("a cache for one namespace ignores the others", "[console][model][cache]") {
  ResourceCache cache("team");
  REQUIRE_FALSE(cache.replace(pod_list("10", {pod("team", "a", "1"), pod("other", "b", "2")}), 0));
  CHECK(contents(cache) == std::map<std::string, std::string>{{"team/a", "1"}});
  CHECK(cache.apply(event("ADDED", pod("other", "c", "11")), 1) == ApplyOutcome::Ignored);
  CHECK(cache.apply(event("ADDED", pod("team", "c", "12")), 2) == ApplyOutcome::Added);
  CHECK(contents(cache) == std::map<std::string, std::string>{{"team/a", "1"}, {"team/c", "12"}});
  CHECK(cache.resource_version() == "12");
  CHECK(cache.namespace_scope() == "team");
}

TEST_CASE("objects iterate by namespace, then name", "[console][model][cache]") {
  ResourceCache cache;
  REQUIRE_FALSE(cache.replace(pod_list("1", {pod("b", "x", "1"), pod("a-b", "y", "2"),
                                             pod("a", "z", "3"), pod("a", "m", "4")}),
                              0));
  std::vector<std::string> order;
  for (const auto& [key, object] : cache.objects()) {
    order.push_back(object.namespace_ + "/" + object.name);
  }
  CHECK(order == std::vector<std::string>{"a/m", "a/z", "a-b/y", "b/x"});
}
