// The request pipeline's stages and the trace each request leaves (pipeline/, trace/,
// GET /debug/requests).
#include <catch2/catch.hpp>
#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "pipeline/pipeline.h"
#include "test_api.h"
#include "trace/request_trace.h"

using apiserver::testing::Api;
using apiserver::testing::configmap;
using apiserver::testing::kConfigMaps;
using nlohmann::json;
namespace trace = apiserver::trace;
namespace pipeline = apiserver::pipeline;

namespace {

trace::RequestTrace traced(const std::string& user, const std::string& verb,
                           const std::string& name) {
  trace::RequestTrace t;
  t.user = user;
  t.verb = verb;
  t.resource = "configmaps";
  t.name = name;
  return t;
}

// The stage names and decisions of a trace's JSON, as "stage=decision" lines.
std::vector<std::string> stage_lines(const json& item) {
  std::vector<std::string> lines;
  for (const auto& s : item.at("stages")) {
    lines.push_back(s.at("stage").get<std::string>() + "=" + s.at("decision").get<std::string>());
  }
  return lines;
}

}  // namespace

TEST_CASE("notes go to the current thread's trace, and nowhere without one", "[trace]") {
  CHECK_FALSE(trace::active());
  trace::note("storage", "dropped");  // no trace: nothing happens
  trace::RequestTrace outer;
  {
    trace::Scope scope(outer);
    CHECK(trace::active());
    trace::note("storage", "first");
    trace::RequestTrace inner;
    {
      trace::Scope nested(inner);
      trace::note("storage", "inner");
    }
    trace::note("storage", "second");
    CHECK(inner.notes.size() == 1);
  }
  CHECK_FALSE(trace::active());
  REQUIRE(outer.notes.size() == 2);
  CHECK(outer.notes[0].text == "first");
  CHECK(outer.notes[1].text == "second");
  trace::RequestTrace busy;
  trace::Scope scope(busy);
  for (size_t i = 0; i < trace::kMaxNotes + 10; ++i) {
    trace::note("storage", std::to_string(i));
  }
  CHECK(busy.notes.size() == trace::kMaxNotes);
}

TEST_CASE("the trace log keeps the newest, and filters them", "[trace]") {
  trace::TraceLog log(3);
  CHECK(log.next_id() == 1);
  CHECK(log.next_id() == 2);
  auto add = [&](const std::string& user, const std::string& verb, const std::string& name) {
    auto t = traced(user, verb, name);
    t.id = log.next_id();
    log.add(std::move(t));
  };
  add("alice", "get", "a");
  add("bob", "create", "b");
  add("alice", "create", "c");
  add("alice", "get", "d");  // "a" falls out
  // A request that finishes after a newer one in its slot is not kept.
  auto late = traced("carol", "get", "late");
  late.id = 1;
  log.add(std::move(late));
  auto names = [&](const trace::TraceLog::Filter& filter) {
    std::string joined;
    for (const auto& t : log.list(filter)) {
      joined += t.name;
    }
    return joined;
  };
  CHECK(names({}) == "bcd");
  CHECK(names({"alice", "", "", "", 0}) == "cd");
  CHECK(names({"", "create", "", "", 0}) == "bc");
  CHECK(names({"", "", "configmaps", "d", 0}) == "d");
  CHECK(names({"", "", "", "", 2}) == "cd");  // the newest two, oldest first
  CHECK(names({"carol", "", "", "", 0}).empty());
}

TEST_CASE("the pipeline runs its stages in order until one answers", "[pipeline]") {
  apiserver::http::Request request;
  trace::RequestTrace t;
  std::string order;
  auto pass = [&](const std::string& name) {
    return pipeline::Stage{name, [&order, name](pipeline::Context&) -> pipeline::Outcome {
                             order += name;
                             return {"passed", std::nullopt};
                           }};
  };
  apiserver::http::Response teapot;
  teapot.status = 418;
  std::vector<pipeline::Stage> stages = {pass("a"),
                                         pass("b"),
                                         {"answer",
                                          [&](pipeline::Context&) -> pipeline::Outcome {
                                            return {"answered", teapot};
                                          }},
                                         pass("never")};
  pipeline::Context context(request, &t);
  CHECK(pipeline::run(stages, context).status == 418);
  CHECK(order == "ab");
  CHECK(context.answered_by == "answer");
  REQUIRE(t.steps.size() == 3);
  CHECK(t.steps[2].decision == "answered");

  SECTION("only the first stages, when asked") {
    pipeline::Context header_only(request, &t);
    CHECK_FALSE(pipeline::run_stages(stages, 2, header_only).has_value());
  }
  SECTION("a list where no stage answers is a 500") {
    pipeline::Context none(request, &t);
    CHECK(pipeline::run({pass("x")}, none).status == 500);
  }
  SECTION("a stage that throws is recorded, and the exception goes on to the barrier") {
    trace::RequestTrace failed;
    pipeline::Context throwing(request, &failed);
    std::vector<pipeline::Stage> broken = {pass("a"),
                                           {"broken", [](pipeline::Context&) -> pipeline::Outcome {
                                              throw std::runtime_error("stage broke");
                                            }}};
    CHECK_THROWS_WITH(pipeline::run(broken, throwing), "stage broke");
    REQUIRE(failed.steps.size() == 2);
    CHECK(failed.steps[1].stage == "broken");
    CHECK(failed.steps[1].decision.find("stage broke") != std::string::npos);
  }
}

TEST_CASE("each request's trace is served at /debug/requests", "[pipeline][trace]") {
  Api api;
  REQUIRE(api.call("POST", kConfigMaps, configmap("traced")).status == 201);
  REQUIRE(api.call("GET", std::string(kConfigMaps) + "/traced").status == 200);

  auto reply = api.call("GET", "/debug/requests?verb=create&resource=configmaps&name=");
  REQUIRE(reply.status == 200);
  CHECK(reply.body["capacity"] == 200);
  REQUIRE(reply.body["items"].size() == 1);
  const json& created = reply.body["items"][0];
  CHECK(created["user"] == "admin");
  CHECK(created["groups"] == json::array({"system:masters", "system:authenticated"}));
  CHECK(created["method"] == "POST");
  CHECK(created["namespace"] == "default");
  CHECK(created["code"] == 201);
  CHECK(stage_lines(created) ==
        std::vector<std::string>{"request info=resource", "authentication=authenticated",
                                 "authorization=allow (system:masters)", "handler=answered"});
  bool stored = false;
  for (const auto& n : created["notes"]) {
    const std::string text = n["text"];
    stored = stored ||
             (n["layer"] == "storage" &&
              text.rfind("txn if /registry/configmaps/default/traced absent then put (", 0) == 0 &&
              text.find("): revision ") != std::string::npos);
  }
  CHECK(stored);

  auto got = api.call("GET", "/debug/requests?verb=get&name=traced&limit=1");
  REQUIRE(got.body["items"].size() == 1);
  // The aggregation layer passed it on first, then storage read it.
  CHECK(got.body["items"][0]["notes"][0]["text"] == "delegated to the local kube-apiserver");
  CHECK(got.body["items"][0]["notes"][1]["text"].get<std::string>().rfind(
            "range /registry/configmaps/default/traced: mod_revision ", 0) == 0);
  // /debug/requests itself is not traced.
  const auto all = api.call("GET", "/debug/requests");
  for (const auto& item : all.body["items"]) {
    CHECK(item["target"].get<std::string>().rfind("/debug/requests", 0) != 0);
  }
}

TEST_CASE("a write's trace names the fields defaulting set", "[pipeline][trace]") {
  Api api;
  REQUIRE(api.call("POST", "/apis/apps/v1/namespaces/default/deployments",
                   apiserver::testing::deployment("web", 1))
              .status == 201);
  auto items = api.call("GET", "/debug/requests?verb=create&resource=deployments").body["items"];
  REQUIRE(items.size() == 1);
  std::string defaults;
  for (const auto& n : items[0]["notes"]) {
    if (n["layer"] == "defaults") {
      defaults = n["text"];
    }
  }
  INFO(defaults);
  CHECK(defaults.rfind("set ", 0) == 0);
  for (const char* field : {"spec.progressDeadlineSeconds", "spec.strategy",
                            "spec.template.spec.containers[0].imagePullPolicy"}) {
    CHECK(defaults.find(field) != std::string::npos);
  }

  REQUIRE(api.call("POST", kConfigMaps, configmap("plain")).status == 201);
  auto plain = api.call("GET", "/debug/requests?verb=create&name=&resource=configmaps");
  bool none = false;
  for (const auto& n : plain.body["items"].back()["notes"]) {
    none = none || (n["layer"] == "defaults" && n["text"] == "none");
  }
  CHECK(none);
}

TEST_CASE("a write's trace says how many open watches its event goes to", "[pipeline][trace]") {
  Api api;
  // How many watches the note of the newest configmap write named `name` counts.
  auto watches = [&](const std::string& name) {
    auto items = api.call("GET", "/debug/requests?resource=configmaps&name=" + name).body["items"];
    const std::string prefix = "the event goes to ";
    for (const auto& n : items.back()["notes"]) {
      const std::string text = n["text"];
      if (n["layer"] == "watch" && text.rfind(prefix, 0) == 0) {
        CHECK(text.find(" of this key (each may still drop it by its selectors)") !=
              std::string::npos);
        int n = -1;
        std::from_chars(text.data() + prefix.size(), text.data() + text.size(), n);
        return n;
      }
    }
    FAIL("no watch note");
    return -1;
  };
  // The controllers' own watches (the namespace defaults controller follows configmaps) count.
  REQUIRE(api.call("POST", kConfigMaps, configmap("before")).status == 201);
  const int controllers = watches("");

  auto in_namespace = api.watch(std::string(kConfigMaps) + "?watch=1");
  auto everywhere = api.watch("/api/v1/configmaps?watch=1");
  auto other_namespace = api.watch("/api/v1/namespaces/kube-system/configmaps?watch=1");
  REQUIRE(api.call("POST", kConfigMaps, configmap("watched")).status == 201);
  CHECK(watches("") == controllers + 2);

  in_namespace->close();
  everywhere->close();
  REQUIRE(api.call("DELETE", std::string(kConfigMaps) + "/watched").status == 200);
  CHECK(watches("watched") == controllers);
  other_namespace->close();
}

TEST_CASE("a refused request's trace ends at the stage that refused it", "[pipeline][trace]") {
  Api api;
  auto anonymous = apiserver::testing::make_request("GET", kConfigMaps, nullptr, "");
  anonymous.headers.erase("Authorization");
  CHECK(api.raw(anonymous).status == 403);
  auto wrong = apiserver::testing::make_request("GET", "/version", nullptr, "not-a-token");
  CHECK(api.raw(wrong).status == 401);

  auto items = api.call("GET", "/debug/requests").body["items"];
  REQUIRE(items.size() >= 2);
  const json& forbidden = items[items.size() - 2];
  CHECK(forbidden["user"] == "system:anonymous");
  CHECK(stage_lines(forbidden).back() == "authorization=forbid");
  CHECK(forbidden["code"] == 403);
  const json& unauthorized = items.back();
  CHECK(unauthorized["user"] == "");
  CHECK(stage_lines(unauthorized).back() == "authentication=refused");
}

TEST_CASE("/debug/requests checks its limit", "[pipeline][trace]") {
  Api api;
  for (const char* bad : {"0", "201", "-1", "x", "1e2", "99999999999999999999999"}) {
    auto reply = api.call("GET", std::string("/debug/requests?limit=") + bad);
    apiserver::testing::check_status(reply, 400, "BadRequest",
                                     "limit must be a whole number from 1 to 200");
  }
  CHECK(api.call("POST", "/debug/requests").status == 405);
}
