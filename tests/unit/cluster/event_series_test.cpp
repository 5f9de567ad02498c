// The events.k8s.io recorder (client/event_recorder: EventSeriesRecorder) against a fake API:
// what it creates, when a repeat becomes a series, and when the series' count is written.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/event_recorder.h"
#include "common/clock.h"

using nlohmann::json;

namespace {

struct Call {
  std::string method;
  std::string path;
  std::string content_type;
  json body;
};

// An API that records each request and answers as kube-apiserver would for events (404 for a
// patch of an event it was told is gone).
struct FakeApi {
  std::vector<Call> calls;
  bool gone = false;

  cluster::Client client() {
    return cluster::Client(
        [this](apiserver::http::Request& request) {
          calls.push_back({request.method, request.path, request.header("Content-Type"),
                           json::parse(request.body, nullptr, false)});
          apiserver::http::Response response;
          response.set_header("Content-Type", "application/json");
          if (request.method == "PATCH" && gone) {
            response.status = 404;
            response.body =
                R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})";
            return response;
          }
          response.status = request.method == "POST" ? 201 : 200;
          response.body = request.body.empty() ? "{}" : request.body;
          return response;
        },
        {"system:kube-scheduler", {}}, "test");
  }
};

// A recorder writing to a fake API on a fake clock.
struct Recording {
  FakeApi api;
  const cluster::Client client = api.client();
  common::FakeClock clock;
  cluster::EventSeriesRecorder recorder{client, "default-scheduler", "i", clock};

  // kube-scheduler's FailedScheduling about version `resource_version` of the pod.
  void failed(const std::string& note, const std::string& resource_version = "7");
};

json pod(const std::string& resource_version) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", "web"},
            {"namespace", "default"},
            {"uid", "u1"},
            {"resourceVersion", resource_version}}}};
}

void Recording::failed(const std::string& note, const std::string& resource_version) {
  recorder.record(pod(resource_version), nullptr, "Warning", "FailedScheduling", "Scheduling",
                  note);
}

}  // namespace

TEST_CASE("an events.k8s.io event names its controller, instance, action and object",
          "[cluster][events]") {
  FakeApi api;
  const cluster::Client client = api.client();
  common::FakeClock clock;
  cluster::EventSeriesRecorder recorder(client, "default-scheduler", "default-scheduler-host",
                                        clock);
  recorder.record(pod("7"), nullptr, "Normal", "Scheduled", "Binding",
                  "Successfully assigned default/web to node-1");
  REQUIRE(api.calls.size() == 1);
  const Call& call = api.calls[0];
  CHECK(call.method == "POST");
  CHECK(call.path == "/apis/events.k8s.io/v1/namespaces/default/events");
  json body = call.body;
  CHECK(body["metadata"]["name"].get<std::string>().starts_with("web."));
  body["metadata"].erase("name");
  CHECK(body == json{{"apiVersion", "events.k8s.io/v1"},
                     {"kind", "Event"},
                     {"metadata", {{"namespace", "default"}}},
                     {"eventTime", "2024-01-01T00:00:00.000000Z"},
                     {"reportingController", "default-scheduler"},
                     {"reportingInstance", "default-scheduler-host"},
                     {"action", "Binding"},
                     {"reason", "Scheduled"},
                     {"note", "Successfully assigned default/web to node-1"},
                     {"type", "Normal"},
                     {"regarding",
                      {{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"name", "web"},
                       {"namespace", "default"},
                       {"resourceVersion", "7"},
                       {"uid", "u1"}}}});
  // By default the instance is the controller and this host's name.
  cluster::EventSeriesRecorder named(client, "default-scheduler", std::nullopt, clock);
  CHECK(named.instance().starts_with("default-scheduler-"));
  CHECK(named.instance().size() > std::string("default-scheduler-").size());
}

TEST_CASE("a repeated event becomes a series whose count is written later", "[cluster][events]") {
  Recording r;
  r.failed("first");
  r.clock.advance(std::chrono::seconds(10));
  // Same object, type, reason and action: the note may differ, the first one stays.
  r.failed("second");
  const auto& calls = r.api.calls;
  REQUIRE(calls.size() == 2);
  const std::string name = calls[0].body["metadata"]["name"];
  CHECK(calls[1].method == "PATCH");
  CHECK(calls[1].path == "/apis/events.k8s.io/v1/namespaces/default/events/" + name);
  CHECK(calls[1].content_type == "application/strategic-merge-patch+json");
  CHECK(calls[1].body ==
        json{{"series", {{"count", 2}, {"lastObservedTime", "2024-01-01T00:00:10.000000Z"}}}});
  // Later repeats are only counted...
  for (int i = 0; i < 3; ++i) {
    r.clock.advance(std::chrono::seconds(10));
    r.failed("again");
  }
  CHECK(calls.size() == 2);
  // ...until the refresh writes the count.
  r.recorder.refresh_series();
  REQUIRE(calls.size() == 3);
  CHECK(calls[2].body["series"]["count"] == 5);
  // Another pod version is another object: a new event.
  r.failed("third", "8");
  REQUIRE(calls.size() == 4);
  CHECK(calls[3].method == "POST");
}

TEST_CASE("a series ends after six quiet minutes with its last count", "[cluster][events]") {
  Recording r;
  const auto& calls = r.api.calls;
  r.recorder.start();  // its thread ends series every six minutes
  REQUIRE(r.clock.wait_for_waiters(1, std::chrono::seconds(10)));
  for (int i = 0; i < 3; ++i) {
    r.failed("x");
  }
  r.recorder.record(pod("1"), nullptr, "Normal", "Scheduled", "Binding", "single");
  REQUIRE(calls.size() == 3);  // create, series of 2, create
  r.recorder.finish_series();
  CHECK(calls.size() == 3);  // not quiet long enough
  r.clock.advance(std::chrono::minutes(5));
  CHECK(calls.size() == 3);
  r.clock.advance(std::chrono::minutes(2));
  REQUIRE(r.clock.wait_for_waiters(1, std::chrono::seconds(10)));  // it ran, and waits again
  r.recorder.stop();
  REQUIRE(calls.size() == 4);
  CHECK(calls[3].method == "PATCH");
  CHECK(calls[3].body["series"]["count"] == 3);
  // Both are forgotten: the same event again starts afresh.
  r.failed("x");
  REQUIRE(calls.size() == 5);
  CHECK(calls[4].method == "POST");
}

TEST_CASE("a series whose event is gone is created again with its series", "[cluster][events]") {
  Recording r;
  r.failed("x");
  r.api.gone = true;
  r.failed("x");
  const auto& calls = r.api.calls;
  REQUIRE(calls.size() == 3);
  CHECK(calls[1].method == "PATCH");
  CHECK(calls[2].method == "POST");
  CHECK(calls[2].body["series"]["count"] == 2);
  CHECK(calls[2].body["note"] == "x");
}
