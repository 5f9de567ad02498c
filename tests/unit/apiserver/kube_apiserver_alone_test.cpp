// The API server configured as kube-apiserver runs alone (what `kube-sandbox kube-apiserver` and
// envtest's control plane are): none of kube-controller-manager's loops, its own service range,
// and --allow-privileged.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "test_api.h"

using apiserver::ApiServer;
using apiserver::ApiServerConfig;
using apiserver::testing::Api;
using apiserver::testing::check_status;
using nlohmann::json;

namespace {

json namespace_named(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

json service(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}}},
          {"spec", {{"ports", json::array({{{"port", 80}}})}}}};
}

json privileged_pod(const std::string& name) {
  json p = apiserver::testing::pod(name);
  p["spec"]["containers"][0]["securityContext"] = {{"privileged", true}};
  return p;
}

}  // namespace

TEST_CASE("without kube-controller-manager's loops nothing acts on namespaces and roles",
          "[controllers]") {
  Api api(nullptr, {}, [](ApiServerConfig& c) {
    c.controllers = {.namespace_deletion = false,
                     .service_accounts = false,
                     .root_ca_publisher = false,
                     .token_secrets = false,
                     .clusterrole_aggregation = false};
    c.root_ca_pem = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n";
  });
  REQUIRE(api.call("POST", "/api/v1/namespaces", namespace_named("quiet")).status == 201);
  REQUIRE(
      api.call("POST", "/api/v1/namespaces/quiet/configmaps", apiserver::testing::configmap("cm"))
          .status == 201);
  api.settle();
  CHECK(api.call("GET", "/api/v1/namespaces/quiet/serviceaccounts").body["items"].empty());
  CHECK(api.call("GET", "/api/v1/namespaces/quiet/configmaps/kube-root-ca.crt").status == 404);
  const json admin = api.call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin").body;
  CHECK(admin.contains("aggregationRule"));
  CHECK((!admin.contains("rules") || admin["rules"].empty()));

  REQUIRE(api.call("DELETE", "/api/v1/namespaces/quiet").status == 200);
  api.settle();
  const auto ns = api.call("GET", "/api/v1/namespaces/quiet");
  REQUIRE(ns.status == 200);
  CHECK(ns.body["status"]["phase"] == "Terminating");
  CHECK(ns.body["spec"]["finalizers"] == json::array({"kubernetes"}));
  CHECK(api.call("GET", "/api/v1/namespaces/quiet/configmaps/cm").status == 200);
}

TEST_CASE("with the loops on, the same namespace is filled and emptied", "[controllers]") {
  Api api;
  REQUIRE(api.call("POST", "/api/v1/namespaces", namespace_named("busy")).status == 201);
  api.settle();
  CHECK(api.call("GET", "/api/v1/namespaces/busy/serviceaccounts/default").status == 200);
  REQUIRE(api.call("DELETE", "/api/v1/namespaces/busy").status == 200);
  api.settle();
  CHECK(api.call("GET", "/api/v1/namespaces/busy").status == 404);
  CHECK_FALSE(api.call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin")
                  .body["rules"]
                  .empty());
}

TEST_CASE("the service range gives the kubernetes Service and every cluster IP", "[services]") {
  Api api(nullptr, {}, [](ApiServerConfig& c) { c.service_cluster_ip_range = "10.0.0.0/24"; });
  CHECK(
      api.call("GET", "/api/v1/namespaces/default/services/kubernetes").body["spec"]["clusterIP"] ==
      "10.0.0.1");
  for (int i = 0; i < 5; ++i) {
    auto made =
        api.call("POST", "/api/v1/namespaces/default/services", service("s" + std::to_string(i)));
    REQUIRE(made.status == 201);
    const std::string ip = made.body["spec"]["clusterIP"];
    CHECK(ip.rfind("10.0.0.", 0) == 0);
  }
  json outside = service("outside");
  outside["spec"]["clusterIP"] = "10.96.0.10";
  auto refused = api.call("POST", "/api/v1/namespaces/default/services", outside);
  CHECK(refused.status == 422);
  CHECK(refused.body["message"].get<std::string>().find(
            "the provided IP (10.96.0.10) is not in the valid range. The range of valid IPs is "
            "10.0.0.0/24") != std::string::npos);
}

TEST_CASE("the --service-cluster-ip-range values kube-apiserver refuses", "[services]") {
  CHECK_FALSE(ApiServer::check_service_cluster_ip_range("10.0.0.0/24"));
  CHECK_FALSE(ApiServer::check_service_cluster_ip_range("10.96.0.0/12"));
  CHECK(ApiServer::check_service_cluster_ip_range("10.0.0.0/8") ==
        "specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must "
        "be >= 12");
  CHECK(ApiServer::check_service_cluster_ip_range("10.0.0.0") ==
        "--service-cluster-ip-range 10.0.0.0 is not a valid IPv4 CIDR");
  CHECK(ApiServer::check_service_cluster_ip_range("10.0.0.0/33").has_value());
  CHECK(ApiServer::check_service_cluster_ip_range("fd00::/108").has_value());
  CHECK(ApiServer::check_service_cluster_ip_range("10.0.0.0/31") ==
        "specified --service-cluster-ip-range 10.0.0.0/31 is too small; the mask must be <= 30");
}

TEST_CASE("with --allow-privileged=false privileged containers are refused, in pods and templates",
          "[validation]") {
  {
    Api strict(nullptr, {}, [](ApiServerConfig& c) { c.allow_privileged = false; });
    auto refused = strict.call("POST", apiserver::testing::kPods, privileged_pod("p"));
    check_status(refused, 422, "Invalid",
                 "Pod \"p\" is invalid: spec.containers[0].securityContext.privileged: "
                 "Forbidden: disallowed by cluster policy");
    json d = apiserver::testing::deployment("d", 1);
    d["spec"]["template"]["spec"]["containers"][0]["securityContext"] = {{"privileged", true}};
    auto template_refused = strict.call("POST", "/apis/apps/v1/namespaces/default/deployments", d);
    CHECK(template_refused.status == 422);
    CHECK(template_refused.body["details"]["causes"][0]["field"] ==
          "spec.template.spec.containers[0].securityContext.privileged");
    CHECK(strict.call("POST", apiserver::testing::kPods, apiserver::testing::pod("plain")).status ==
          201);
  }
  Api relaxed;  // the default, true, is process-wide again
  CHECK(relaxed.call("POST", apiserver::testing::kPods, privileged_pod("p")).status == 201);
}
