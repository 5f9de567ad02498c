// LimitRanger through the whole server: a namespace's LimitRanges default a pod's container
// resources on create (with the kubernetes.io/limit-ranger annotation) and refuse pods and
// claims outside their bounds, with kube-apiserver's texts.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "authorization_fixture.h"

namespace {

using apiserver::testing::Cluster;
using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kRanges = "/api/v1/namespaces/default/limitranges";

json pod(const std::string& name, json resources = json::object()) {
  json container = {{"name", "nginx"}, {"image", "nginx"}};
  if (!resources.empty()) {
    container["resources"] = resources;
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", json::array({container})}}}};
}

json limit_range(const std::string& name, json items) {
  return {{"apiVersion", "v1"},
          {"kind", "LimitRange"},
          {"metadata", {{"name", name}}},
          {"spec", {{"limits", items}}}};
}

}  // namespace

TEST_CASE("LimitRanger defaults a new pod's container resources", "[admission][limitranger]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kRanges, limit_range("defaults", json::parse(R"([{"type":"Container",
                       "default":{"cpu":"500m","memory":"512Mi"},
                       "defaultRequest":{"cpu":"250m","memory":"256Mi"}}])")))
              .status == 201);

  SECTION("a container that asks nothing gets both, and the annotation says so") {
    auto created = cluster.admin("POST", kPods, pod("web"));
    REQUIRE(created.status == 201);
    CHECK(created.body["spec"]["containers"][0]["resources"] ==
          json::parse(R"({"limits":{"cpu":"500m","memory":"512Mi"},
                          "requests":{"cpu":"250m","memory":"256Mi"}})"));
    CHECK(created.body["metadata"]["annotations"]["kubernetes.io/limit-ranger"] ==
          "LimitRanger plugin set: cpu, memory request for container nginx; cpu, memory limit "
          "for container nginx");
    const std::string trace =
        cluster.admin("GET", "/debug/requests?verb=create&resource=pods").body.dump();
    CHECK(trace.find("defaulted cpu, memory request for container nginx from "
                     "limitrange/defaults") != std::string::npos);
  }
  SECTION("what the container sets stays: a limit alone is its request too") {
    auto created = cluster.admin("POST", kPods, pod("web", {{"limits", {{"cpu", "2"}}}}));
    REQUIRE(created.status == 201);
    CHECK(created.body["spec"]["containers"][0]["resources"] ==
          json::parse(R"({"limits":{"cpu":"2","memory":"512Mi"},
                          "requests":{"cpu":"2","memory":"256Mi"}})"));
    CHECK(created.body["metadata"]["annotations"]["kubernetes.io/limit-ranger"] ==
          "LimitRanger plugin set: memory request for container nginx; memory limit for "
          "container nginx");
  }
  SECTION("an update of the pod is not defaulted again") {
    auto created = cluster.admin("POST", kPods, pod("web"));
    REQUIRE(created.status == 201);
    json changed = created.body;
    changed["metadata"]["labels"] = {{"a", "b"}};
    changed["metadata"]["annotations"].erase("kubernetes.io/limit-ranger");
    auto updated = cluster.admin("PUT", std::string(kPods) + "/web", changed);
    REQUIRE(updated.status == 200);
    CHECK_FALSE(updated.body["metadata"]["annotations"].contains("kubernetes.io/limit-ranger"));
  }
}

TEST_CASE("LimitRanger defaults a request from the range's default limit",
          "[admission][limitranger]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kRanges, limit_range("max", json::parse(R"([{"type":"Container",
                       "max":{"memory":"1Gi"}}])")))
              .status == 201);
  auto created = cluster.admin("POST", kPods, pod("web"));
  REQUIRE(created.status == 201);
  CHECK(created.body["spec"]["containers"][0]["resources"] ==
        json::parse(R"({"limits":{"memory":"1Gi"},"requests":{"memory":"1Gi"}})"));
}

TEST_CASE("LimitRanger refuses pods outside a range's bounds", "[admission][limitranger]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kRanges, limit_range("bounds", json::parse(R"([{"type":"Container",
                       "min":{"cpu":"100m"},"max":{"memory":"1Gi"},
                       "default":{"cpu":"200m","memory":"512Mi"}}])")))
              .status == 201);

  auto refused = cluster.admin(
      "POST", kPods,
      pod("x", {{"requests", {{"cpu", "50m"}}}, {"limits", {{"cpu", "1"}, {"memory", "2Gi"}}}}));
  CHECK(refused.status == 403);
  CHECK(refused.body["reason"] == "Forbidden");
  CHECK(refused.body["message"] ==
        "pods \"x\" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, "
        "maximum memory usage per Container is 1Gi, but limit is 2Gi]");
  CHECK(cluster.admin("GET", std::string(kPods) + "/x").status == 404);

  CHECK(cluster.admin("POST", kPods, pod("ok")).status == 201);
}

TEST_CASE("LimitRanger checks the limit to request ratio and a Pod item's sums",
          "[admission][limitranger]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kRanges, limit_range("ratio", json::parse(R"([
                       {"type":"Container","maxLimitRequestRatio":{"cpu":"2"}},
                       {"type":"Pod","max":{"memory":"1Gi"}}])")))
              .status == 201);
  auto ratio = cluster.admin("POST", kPods,
                             pod("r", {{"requests", {{"cpu", "100m"}, {"memory", "1Gi"}}},
                                       {"limits", {{"cpu", "300m"}, {"memory", "1Gi"}}}}));
  CHECK(ratio.status == 403);
  CHECK(ratio.body["message"] ==
        "pods \"r\" is forbidden: cpu max limit to request ratio per Container is 2, but provided "
        "ratio is 3.000000");
  auto no_limit = cluster.admin("POST", kPods, pod("n", {{"requests", {{"cpu", "100m"}}}}));
  CHECK(no_limit.status == 403);
  CHECK(no_limit.body["message"] ==
        "pods \"n\" is forbidden: [cpu max limit to request ratio per Container is 2, but no limit "
        "is specified or limit is 0, maximum memory usage per Pod is 1Gi.  No limit is specified]");
}

TEST_CASE("LimitRanger bounds a claim's storage request", "[admission][limitranger]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kRanges,
                     limit_range("storage", json::parse(R"([{"type":"PersistentVolumeClaim",
                       "min":{"storage":"1Gi"},"max":{"storage":"10Gi"}}])")))
              .status == 201);
  auto claim = [](const std::string& name, const std::string& size) {
    return json{
        {"apiVersion", "v1"},
        {"kind", "PersistentVolumeClaim"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  };
  const std::string claims = "/api/v1/namespaces/default/persistentvolumeclaims";
  auto big = cluster.admin("POST", claims, claim("big", "20Gi"));
  CHECK(big.status == 403);
  CHECK(big.body["message"] ==
        "persistentvolumeclaims \"big\" is forbidden: maximum storage usage per "
        "PersistentVolumeClaim is 10Gi, but request is 20Gi");
  auto small = cluster.admin("POST", claims, claim("small", "500Mi"));
  CHECK(small.status == 403);
  CHECK(small.body["message"] ==
        "persistentvolumeclaims \"small\" is forbidden: minimum storage usage per "
        "PersistentVolumeClaim is 1Gi, but request is 500Mi");
  CHECK(cluster.admin("POST", claims, claim("fits", "5Gi")).status == 201);
}

TEST_CASE("LimitRanger applies each LimitRange in turn", "[admission][limitranger]") {
  Cluster cluster;
  REQUIRE(cluster
              .admin("POST", kRanges, limit_range("a-cpu", json::parse(R"([{"type":"Container",
                       "default":{"cpu":"1"}}])")))
              .status == 201);
  REQUIRE(cluster
              .admin("POST", kRanges, limit_range("b-mem", json::parse(R"([{"type":"Container",
                       "default":{"cpu":"2","memory":"1Gi"}}])")))
              .status == 201);
  auto created = cluster.admin("POST", kPods, pod("web"));
  REQUIRE(created.status == 201);
  // The first range sets cpu; the second only what is still missing, and its annotation stays.
  CHECK(created.body["spec"]["containers"][0]["resources"] ==
        json::parse(R"({"limits":{"cpu":"1","memory":"1Gi"},
                        "requests":{"cpu":"1","memory":"1Gi"}})"));
  CHECK(created.body["metadata"]["annotations"]["kubernetes.io/limit-ranger"] ==
        "LimitRanger plugin set: memory request for container nginx; memory limit for container "
        "nginx");
}
