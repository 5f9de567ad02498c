// The cells of each kind's rows but pods': workloads, services, the core kinds, networking,
// storage, RBAC, coordination, policy, scheduling and autoscaling.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "table_test_support.h"

using namespace table_test;

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
