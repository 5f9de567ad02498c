#include "registry/table.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/registry.h"
#include "builtin_resources.h"

using apiserver::registry::human_duration;
using apiserver::registry::IncludeObject;
using apiserver::registry::parse_include_object;
using apiserver::registry::Resource;
using apiserver::registry::table_cells;
using apiserver::registry::TableOptions;
using apiserver::registry::to_table;
using apiserver::registry::to_table_for_object;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// Every test measures ages from this instant: 2024-06-01T12:00:00Z.
const std::chrono::system_clock::time_point kNow =
    std::chrono::system_clock::from_time_t(1717243200);

// The RFC 3339 text of kNow minus `ago`.
std::string ts(std::chrono::seconds ago) {
  const std::time_t t = std::chrono::system_clock::to_time_t(kNow - ago);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

using apiserver::testing::all_builtin_resources;

const Resource& resource(const std::string& group, const std::string& version,
                         const std::string& plural) {
  const Resource* r = all_builtin_resources()->find(group, version, plural);
  REQUIRE(r != nullptr);
  return *r;
}

json cells(const std::string& group, const std::string& version, const std::string& plural,
           const json& object) {
  return table_cells(resource(group, version, plural), object, kNow);
}

json meta(const std::string& name, std::chrono::seconds age = 300s) {
  return {{"name", name}, {"namespace", "default"}, {"creationTimestamp", ts(age)}};
}

json container_status(const std::string& name, const json& state, bool ready, int restarts = 0) {
  return {{"name", name}, {"state", state}, {"ready", ready}, {"restartCount", restarts}};
}

const json kRunning = {{"running", {{"startedAt", "2024-06-01T11:00:00Z"}}}};

}  // namespace

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

TEST_CASE("workload cells", "[table]") {
  const json tmpl = {
      {"metadata", {{"labels", {{"app", "web"}}}}},
      {"spec",
       {{"containers",
         {{{"name", "app"}, {"image", "nginx:1.27"}}, {{"name", "log"}, {"image", "busybox"}}}}}}};
  const json selector = {
      {"matchLabels", {{"app", "web"}}},
      {"matchExpressions", {{{"key", "tier"}, {"operator", "In"}, {"values", {"fe", "be"}}}}}};

  SECTION("deployments: ready, up-to-date and available") {
    const auto deployment = [&](const json& status) {
      return json{{"metadata", meta("web", 4 * 86400s)},
                  {"spec", {{"replicas", 3}, {"selector", selector}, {"template", tmpl}}},
                  {"status", status}};
    };
    CHECK(cells("apps", "v1", "deployments",
                deployment({{"replicas", 3},
                            {"readyReplicas", 3},
                            {"updatedReplicas", 3},
                            {"availableReplicas", 3}})) ==
          json({"web", "3/3", 3, 3, "4d", "app,log", "nginx:1.27,busybox",
                "app=web,tier in (be,fe)"}));
    CHECK(cells("apps", "v1", "deployments",
                deployment({{"replicas", 4}, {"readyReplicas", 1}, {"updatedReplicas", 2}})) ==
          json({"web", "1/3", 2, 0, "4d", "app,log", "nginx:1.27,busybox",
                "app=web,tier in (be,fe)"}));
    CHECK(cells("apps", "v1", "deployments", deployment(json::object()))[1] == "0/3");
  }

  SECTION("replica sets, stateful sets and daemon sets") {
    CHECK(cells("apps", "v1", "replicasets",
                {{"metadata", meta("web-5d8f")},
                 {"spec", {{"replicas", 2}, {"selector", selector}, {"template", tmpl}}},
                 {"status", {{"replicas", 2}, {"readyReplicas", 1}}}}) ==
          json({"web-5d8f", 2, 2, 1, "5m", "app,log", "nginx:1.27,busybox",
                "app=web,tier in (be,fe)"}));
    CHECK(cells("apps", "v1", "statefulsets",
                {{"metadata", meta("db")},
                 {"spec", {{"replicas", 3}, {"template", tmpl}}},
                 {"status", {{"readyReplicas", 2}}}}) ==
          json({"db", "2/3", "5m", "app,log", "nginx:1.27,busybox"}));
    json ds_tmpl = tmpl;
    ds_tmpl["spec"]["nodeSelector"] = {{"kubernetes.io/os", "linux"}, {"disk", "ssd"}};
    CHECK(cells("apps", "v1", "daemonsets",
                {{"metadata", meta("agent")},
                 {"spec",
                  {{"selector", {{"matchLabels", {{"app", "agent"}}}}}, {"template", ds_tmpl}}},
                 {"status",
                  {{"desiredNumberScheduled", 3},
                   {"currentNumberScheduled", 3},
                   {"numberReady", 2},
                   {"updatedNumberScheduled", 3},
                   {"numberAvailable", 2}}}}) ==
          json({"agent", 3, 3, 2, 3, 2, "disk=ssd,kubernetes.io/os=linux", "5m", "app,log",
                "nginx:1.27,busybox", "app=agent"}));
  }

  SECTION("jobs: status, completions and duration") {
    const auto job = [&](const json& spec_extra, const json& status, bool deleting = false) {
      json spec = {{"template", tmpl}, {"selector", {{"matchLabels", {{"job", "x"}}}}}};
      spec.update(spec_extra);
      json m = meta("pi", 600s);
      if (deleting) {
        m["deletionTimestamp"] = ts(1s);
      }
      return json{{"metadata", m}, {"spec", spec}, {"status", status}};
    };
    CHECK(cells("batch", "v1", "jobs",
                job({{"completions", 1}, {"parallelism", 1}},
                    {{"succeeded", 1},
                     {"startTime", ts(600s)},
                     {"completionTime", ts(553s)},
                     {"conditions", {{{"type", "Complete"}, {"status", "True"}}}}})) ==
          json({"pi", "Complete", "1/1", "47s", "10m", "app,log", "nginx:1.27,busybox", "job=x"}));
    const json running = cells("batch", "v1", "jobs",
                               job({{"parallelism", 4}}, {{"active", 4}, {"startTime", ts(125s)}}));
    CHECK(running[1] == "Running");
    CHECK(running[2] == "0/1 of 4");
    CHECK(running[3] == "2m5s");
    CHECK(cells("batch", "v1", "jobs", job(json::object(), json::object()))[2] == "0/1");
    CHECK(cells("batch", "v1", "jobs", job(json::object(), json::object()))[3] == "");
    CHECK(cells("batch", "v1", "jobs",
                job({{"completions", 5}},
                    {{"conditions", {{{"type", "Failed"}, {"status", "True"}}}}}))[1] == "Failed");
    CHECK(cells("batch", "v1", "jobs", job(json::object(), json::object(), true))[1] ==
          "Terminating");
    CHECK(cells("batch", "v1", "jobs",
                job(json::object(),
                    {{"conditions", {{{"type", "Suspended"}, {"status", "True"}}}}}))[1] ==
          "Suspended");
  }

  SECTION("cron jobs print Suspend as text") {
    const json cj = {
        {"metadata", meta("nightly", 2 * 86400s)},
        {"spec",
         {{"schedule", "0 3 * * *"},
          {"suspend", false},
          {"jobTemplate", {{"spec", {{"template", tmpl}}}}}}},
        {"status", {{"active", {{{"name", "nightly-1"}}}}, {"lastScheduleTime", ts(3600s)}}}};
    CHECK(cells("batch", "v1", "cronjobs", cj) ==
          json({"nightly", "0 3 * * *", "<none>", "False", 1, "60m", "2d", "app,log",
                "nginx:1.27,busybox", "<none>"}));
  }
}

TEST_CASE("service cells for each type", "[table]") {
  const auto svc = [](const json& spec, const json& status = json::object()) {
    return json{{"metadata", meta("web", 86400s)}, {"spec", spec}, {"status", status}};
  };
  const json ports = {{{"port", 80}, {"protocol", "TCP"}, {"targetPort", 8080}},
                      {{"port", 53}, {"protocol", "UDP"}}};
  CHECK(cells("", "v1", "services",
              svc({{"type", "ClusterIP"},
                   {"clusterIP", "10.96.0.10"},
                   {"clusterIPs", {"10.96.0.10"}},
                   {"ports", ports},
                   {"selector", {{"app", "web"}, {"tier", "fe"}}}})) ==
        json({"web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP", "24h",
              "app=web,tier=fe"}));
  CHECK(cells("", "v1", "services", svc({{"type", "ClusterIP"}, {"clusterIPs", {"None"}}}))[2] ==
        "None");
  CHECK(cells("", "v1", "services", svc({{"type", "ClusterIP"}}))[4] == "<none>");
  CHECK(cells("", "v1", "services", svc({{"type", "ClusterIP"}}))[6] == "<none>");
  const json node_port =
      cells("", "v1", "services",
            svc({{"type", "NodePort"},
                 {"clusterIPs", {"10.96.1.1"}},
                 {"externalIPs", {"192.0.2.1", "192.0.2.2"}},
                 {"ports", {{{"port", 80}, {"nodePort", 30080}, {"protocol", "TCP"}}}}}));
  CHECK(node_port[3] == "192.0.2.1,192.0.2.2");
  CHECK(node_port[4] == "80:30080/TCP");
  const json lb_spec = {{"type", "LoadBalancer"}, {"clusterIPs", {"10.96.2.2"}}};
  CHECK(cells("", "v1", "services", svc(lb_spec))[3] == "<pending>");
  const json lb_status = {
      {"loadBalancer",
       {{"ingress",
         {{{"ip", "203.0.113.9"}}, {{"hostname", "lb.example.com"}}, {{"ip", "203.0.113.1"}}}}}}};
  CHECK(cells("", "v1", "services", svc(lb_spec, lb_status))[3] ==
        "203.0.113.1,203.0.113.9,lb.example.com");
  json lb_with_external = lb_spec;
  lb_with_external["externalIPs"] = {"192.0.2.5"};
  CHECK(cells("", "v1", "services", svc(lb_with_external, lb_status))[3] ==
        "203.0.113.1,203.0.113.9,lb.example.com,192.0.2.5");
  CHECK(cells("", "v1", "services", svc(lb_with_external))[3] == "192.0.2.5");
  CHECK(cells("", "v1", "services",
              svc({{"type", "ExternalName"}, {"externalName", "db.example.com"}})) ==
        json({"web", "ExternalName", "<none>", "db.example.com", "<none>", "24h", "<none>"}));
  CHECK(cells("", "v1", "services", svc(json::object()))[3] == "<unknown>");
}

TEST_CASE("core kinds: configmaps, secrets, namespaces, nodes, endpoints, events", "[table]") {
  CHECK(cells("", "v1", "configmaps",
              {{"metadata", meta("cfg", 45s)},
               {"data", {{"a", "1"}, {"b", "2"}}},
               {"binaryData", {{"c", "AA=="}}}}) == json({"cfg", 3, "45s"}));
  CHECK(cells("", "v1", "configmaps", {{"metadata", meta("empty", 45s)}}) ==
        json({"empty", 0, "45s"}));
  CHECK(cells("", "v1", "secrets",
              {{"metadata", meta("tls")},
               {"type", "kubernetes.io/tls"},
               {"data", {{"tls.crt", "eA=="}, {"tls.key", "eQ=="}}}}) ==
        json({"tls", "kubernetes.io/tls", 2, "5m"}));
  CHECK(cells("", "v1", "serviceaccounts", {{"metadata", meta("default")}}) ==
        json({"default", 0, "5m"}));
  CHECK(cells("", "v1", "namespaces",
              {{"metadata", meta("kube-system", 400 * 86400s)},
               {"status", {{"phase", "Active"}}}}) == json({"kube-system", "Active", "400d"}));

  const json node = {{"metadata",
                      {{"name", "cp-1"},
                       {"creationTimestamp", ts(8 * 86400s)},
                       {"labels",
                        {{"node-role.kubernetes.io/control-plane", ""},
                         {"node-role.kubernetes.io/", ""},
                         {"kubernetes.io/role", "master"}}}}},
                     {"spec", {{"unschedulable", true}}},
                     {"status",
                      {{"conditions",
                        {{{"type", "MemoryPressure"}, {"status", "False"}},
                         {{"type", "Ready"}, {"status", "True"}}}},
                       {"addresses",
                        {{{"type", "Hostname"}, {"address", "cp-1"}},
                         {{"type", "InternalIP"}, {"address", "192.168.1.10"}}}},
                       {"nodeInfo",
                        {{"kubeletVersion", "v1.32.0"},
                         {"osImage", "Debian GNU/Linux 12"},
                         {"kernelVersion", "6.1.0"},
                         {"containerRuntimeVersion", "containerd://1.7.0"}}}}}};
  CHECK(cells("", "v1", "nodes", node) ==
        json({"cp-1", "Ready,SchedulingDisabled", "control-plane,master", "8d", "v1.32.0",
              "192.168.1.10", "<none>", "Debian GNU/Linux 12", "6.1.0", "containerd://1.7.0"}));
  const json bare_node = {{"metadata", meta("n")}};
  CHECK(cells("", "v1", "nodes", bare_node) ==
        json({"n", "Unknown", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>",
              "<unknown>"}));
  const json not_ready = {
      {"metadata", meta("n")},
      {"status", {{"conditions", {{{"type", "Ready"}, {"status", "Unknown"}}}}}}};
  CHECK(cells("", "v1", "nodes", not_ready)[1] == "NotReady");

  const json ep = {
      {"metadata", meta("web")},
      {"subsets",
       {{{"addresses", {{{"ip", "10.0.0.1"}}, {{"ip", "10.0.0.2"}}, {{"ip", "fd00::3"}}}},
         {"ports", {{{"port", 8080}}}}},
        {{"addresses", {{{"ip", "10.0.0.9"}}}}, {"ports", {{{"port", 8080}}, {{"port", 9090}}}}}}}};
  CHECK(cells("", "v1", "endpoints", ep)[1] ==
        "10.0.0.1:8080,10.0.0.2:8080,[fd00::3]:8080 + 2 more...");
  CHECK(cells("", "v1", "endpoints", {{"metadata", meta("none")}})[1] == "<none>");

  const json event = {{"metadata", meta("web.17c")},
                      {"type", "Warning"},
                      {"reason", "BackOff"},
                      {"message", "  Back-off restarting failed container\n"},
                      {"involvedObject",
                       {{"kind", "Pod"}, {"name", "web-0"}, {"fieldPath", "spec.containers{app}"}}},
                      {"source", {{"component", "kubelet"}, {"host", "node-1"}}},
                      {"firstTimestamp", ts(3600s)},
                      {"lastTimestamp", ts(30s)},
                      {"count", 12}};
  CHECK(cells("", "v1", "events", event) ==
        json({"30s", "Warning", "BackOff", "pod/web-0", "spec.containers{app}", "kubelet, node-1",
              "Back-off restarting failed container", "60m", 12, "web.17c"}));
  const json new_api = {{"metadata", meta("e2")},
                        {"type", "Normal"},
                        {"reason", "Scheduled"},
                        {"note", "assigned"},
                        {"regarding", {{"kind", "Pod"}, {"name", "web-1"}}},
                        {"reportingController", "default-scheduler"},
                        {"eventTime", "2024-06-01T11:59:50.123456Z"}};
  CHECK(cells("events.k8s.io", "v1", "events", new_api) ==
        json({"9s", "Normal", "Scheduled", "pod/web-1", "", "default-scheduler", "assigned", "9s",
              1, "e2"}));
}

TEST_CASE("networking, storage, rbac and coordination cells", "[table]") {
  json ingress = {{"metadata", meta("web")},
                  {"spec",
                   {{"ingressClassName", "nginx"},
                    {"rules",
                     {{{"host", "a.example.com"}},
                      {{"host", ""}},
                      {{"host", "b.example.com"}},
                      {{"host", "c.example.com"}},
                      {{"host", "d.example.com"}}}},
                    {"tls", {{{"hosts", {"a.example.com"}}}}}}},
                  {"status", {{"loadBalancer", {{"ingress", {{{"ip", "192.0.2.10"}}}}}}}}};
  CHECK(cells("networking.k8s.io", "v1", "ingresses", ingress) ==
        json({"web", "nginx", "a.example.com,b.example.com,c.example.com + 2 more...", "192.0.2.10",
              "80, 443", "5m"}));
  CHECK(cells("networking.k8s.io", "v1", "ingresses", {{"metadata", meta("bare")}}) ==
        json({"bare", "<none>", "*", "", "80", "5m"}));

  const json pvc = {{"metadata", meta("data")},
                    {"spec",
                     {{"accessModes", {"ReadWriteOnce"}},
                      {"storageClassName", "standard"},
                      {"volumeName", "pv-1"},
                      {"volumeMode", "Filesystem"}}},
                    {"status",
                     {{"phase", "Bound"},
                      {"accessModes", {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteOnce"}},
                      {"capacity", {{"storage", "10Gi"}}}}}};
  CHECK(cells("", "v1", "persistentvolumeclaims", pvc) ==
        json({"data", "Bound", "pv-1", "10Gi", "RWO,ROX", "standard", "<unset>", "5m",
              "Filesystem"}));
  const json pending = {{"metadata", meta("wait")},
                        {"spec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}},
                        {"status", {{"phase", "Pending"}}}};
  CHECK(cells("", "v1", "persistentvolumeclaims", pending) ==
        json({"wait", "Pending", "", "", "", "", "<unset>", "5m", "<unset>"}));
  const json pv = {{"metadata", meta("pv-1")},
                   {"spec",
                    {{"capacity", {{"storage", "10Gi"}}},
                     {"accessModes", {"ReadWriteMany", "ReadWriteOncePod"}},
                     {"persistentVolumeReclaimPolicy", "Retain"},
                     {"claimRef", {{"namespace", "default"}, {"name", "data"}}},
                     {"storageClassName", "standard"}}},
                   {"status", {{"phase", "Bound"}}}};
  CHECK(cells("", "v1", "persistentvolumes", pv) ==
        json({"pv-1", "10Gi", "RWX,RWOP", "Retain", "Bound", "default/data", "standard", "<unset>",
              "", "5m", "<unset>"}));

  const json sc = {{"metadata",
                    {{"name", "standard"},
                     {"creationTimestamp", ts(60s)},
                     {"annotations", {{"storageclass.kubernetes.io/is-default-class", "true"}}}}},
                   {"provisioner", "rancher.io/local-path"}};
  CHECK(cells("storage.k8s.io", "v1", "storageclasses", sc) ==
        json({"standard (default)", "rancher.io/local-path", "Delete", "Immediate", false, "60s"}));

  const json rb = {
      {"metadata", meta("read")},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
      {"subjects",
       {{{"kind", "User"}, {"name", "alice"}},
        {{"kind", "User"}, {"name", "bob"}},
        {{"kind", "Group"}, {"name", "devs"}},
        {{"kind", "ServiceAccount"}, {"namespace", "ci"}, {"name", "runner"}}}}};
  CHECK(cells("rbac.authorization.k8s.io", "v1", "rolebindings", rb) ==
        json({"read", "ClusterRole/view", "5m", "alice, bob", "devs", "ci/runner"}));
  CHECK(
      cells("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
            {{"metadata", meta("none")}, {"roleRef", {{"kind", "ClusterRole"}, {"name", "x"}}}}) ==
      json({"none", "ClusterRole/x", "5m", "", "", ""}));

  CHECK(cells("coordination.k8s.io", "v1", "leases",
              {{"metadata", meta("kube-scheduler")}, {"spec", {{"holderIdentity", "cp-1_abc"}}}}) ==
        json({"kube-scheduler", "cp-1_abc", "5m"}));
  CHECK(cells("coordination.k8s.io", "v1", "leases", {{"metadata", meta("free")}}) ==
        json({"free", "", "5m"}));

  CHECK(cells("policy", "v1", "poddisruptionbudgets",
              {{"metadata", meta("pdb")},
               {"spec", {{"minAvailable", "50%"}}},
               {"status", {{"disruptionsAllowed", 1}}}}) == json({"pdb", "50%", "N/A", 1, "5m"}));
  CHECK(cells("networking.k8s.io", "v1", "networkpolicies",
              {{"metadata", meta("deny")}, {"spec", {{"podSelector", json::object()}}}}) ==
        json({"deny", "<none>", "5m"}));
  CHECK(cells("scheduling.k8s.io", "v1", "priorityclasses",
              {{"metadata", meta("high")},
               {"value", 1000000},
               {"preemptionPolicy", "PreemptLowerPriority"}}) ==
        json({"high", 1000000, false, "5m", "PreemptLowerPriority"}));
  CHECK(cells("autoscaling", "v2", "horizontalpodautoscalers",
              {{"metadata", meta("web")},
               {"spec",
                {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
                 {"minReplicas", 1},
                 {"maxReplicas", 5},
                 {"metrics",
                  {{{"type", "Resource"},
                    {"resource",
                     {{"name", "cpu"},
                      {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}}}}},
               {"status", {{"currentReplicas", 2}}}}) ==
        json({"web", "Deployment/web", "cpu: <unknown>/80%", "1", 5, 2, "5m"}));
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
