// ResourceQuota admission through the whole server (no quota controller runs here: the tests
// write each quota's status themselves): usage measured by the evaluators, scopes, the refusals'
// texts, and usage charged to status.used at once.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "authorization_fixture.h"

namespace {

using apiserver::testing::Cluster;
using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kQuotas = "/api/v1/namespaces/default/resourcequotas";

json pod(const std::string& name, json resources = json::object(), json spec_extra = {}) {
  json container = {{"name", "c"}, {"image", "nginx"}};
  if (!resources.empty()) {
    container["resources"] = resources;
  }
  json spec = {{"containers", json::array({container})}};
  if (spec_extra.is_object()) {
    spec.update(spec_extra);
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

// A quota with `hard`, and its status as the controller would fill it (`used`; null: none).
void make_quota(Cluster& cluster, const std::string& name, const json& hard, const json& used,
                json spec_extra = {}) {
  json spec = {{"hard", hard}};
  if (spec_extra.is_object()) {
    spec.update(spec_extra);
  }
  auto created = cluster.admin("POST", kQuotas,
                               {{"apiVersion", "v1"},
                                {"kind", "ResourceQuota"},
                                {"metadata", {{"name", name}}},
                                {"spec", spec}});
  REQUIRE(created.status == 201);
  if (used.is_null()) {
    return;
  }
  json body = created.body;
  body["status"] = {{"hard", hard}, {"used", used}};
  REQUIRE(cluster.admin("PUT", std::string(kQuotas) + "/" + name + "/status", body).status == 200);
}

json used_of(Cluster& cluster, const std::string& name) {
  return cluster.admin("GET", std::string(kQuotas) + "/" + name).body["status"]["used"];
}

}  // namespace

TEST_CASE("ResourceQuota charges pods and refuses the one over the quota",
          "[admission][resourcequota]") {
  Cluster cluster;
  make_quota(cluster, "compute", {{"pods", "2"}, {"requests.cpu", "1"}},
             {{"pods", "0"}, {"requests.cpu", "0"}});
  auto sized = [](const std::string& cpu) { return json{{"requests", {{"cpu", cpu}}}}; };

  REQUIRE(cluster.admin("POST", kPods, pod("a", sized("300m"))).status == 201);
  CHECK(used_of(cluster, "compute") == json({{"pods", "1"}, {"requests.cpu", "300m"}}));
  const std::string trace =
      cluster.admin("GET", "/debug/requests?verb=create&resource=pods").body.dump();
  CHECK(trace.find("ResourceQuota: charged pods=1 (1/2), requests.cpu=300m (300m/1) to compute") !=
        std::string::npos);

  SECTION("a request over one resource names only that one") {
    auto refused = cluster.admin("POST", kPods, pod("big", sized("800m")));
    CHECK(refused.status == 403);
    CHECK(refused.body["reason"] == "Forbidden");
    CHECK(refused.body["message"] ==
          "pods \"big\" is forbidden: exceeded quota: compute, requested: requests.cpu=800m, "
          "used: requests.cpu=300m, limited: requests.cpu=1");
    CHECK(used_of(cluster, "compute") == json({{"pods", "1"}, {"requests.cpu", "300m"}}));
  }
  SECTION("the third pod is refused once two are charged") {
    REQUIRE(cluster.admin("POST", kPods, pod("b", sized("200m"))).status == 201);
    CHECK(used_of(cluster, "compute") == json({{"pods", "2"}, {"requests.cpu", "500m"}}));
    auto refused = cluster.admin("POST", kPods, pod("c", sized("100m")));
    CHECK(refused.status == 403);
    CHECK(refused.body["message"] ==
          "pods \"c\" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, "
          "limited: pods=2");
  }
  SECTION("a dry run is checked and not charged") {
    auto dry = cluster.admin("POST", std::string(kPods) + "?dryRun=All", pod("d", sized("100m")));
    CHECK(dry.status == 201);
    CHECK(used_of(cluster, "compute") == json({{"pods", "1"}, {"requests.cpu", "300m"}}));
  }
}

TEST_CASE("ResourceQuota requires the resources a compute quota tracks",
          "[admission][resourcequota]") {
  Cluster cluster;
  make_quota(cluster, "compute", {{"limits.cpu", "2"}, {"requests.memory", "1Gi"}},
             {{"limits.cpu", "0"}, {"requests.memory", "0"}});
  auto refused = cluster.admin("POST", kPods, pod("p"));
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "pods \"p\" is forbidden: failed quota: compute: must specify limits.cpu for: c; "
        "requests.memory for: c");
}

TEST_CASE("ResourceQuota refuses while a quota's usage is unknown", "[admission][resourcequota]") {
  Cluster cluster;
  SECTION("status.hard filled, status.used not yet") {
    make_quota(cluster, "counts", {{"configmaps", "5"}, {"secrets", "5"}}, {{"secrets", "0"}});
    auto refused = cluster.admin("POST", "/api/v1/namespaces/default/configmaps",
                                 apiserver::testing::configmap("cm"));
    CHECK(refused.status == 403);
    CHECK(refused.body["message"] ==
          "configmaps \"cm\" is forbidden: status unknown for quota: counts, resources: "
          "configmaps");
  }
  SECTION("a quota without status does not apply yet") {
    make_quota(cluster, "fresh", {{"configmaps", "0"}}, nullptr);
    CHECK(cluster
              .admin("POST", "/api/v1/namespaces/default/configmaps",
                     apiserver::testing::configmap("cm"))
              .status == 201);
  }
}

TEST_CASE("ResourceQuota counts objects by their count/ and legacy names",
          "[admission][resourcequota]") {
  Cluster cluster;
  make_quota(cluster, "objects",
             {{"configmaps", "1"},
              {"count/deployments.apps", "0"},
              {"services", "5"},
              {"services.nodeports", "1"}},
             {{"configmaps", "0"},
              {"count/deployments.apps", "0"},
              {"services", "0"},
              {"services.nodeports", "0"}});
  REQUIRE(cluster
              .admin("POST", "/api/v1/namespaces/default/configmaps",
                     apiserver::testing::configmap("one"))
              .status == 201);
  auto second = cluster.admin("POST", "/api/v1/namespaces/default/configmaps",
                              apiserver::testing::configmap("two"));
  CHECK(second.status == 403);
  CHECK(second.body["message"] ==
        "configmaps \"two\" is forbidden: exceeded quota: objects, requested: configmaps=1, "
        "used: configmaps=1, limited: configmaps=1");

  json deployment = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"a":"b"}},
    "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})");
  auto refused = cluster.admin("POST", "/apis/apps/v1/namespaces/default/deployments", deployment);
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "deployments.apps \"web\" is forbidden: exceeded quota: objects, requested: "
        "count/deployments.apps=1, used: count/deployments.apps=0, limited: "
        "count/deployments.apps=0");

  json service = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"np"},
    "spec":{"type":"NodePort","ports":[{"port":80},{"port":81,"name":"b"}]}})");
  service["spec"]["ports"][0]["name"] = "a";
  auto node_ports = cluster.admin("POST", "/api/v1/namespaces/default/services", service);
  CHECK(node_ports.status == 403);
  CHECK(node_ports.body["message"] ==
        "services \"np\" is forbidden: exceeded quota: objects, requested: services.nodeports=2, "
        "used: services.nodeports=0, limited: services.nodeports=1");
  service["spec"]["type"] = "ClusterIP";
  auto created = cluster.admin("POST", "/api/v1/namespaces/default/services", service);
  REQUIRE(created.status == 201);
  CHECK(used_of(cluster, "objects")["services"] == "1");

  // An update that changes the usage is charged its difference: a ClusterIP service turned
  // NodePort asks for its two node ports.
  json changed = created.body;
  changed["spec"]["type"] = "NodePort";
  auto update = cluster.admin("PUT", "/api/v1/namespaces/default/services/np", changed);
  CHECK(update.status == 403);
  CHECK(update.body["message"] ==
        "services \"np\" is forbidden: exceeded quota: objects, requested: services.nodeports=2, "
        "used: services.nodeports=0, limited: services.nodeports=1");
  CHECK(used_of(cluster, "objects")["services"] == "1");
}

TEST_CASE("ResourceQuota scopes select the pods a quota covers", "[admission][resourcequota]") {
  Cluster cluster;
  make_quota(cluster, "best-effort", {{"pods", "0"}}, {{"pods", "0"}},
             {{"scopes", {"BestEffort"}}});
  make_quota(cluster, "terminating", {{"pods", "0"}}, {{"pods", "0"}},
             {{"scopes", {"Terminating"}}});
  const json sized = {{"requests", {{"cpu", "100m"}}}};
  auto best_effort = cluster.admin("POST", kPods, pod("be"));
  CHECK(best_effort.status == 403);
  CHECK(best_effort.body["message"] ==
        "pods \"be\" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=0, "
        "limited: pods=0");
  auto terminating = cluster.admin("POST", kPods, pod("t", sized, {{"activeDeadlineSeconds", 60}}));
  CHECK(terminating.status == 403);
  CHECK(terminating.body["message"] ==
        "pods \"t\" is forbidden: exceeded quota: terminating, requested: pods=1, used: pods=0, "
        "limited: pods=0");
  CHECK(cluster.admin("POST", kPods, pod("fits", sized)).status == 201);
}

TEST_CASE("ResourceQuota's PriorityClass scope selects by the pod's class",
          "[admission][resourcequota]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                     {{"apiVersion", "scheduling.k8s.io/v1"},
                      {"kind", "PriorityClass"},
                      {"metadata", {{"name", "high"}}},
                      {"value", 1000}})
              .status == 201);
  make_quota(cluster, "high", {{"pods", "0"}}, {{"pods", "0"}},
             {{"scopeSelector",
               {{"matchExpressions",
                 {{{"scopeName", "PriorityClass"}, {"operator", "In"}, {"values", {"high"}}}}}}}});
  auto refused = cluster.admin("POST", kPods, pod("h", {}, {{"priorityClassName", "high"}}));
  CHECK(refused.status == 403);
  CHECK(cluster.admin("POST", kPods, pod("low")).status == 201);
}

TEST_CASE("ResourceQuota charges a claim's storage by its class", "[admission][resourcequota]") {
  Cluster cluster;
  const std::string gold = "gold.storageclass.storage.k8s.io/requests.storage";
  make_quota(cluster, "storage", {{"requests.storage", "10Gi"}, {gold, "5Gi"}},
             {{"requests.storage", "0"}, {gold, "0"}});
  auto claim = [](const std::string& name, const std::string& cls, const std::string& size) {
    return json{{"apiVersion", "v1"},
                {"kind", "PersistentVolumeClaim"},
                {"metadata", {{"name", name}}},
                {"spec",
                 {{"accessModes", {"ReadWriteOnce"}},
                  {"storageClassName", cls},
                  {"resources", {{"requests", {{"storage", size}}}}}}}};
  };
  const std::string claims = "/api/v1/namespaces/default/persistentvolumeclaims";
  REQUIRE(cluster.admin("POST", claims, claim("a", "gold", "4Gi")).status == 201);
  CHECK(used_of(cluster, "storage") == json({{"requests.storage", "4Gi"}, {gold, "4Gi"}}));
  auto refused = cluster.admin("POST", claims, claim("b", "gold", "2Gi"));
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "persistentvolumeclaims \"b\" is forbidden: exceeded quota: storage, requested: " + gold +
            "=2Gi, used: " + gold + "=4Gi, limited: " + gold + "=5Gi");
  REQUIRE(cluster.admin("POST", claims, claim("c", "silver", "2Gi")).status == 201);
  CHECK(used_of(cluster, "storage") == json({{"requests.storage", "6Gi"}, {gold, "4Gi"}}));
}
