// pods/log of simulated containers (endpoints/pod_log): which run, the lines, the options.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "endpoints/pod_log.h"

using nlohmann::json;
using namespace apiserver::endpoints;
using namespace std::chrono_literals;

namespace {

const auto kStart = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

json pod(const json& state) {
  return {
      {"metadata", {{"name", "web"}}},
      {"spec",
       {{"nodeName", "node-1"},
        {"containers", json::array({{{"name", "nginx"}, {"image", "nginx"}}})}}},
      {"status", {{"containerStatuses", json::array({{{"name", "nginx"}, {"state", state}}})}}}};
}

}  // namespace

TEST_CASE("pods/log picks the container's run or says why not", "[endpoints][pods]") {
  LogOptions options;
  auto waiting = log_run(pod({{"waiting", {{"reason", "ContainerCreating"}}}}), options);
  REQUIRE_FALSE(waiting);
  CHECK(waiting.error().message ==
        "container \"nginx\" in pod \"web\" is waiting to start: ContainerCreating");
  options.previous = true;
  auto previous = log_run(pod({{"running", {{"startedAt", "2027-01-15T08:00:00Z"}}}}), options);
  REQUIRE_FALSE(previous);
  CHECK(previous.error().message ==
        "previous terminated container \"nginx\" in pod \"web\" not found");
  options = {};
  options.container = "sidecar";
  auto unknown = log_run(pod({{"running", json::object()}}), options);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == 400);
  CHECK(unknown.error().message == "container sidecar is not valid for pod web");
}

TEST_CASE("a pod not yet on a node has no log to read, but its container names are checked",
          "[endpoints][pods]") {
  json pending = pod(json::object());
  pending["spec"].erase("nodeName");
  pending.erase("status");
  LogOptions options;
  auto none = log_run(pending, options);
  REQUIRE(none);
  CHECK_FALSE(none->has_value());
  options.follow = true;
  CHECK_FALSE(log_run(pending, options)->has_value());
  options.container = "sidecar";
  auto unknown = log_run(pending, options);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "container sidecar is not valid for pod web");
  // Once bound and running, there is a run to read.
  auto running = log_run(pod({{"running", {{"startedAt", "2027-01-15T08:00:00Z"}}}}), {});
  REQUIRE(running);
  REQUIRE(running->has_value());
  CHECK((*running)->container == "nginx");
}

TEST_CASE("a simulated container logs at start, every 10 s and at its exit", "[endpoints][pods]") {
  ContainerRun run{"nginx", "nginx", kStart, kStart + 25s, 3};
  const auto lines = log_lines(run, kStart + 60s);
  REQUIRE(lines.size() == 4);
  CHECK(lines[1].at == kStart + 10s);
  CHECK(lines[3].text == "kube-sandbox: nginx exited with code 3");
  CHECK(log_lines(run, kStart + 15s).size() == 2);  // not yet exited at 15 s

  LogOptions options;
  options.tail_lines = 1;
  CHECK(render_log(lines, options, kStart + 60s) == "kube-sandbox: nginx exited with code 3\n");
  options = {};
  options.limit_bytes = 12;
  CHECK(render_log(lines, options, kStart + 60s) == "kube-sandbox");
  options = {};
  options.timestamps = true;
  options.since_seconds = 40;  // from 20 s on
  CHECK(render_log(lines, options, kStart + 60s) ==
        "2027-01-15T08:00:20.000000000Z kube-sandbox: nginx is running (20s)\n"
        "2027-01-15T08:00:25.000000000Z kube-sandbox: nginx exited with code 3\n");
}
