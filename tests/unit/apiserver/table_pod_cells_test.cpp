// The cells of pod rows, as kubectl's printPod fills them, and the Completed row condition of
// finished pods.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "registry/table.h"
#include "table_test_support.h"

using apiserver::registry::TableOptions;
using apiserver::registry::to_table;
using namespace table_test;

namespace {

json container_status(const std::string& name, const json& state, bool ready, int restarts = 0) {
  return {{"name", name}, {"state", state}, {"ready", ready}, {"restartCount", restarts}};
}

const json kRunning = {{"running", {{"startedAt", "2024-06-01T11:00:00Z"}}}};

}  // namespace

TEST_CASE("pod cells follow printPod", "[table]") {
  const json base_spec = {{"nodeName", "node-1"},
                          {"containers", {{{"name", "app"}, {"image", "nginx"}}}}};

  SECTION("a running pod") {
    const json pod = {{"metadata", meta("web-0", 330s)},
                      {"spec", base_spec},
                      {"status",
                       {{"phase", "Running"},
                        {"podIP", "10.0.0.7"},
                        {"podIPs", {{{"ip", "10.0.0.7"}}, {{"ip", "fd00::7"}}}},
                        {"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
                        {"containerStatuses", {container_status("app", kRunning, true)}}}}};
    CHECK(cells("", "v1", "pods", pod) == json({"web-0", "1/1", "Running", "0", "5m30s", "10.0.0.7",
                                                "node-1", "<none>", "<none>"}));
  }

  SECTION("a pending pod creating its containers") {
    const json pod = {
        {"metadata", meta("web-1", 10s)},
        {"spec", {{"containers", {{{"name", "app"}}, {{"name", "log"}}}}}},
        {"status",
         {{"phase", "Pending"},
          {"containerStatuses",
           {container_status("app", {{"waiting", {{"reason", "ContainerCreating"}}}}, false),
            container_status("log", {{"waiting", {{"reason", "ContainerCreating"}}}}, false)}}}}};
    CHECK(cells("", "v1", "pods", pod) == json({"web-1", "0/2", "ContainerCreating", "0", "10s",
                                                "<none>", "<none>", "<none>", "<none>"}));
  }

  SECTION("an unscheduled pod shows its phase") {
    const json pod = {
        {"metadata", meta("p", 3s)}, {"spec", base_spec}, {"status", {{"phase", "Pending"}}}};
    CHECK(cells("", "v1", "pods", pod)[2] == "Pending");
    CHECK(cells("", "v1", "pods", pod)[1] == "0/1");
  }

  SECTION("a crash-looping pod with its last restart time") {
    json cs = container_status(
        "app", {{"waiting", {{"reason", "CrashLoopBackOff"}, {"message", "back-off"}}}}, false, 7);
    cs["lastState"] = {
        {"terminated", {{"exitCode", 1}, {"reason", "Error"}, {"finishedAt", ts(200s)}}}};
    const json pod = {{"metadata", meta("crash", 3600s)},
                      {"spec", base_spec},
                      {"status", {{"phase", "Running"}, {"containerStatuses", {cs}}}}};
    const json c = cells("", "v1", "pods", pod);
    CHECK(c[1] == "0/1");
    CHECK(c[2] == "CrashLoopBackOff");
    CHECK(c[3] == "7 (3m20s ago)");
    CHECK(c[4] == "60m");
  }

  SECTION("restarts without a known termination time have no suffix") {
    const json pod = {{"metadata", meta("r")},
                      {"spec", base_spec},
                      {"status",
                       {{"phase", "Running"},
                        {"containerStatuses", {container_status("app", kRunning, true, 2)}}}}};
    CHECK(cells("", "v1", "pods", pod)[3] == "2");
  }

  SECTION("init containers") {
    json spec = base_spec;
    spec["initContainers"] = {{{"name", "migrate"}}, {{"name", "seed"}}};
    // A json built from a braced list of one element is a copy of that element, not an array.
    const auto pod_with = [&](std::vector<json> init_statuses) {
      return json{
          {"metadata", meta("init")},
          {"spec", spec},
          {"status",
           {{"phase", "Pending"},
            {"initContainerStatuses", json(std::move(init_statuses))},
            {"containerStatuses",
             {container_status("app", {{"waiting", {{"reason", "PodInitializing"}}}}, false)}}}}};
    };
    const json done = {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}};
    const json pod_init = {{"waiting", {{"reason", "PodInitializing"}}}};

    CHECK(cells("", "v1", "pods",
                pod_with({container_status("migrate", kRunning, false),
                          container_status("seed", pod_init, false)}))[2] == "Init:0/2");
    CHECK(cells("", "v1", "pods",
                pod_with({container_status("migrate", done, false),
                          container_status("seed", kRunning, false)}))[2] == "Init:1/2");
    json crashing =
        container_status("migrate", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}, false, 3);
    crashing["lastState"] = {{"terminated", {{"exitCode", 2}, {"finishedAt", ts(30s)}}}};
    const json crash_cells = cells("", "v1", "pods", pod_with({crashing}));
    CHECK(crash_cells[2] == "Init:CrashLoopBackOff");
    CHECK(crash_cells[3] == "3 (30s ago)");  // init restarts while initializing
    CHECK(cells("", "v1", "pods",
                pod_with({container_status("migrate",
                                           {{"terminated", {{"exitCode", 1}, {"reason", "Error"}}}},
                                           false)}))[2] == "Init:Error");
    CHECK(cells("", "v1", "pods",
                pod_with({container_status("migrate", {{"terminated", {{"exitCode", 3}}}},
                                           false)}))[2] == "Init:ExitCode:3");
    CHECK(cells("", "v1", "pods",
                pod_with({container_status(
                    "migrate", {{"terminated", {{"exitCode", 137}, {"signal", 9}}}}, false)}))[2] ==
          "Init:Signal:9");
  }

  SECTION("a started sidecar counts toward READY and does not block initialization") {
    json spec = base_spec;
    spec["initContainers"] = {{{"name", "proxy"}, {"restartPolicy", "Always"}}};
    json sidecar = container_status("proxy", kRunning, true, 1);
    sidecar["started"] = true;
    const json pod = {{"metadata", meta("mesh")},
                      {"spec", spec},
                      {"status",
                       {{"phase", "Running"},
                        {"conditions", {{{"type", "Initialized"}, {"status", "True"}}}},
                        {"initContainerStatuses", {sidecar}},
                        {"containerStatuses", {container_status("app", kRunning, true, 2)}}}}};
    const json c = cells("", "v1", "pods", pod);
    CHECK(c[1] == "2/2");
    CHECK(c[2] == "Running");
    CHECK(c[3] == "3");
  }

  SECTION("terminated containers without a reason") {
    const json pod = {
        {"metadata", meta("t")},
        {"spec", base_spec},
        {"status",
         {{"phase", "Failed"},
          {"containerStatuses",
           {container_status("app", {{"terminated", {{"exitCode", 0}, {"signal", 15}}}},
                             false)}}}}};
    CHECK(cells("", "v1", "pods", pod)[2] == "Signal:15");
  }

  SECTION("Completed with a container still running reads Running or NotReady") {
    json pod = {
        {"metadata", meta("job")},
        {"spec", {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}}},
        {"status",
         {{"phase", "Running"},
          {"containerStatuses",
           {container_status("a", kRunning, true),
            container_status("b", {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}},
                             false)}}}}};
    CHECK(cells("", "v1", "pods", pod)[2] == "NotReady");
    pod["status"]["conditions"] = {{{"type", "Ready"}, {"status", "True"}}};
    CHECK(cells("", "v1", "pods", pod)[2] == "Running");
  }

  SECTION("deletion: Terminating, NodeLost, and finished pods keep their status") {
    json pod = {
        {"metadata", meta("bye")},
        {"spec", base_spec},
        {"status",
         {{"phase", "Running"}, {"containerStatuses", {container_status("app", kRunning, true)}}}}};
    pod["metadata"]["deletionTimestamp"] = ts(5s);
    CHECK(cells("", "v1", "pods", pod)[2] == "Terminating");
    pod["status"]["reason"] = "NodeLost";
    CHECK(cells("", "v1", "pods", pod)[2] == "Unknown");
    pod["status"].erase("reason");
    pod["status"]["phase"] = "Succeeded";
    pod["status"]["containerStatuses"] = json::array({container_status(
        "app", {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}}, false)});
    CHECK(cells("", "v1", "pods", pod)[2] == "Completed");
  }

  SECTION("scheduling gates, evictions and readiness gates") {
    const json gated = {
        {"metadata", meta("g")},
        {"spec", base_spec},
        {"status",
         {{"phase", "Pending"},
          {"conditions",
           {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "SchedulingGated"}}}}}}};
    CHECK(cells("", "v1", "pods", gated)[2] == "SchedulingGated");
    const json evicted = {{"metadata", meta("e")},
                          {"spec", base_spec},
                          {"status", {{"phase", "Failed"}, {"reason", "Evicted"}}}};
    CHECK(cells("", "v1", "pods", evicted)[2] == "Evicted");
    json spec = base_spec;
    spec["readinessGates"] = {{{"conditionType", "example.com/lb"}},
                              {{"conditionType", "example.com/dns"}}};
    const json gates = {{"metadata", meta("rg")},
                        {"spec", spec},
                        {"status",
                         {{"phase", "Running"},
                          {"nominatedNodeName", "node-2"},
                          {"conditions",
                           {{{"type", "example.com/lb"}, {"status", "True"}},
                            {{"type", "example.com/dns"}, {"status", "False"}}}}}}};
    const json c = cells("", "v1", "pods", gates);
    CHECK(c[7] == "node-2");
    CHECK(c[8] == "1/2");
  }
}

TEST_CASE("finished pods carry the Completed row condition", "[table]") {
  TableOptions options;
  options.now = kNow;
  const json pod = {{"metadata", meta("done")}, {"status", {{"phase", "Succeeded"}}}};
  const json table = to_table(resource("", "v1", "pods"), {pod}, options);
  const json& cond = table.at("rows").at(0).at("conditions").at(0);
  CHECK(cond.at("type") == "Completed");
  CHECK(cond.at("status") == "True");
  CHECK(cond.at("reason") == "Succeeded");
  const json running = {{"metadata", meta("run")}, {"status", {{"phase", "Running"}}}};
  CHECK_FALSE(to_table(resource("", "v1", "pods"), {running}, options)
                  .at("rows")
                  .at(0)
                  .contains("conditions"));
}
