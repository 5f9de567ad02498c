// DefaultIngressClass: an Ingress created without a class gets the default IngressClass.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "admission_bench.h"
#include "authorization_fixture.h"

namespace {

using apiserver::admission::Operation;
using apiserver::testing::AdmissionBench;
using apiserver::testing::Cluster;
using nlohmann::json;

json ingress_class(const std::string& name, bool is_default, const std::string& created = "") {
  json ic = {{"apiVersion", "networking.k8s.io/v1"},
             {"kind", "IngressClass"},
             {"metadata", {{"name", name}}},
             {"spec", {{"controller", "example.com/ingress"}}}};
  if (is_default) {
    ic["metadata"]["annotations"] = {{"ingressclass.kubernetes.io/is-default-class", "true"}};
  }
  if (!created.empty()) {
    ic["metadata"]["creationTimestamp"] = created;
  }
  return ic;
}

json ingress(json spec_extra = json::object()) {
  json spec = {{"defaultBackend", {{"service", {{"name", "web"}, {"port", {{"number", 80}}}}}}}};
  spec.update(spec_extra);
  return {{"apiVersion", "networking.k8s.io/v1"},
          {"kind", "Ingress"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec", spec}};
}

}  // namespace

TEST_CASE("DefaultIngressClass gives an Ingress without a class the default one", "[admission]") {
  AdmissionBench bench;
  auto chain = bench.chain({"DefaultIngressClass"});
  auto admit = [&](json object) {
    return bench.admitted_create(*chain, "networking.k8s.io", "ingresses", std::move(object));
  };
  CHECK_FALSE(admit(ingress())["spec"].contains("ingressClassName"));
  bench.put("networking.k8s.io", "ingressclasses", ingress_class("plain", false));
  bench.put("networking.k8s.io", "ingressclasses",
            ingress_class("older", true, "2024-01-01T00:00:00Z"));
  bench.put("networking.k8s.io", "ingressclasses",
            ingress_class("nginx", true, "2024-02-01T00:00:00Z"));
  CHECK(admit(ingress())["spec"]["ingressClassName"] == "nginx");
  CHECK(admit(ingress({{"ingressClassName", "traefik"}}))["spec"]["ingressClassName"] == "traefik");
  json annotated = ingress();
  annotated["metadata"]["annotations"] = {{"kubernetes.io/ingress.class", "haproxy"}};
  CHECK_FALSE(admit(annotated)["spec"].contains("ingressClassName"));

  json object = ingress();
  auto without = bench.chain({});
  auto a = bench.attributes(Operation::Create, "networking.k8s.io", "ingresses", &object);
  REQUIRE_FALSE(without->admit(a));
  CHECK_FALSE(object["spec"].contains("ingressClassName"));
}

TEST_CASE("an Ingress created through the API gets the default IngressClass", "[admission]") {
  const std::string ingresses = "/apis/networking.k8s.io/v1/namespaces/default/ingresses";
  json object = ingress();
  object["metadata"].erase("namespace");
  for (bool on : {true, false}) {
    CAPTURE(on);
    Cluster cluster([on](apiserver::ApiServerConfig& c) {
      if (!on) {
        c.disable_admission_plugins = {"DefaultIngressClass"};
      }
    });
    REQUIRE(cluster
                .admin("POST", "/apis/networking.k8s.io/v1/ingressclasses",
                       ingress_class("nginx", true))
                .status == 201);
    auto created = cluster.admin("POST", ingresses, object);
    REQUIRE(created.status == 201);
    CHECK(created.body["spec"].contains("ingressClassName") == on);
    if (on) {
      CHECK(created.body["spec"]["ingressClassName"] == "nginx");
    }
  }
}
