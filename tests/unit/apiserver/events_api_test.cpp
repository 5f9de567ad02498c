// Events through both APIs: one storage in the core/v1 form, converted field by field for
// events.k8s.io/v1 on every path in and out (create, get, list, watch, patch, update, delete),
// field selectors in each API's names, and the stricter validation of the newer API.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "test_api.h"
#include "watch_events.h"

namespace apiserver::testing {
namespace {

using nlohmann::json;

constexpr const char* kCore = "/api/v1/namespaces/default/events";
constexpr const char* kNew = "/apis/events.k8s.io/v1/namespaces/default/events";

// An events.k8s.io/v1 Event as kube-scheduler writes one.
json scheduled(const std::string& name) {
  return {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"eventTime", "2024-01-01T00:00:00.000000Z"},
      {"reportingController", "default-scheduler"},
      {"reportingInstance", "default-scheduler-host"},
      {"action", "Binding"},
      {"reason", "Scheduled"},
      {"note", "Successfully assigned default/web to node-1"},
      {"type", "Normal"},
      {"regarding", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web"}, {"uid", "u1"}}}};
}

// A core/v1 Event as a kubelet writes one.
json pulled(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"involvedObject", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web"}}},
          {"reason", "Pulled"},
          {"message", "Image pulled"},
          {"source", {{"component", "kubelet"}, {"host", "node-1"}}},
          {"firstTimestamp", "2024-01-01T00:00:00Z"},
          {"lastTimestamp", "2024-01-01T00:00:05Z"},
          {"count", 3},
          {"type", "Normal"}};
}

json without_metadata(json object) {
  object.erase("metadata");
  return object;
}

TEST_CASE("an events.k8s.io Event reads through core v1 with the core field names", "[events]") {
  Api api;
  REQUIRE(api.call("POST", kNew, scheduled("s1")).status == 201);
  auto core = api.call("GET", std::string(kCore) + "/s1");
  REQUIRE(core.status == 200);
  CHECK(without_metadata(core.body) ==
        json{{"apiVersion", "v1"},
             {"kind", "Event"},
             {"eventTime", "2024-01-01T00:00:00.000000Z"},
             {"reportingComponent", "default-scheduler"},
             {"reportingInstance", "default-scheduler-host"},
             {"action", "Binding"},
             {"reason", "Scheduled"},
             {"message", "Successfully assigned default/web to node-1"},
             {"type", "Normal"},
             {"involvedObject",
              {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web"}, {"uid", "u1"}}}});
  // Read back through its own API, it is what was written.
  auto again = api.call("GET", std::string(kNew) + "/s1");
  CHECK(without_metadata(again.body) == without_metadata(scheduled("s1")));
  // The field ownership is recorded in the API and names the request used.
  const json& managed = core.body["metadata"]["managedFields"][0];
  CHECK(managed["apiVersion"] == "events.k8s.io/v1");
  CHECK(managed["fieldsV1"].contains("f:note"));
}

TEST_CASE("a core Event reads through events.k8s.io with the deprecated field names", "[events]") {
  Api api;
  REQUIRE(api.call("POST", kCore, pulled("p1")).status == 201);
  auto listed = api.call("GET", kNew);
  REQUIRE(listed.status == 200);
  CHECK(listed.body["apiVersion"] == "events.k8s.io/v1");
  CHECK(listed.body["kind"] == "EventList");
  REQUIRE(listed.body["items"].size() == 1);
  CHECK(without_metadata(listed.body["items"][0]) ==
        json{{"deprecatedCount", 3},
             {"deprecatedFirstTimestamp", "2024-01-01T00:00:00Z"},
             {"deprecatedLastTimestamp", "2024-01-01T00:00:05Z"},
             {"deprecatedSource", {{"component", "kubelet"}, {"host", "node-1"}}},
             {"note", "Image pulled"},
             {"reason", "Pulled"},
             {"regarding", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web"}}},
             {"type", "Normal"}});
}

TEST_CASE("field selectors take each API's names for the same stored field", "[events]") {
  Api api;
  REQUIRE(api.call("POST", kNew, scheduled("s1")).status == 201);
  REQUIRE(api.call("POST", kCore, pulled("p1")).status == 201);
  auto names = [&](const std::string& target) {
    auto reply = api.call("GET", target);
    REQUIRE(reply.status == 200);
    std::string out;
    for (const auto& item : reply.body["items"]) {
      out += (out.empty() ? "" : " ") + item["metadata"]["name"].get<std::string>();
    }
    return out;
  };
  CHECK(names(std::string(kCore) + "?fieldSelector=reason%3DScheduled,involvedObject.name%3Dweb") ==
        "s1");
  CHECK(names(std::string(kCore) + "?fieldSelector=reportingComponent%3Ddefault-scheduler") ==
        "s1");
  CHECK(names(std::string(kCore) + "?fieldSelector=source%3Dkubelet") == "p1");
  CHECK(names(std::string(kNew) + "?fieldSelector=regarding.name%3Dweb") == "p1 s1");
  CHECK(names(std::string(kNew) + "?fieldSelector=reportingController%3Ddefault-scheduler") ==
        "s1");
  CHECK(names(std::string(kNew) + "?fieldSelector=type%3DNormal,source%3Dkubelet") == "p1");
  check_status(api.call("GET", std::string(kNew) + "?fieldSelector=involvedObject.name%3Dweb"), 400,
               "BadRequest", "field label not supported: involvedObject.name");
}

TEST_CASE("a strategic merge patch of the series through events.k8s.io shows in core v1",
          "[events]") {
  Api api;
  REQUIRE(api.call("POST", kNew, scheduled("s1")).status == 201);
  auto patched =
      api.patch(std::string(kNew) + "/s1", "application/strategic-merge-patch+json",
                R"({"series":{"count":2,"lastObservedTime":"2024-01-01T00:05:00.000000Z"}})");
  REQUIRE(patched.status == 200);
  CHECK(patched.body["apiVersion"] == "events.k8s.io/v1");
  CHECK(patched.body["note"] == "Successfully assigned default/web to node-1");
  auto core = api.call("GET", std::string(kCore) + "/s1");
  CHECK(core.body["series"] ==
        json{{"count", 2}, {"lastObservedTime", "2024-01-01T00:05:00.000000Z"}});
  CHECK(core.body["message"] == "Successfully assigned default/web to node-1");
  CHECK_FALSE(core.body.contains("note"));
}

TEST_CASE("a watch through events.k8s.io sends the events API's form", "[events]") {
  Api api;
  auto stream = api.watch(std::string(kNew) + "?watch=true&fieldSelector=regarding.name%3Dweb");
  EventReader reader(*stream);
  REQUIRE(api.call("POST", kCore, pulled("p1")).status == 201);
  json event = reader.next();
  CHECK(event["type"] == "ADDED");
  CHECK(event["object"]["apiVersion"] == "events.k8s.io/v1");
  CHECK(event["object"]["note"] == "Image pulled");
  CHECK(event["object"]["regarding"]["name"] == "web");
  CHECK_FALSE(event["object"].contains("message"));
  stream->close();
}

TEST_CASE("deleting through events.k8s.io answers in its form", "[events]") {
  Api api;
  REQUIRE(api.call("POST", kCore, pulled("p1")).status == 201);
  auto deleted = api.call("DELETE", std::string(kNew) + "/p1");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.body["kind"] == "Status");
  CHECK(api.call("GET", std::string(kCore) + "/p1").status == 404);
}

TEST_CASE("events.k8s.io creates take the newer API's rules", "[events]") {
  Api api;
  json bad = {{"apiVersion", "events.k8s.io/v1"},
              {"kind", "Event"},
              {"metadata", {{"name", "bad"}, {"namespace", "default"}}},
              {"reason", "Foo"},
              {"type", "Odd"},
              {"deprecatedCount", 3},
              {"regarding", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web"}}}};
  check_status(api.call("POST", kNew, bad), 422, "Invalid",
               "Event.events.k8s.io \"bad\" is invalid: [eventTime: Required value, type: Invalid "
               "value: \"\": has invalid value: Odd, count: Invalid value: \"\": needs to be "
               "unset]");
  // The same fields through core v1 are a legacy Event, which is fine.
  json legacy = pulled("legacy");
  legacy["type"] = "Odd";
  CHECK(api.call("POST", kCore, legacy).status == 201);
  // With an eventTime, both APIs want the reporting controller and instance, action and reason.
  json bare = {{"apiVersion", "v1"},
               {"kind", "Event"},
               {"metadata", {{"name", "bare"}, {"namespace", "default"}}},
               {"eventTime", "2024-01-01T00:00:00.000000Z"},
               {"involvedObject", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web"}}}};
  auto refused = api.call("POST", kCore, bare);
  CHECK(refused.status == 422);
  std::string fields;
  for (const auto& cause : refused.body["details"]["causes"]) {
    fields += cause["field"].get<std::string>() + " ";
  }
  CHECK(fields ==
        "reportingController reportingController reportingController reportingInstance action "
        "reason ");
}

TEST_CASE("events.k8s.io updates may change only the series", "[events]") {
  Api api;
  REQUIRE(api.call("POST", kNew, scheduled("s1")).status == 201);
  json changed = api.call("GET", std::string(kNew) + "/s1").body;
  changed["note"] = "something else";
  changed["regarding"]["name"] = "other";
  check_status(api.call("PUT", std::string(kNew) + "/s1", changed), 422, "Invalid",
               "Event.events.k8s.io \"s1\" is invalid: [involvedObject: Invalid value: "
               "core.ObjectReference{Kind:\"Pod\", Namespace:\"default\", Name:\"other\", "
               "UID:\"u1\", APIVersion:\"\", ResourceVersion:\"\", FieldPath:\"\"}: field is "
               "immutable, message: Invalid value: \"something else\": field is immutable]");
  // Through core v1 the same change is allowed (legacy rules only).
  json core = api.call("GET", std::string(kCore) + "/s1").body;
  core["message"] = "something else";
  auto updated = api.call("PUT", std::string(kCore) + "/s1", core);
  REQUIRE(updated.status == 200);
  CHECK(api.call("GET", std::string(kNew) + "/s1").body["note"] == "something else");
  // A series too short is refused.
  json series = api.call("GET", std::string(kNew) + "/s1").body;
  series["series"] = {{"count", 1}, {"lastObservedTime", "2024-01-01T00:05:00.000000Z"}};
  check_status(api.call("PUT", std::string(kNew) + "/s1", series), 422, "Invalid",
               "Event.events.k8s.io \"s1\" is invalid: series.count: Invalid value: \"\": should "
               "be at least 2");
}

}  // namespace
}  // namespace apiserver::testing
