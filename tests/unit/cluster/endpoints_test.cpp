// What the EndpointSlice and Endpoints controllers write for a service and its pods
// (services/slice_plan, services/endpoint_subsets, services/service_pods).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "client/objects.h"
#include "services/endpoint_subsets.h"
#include "services/service_pods.h"
#include "services/slice_plan.h"

using nlohmann::json;

namespace {

const auto kCreated = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

json service(json spec = json::object()) {
  json s = {{"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata",
             {{"name", "web"},
              {"namespace", "default"},
              {"uid", "svc-uid"},
              {"labels", {{"tier", "front"}}},
              {"creationTimestamp", cluster::rfc3339(kCreated)}}},
            {"spec",
             {{"selector", {{"app", "web"}}},
              {"clusterIP", "10.96.0.10"},
              {"ipFamilies", {"IPv4"}},
              {"ports",
               {{{"name", "http"}, {"port", 80}, {"targetPort", "http"}, {"protocol", "TCP"}},
                {{"name", "raw"}, {"port", 81}, {"targetPort", 9000}, {"protocol", "TCP"}}}}}}};
  s["spec"].update(spec);
  return s;
}

// A running pod on node-1 with a port named http, Ready unless told.
json pod(const std::string& name, const std::string& ip, bool ready = true, int http = 8080) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"uid", name + "-uid"},
            {"labels", {{"app", "web"}}}}},
          {"spec",
           {{"nodeName", "node-1"},
            {"containers",
             {{{"name", "c"}, {"ports", {{{"name", "http"}, {"containerPort", http}}}}}}}}},
          {"status",
           {{"phase", "Running"},
            {"podIP", ip},
            {"podIPs", {{{"ip", ip}}}},
            {"conditions",
             {{{"type", "Ready"},
               {"status", ready ? "True" : "False"},
               {"lastTransitionTime", cluster::rfc3339(kCreated + std::chrono::seconds(5))}}}}}}};
}

std::vector<const json*> pointers(const std::vector<json>& objects) {
  std::vector<const json*> out;
  for (const json& o : objects) {
    out.push_back(&o);
  }
  return out;
}

cluster::SlicePlan plan(const json& svc, const std::vector<json>& pods,
                        const std::vector<json>& slices = {}, size_t max = 100) {
  return cluster::plan_slices({.service = svc,
                               .pods = pointers(pods),
                               .slices = pointers(slices),
                               .node_zone =
                                   [](const std::string& node) {
                                     return node == "node-1" ? std::optional<std::string>("zone-a")
                                                             : std::nullopt;
                                   },
                               .trigger_time = kCreated,
                               .max_endpoints = max});
}

// The slices as the API would hold them after the plan's creates: named, with a version.
std::vector<json> stored(const cluster::SlicePlan& p) {
  std::vector<json> out;
  int n = 0;
  for (json s : p.create) {
    s["metadata"]["name"] = "web-" + std::to_string(n++);
    s["metadata"]["resourceVersion"] = "7";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

TEST_CASE("a service's pods become one EndpointSlice owned by it", "[cluster][endpoints]") {
  json done = pod("done", "10.244.1.9");
  done["status"]["phase"] = "Succeeded";
  json no_ip = pod("new", "");
  no_ip["status"].erase("podIPs");
  auto p = plan(service(), {pod("a", "10.244.1.2"), pod("b", "10.244.1.3", false), done, no_ip});
  REQUIRE(p.create.size() == 1);
  CHECK(p.update.empty());
  CHECK(p.remove.empty());
  CHECK(p.errors.empty());
  const json& slice = p.create[0];
  CHECK(slice["metadata"]["generateName"] == "web-");
  CHECK(slice["metadata"]["labels"] ==
        json{{"tier", "front"},
             {"kubernetes.io/service-name", "web"},
             {"endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"}});
  CHECK(slice["metadata"]["ownerReferences"][0] == json{{"apiVersion", "v1"},
                                                        {"kind", "Service"},
                                                        {"name", "web"},
                                                        {"uid", "svc-uid"},
                                                        {"controller", true},
                                                        {"blockOwnerDeletion", true}});
  CHECK(slice["metadata"]["annotations"]["endpoints.kubernetes.io/last-change-trigger-time"] ==
        "2027-01-15T08:00:00Z");
  CHECK(slice["addressType"] == "IPv4");
  CHECK(slice["ports"] == json::parse(R"([{"name":"http","port":8080,"protocol":"TCP"},
                                          {"name":"raw","port":9000,"protocol":"TCP"}])"));
  REQUIRE(slice["endpoints"].size() == 2);
  CHECK(slice["endpoints"][0] == json::parse(R"({"addresses":["10.244.1.2"],
      "conditions":{"ready":true,"serving":true,"terminating":false},"nodeName":"node-1",
      "zone":"zone-a","targetRef":{"kind":"Pod","namespace":"default","name":"a","uid":"a-uid"}})"));
  CHECK(slice["endpoints"][1]["conditions"] ==
        json{{"ready", false}, {"serving", false}, {"terminating", false}});
}

TEST_CASE("terminating pods stay in slices, ready only when the service publishes unready ones",
          "[cluster][endpoints]") {
  json leaving = pod("a", "10.244.1.2");
  leaving["metadata"]["deletionTimestamp"] = cluster::rfc3339(kCreated);
  const bool publish = GENERATE(false, true);
  CAPTURE(publish);
  auto p = plan(service({{"publishNotReadyAddresses", publish}}), {leaving});
  REQUIRE(p.create.size() == 1);
  CHECK(p.create[0]["endpoints"][0]["conditions"] ==
        json{{"ready", publish}, {"serving", true}, {"terminating", true}});
}

TEST_CASE("pods whose ports differ go to different slices; at most 100 endpoints in one",
          "[cluster][endpoints]") {
  std::vector<json> pods;
  for (int i = 0; i < 250; ++i) {
    pods.push_back(pod("p" + std::to_string(i),
                       "10.244." + std::to_string(i / 200) + "." + std::to_string(i % 200)));
  }
  pods.push_back(pod("other", "10.244.9.9", true, 8081));
  auto p = plan(service(), pods);
  REQUIRE(p.create.size() == 4);
  std::vector<size_t> sizes;
  for (const json& s : p.create) {
    sizes.push_back(s["endpoints"].size());
  }
  CHECK(sizes == std::vector<size_t>{100, 100, 50, 1});
  CHECK(p.create[3]["ports"][0]["port"] == 8081);
}

TEST_CASE("slices are written again only when something changed", "[cluster][endpoints]") {
  const std::vector<json> pods = {pod("a", "10.244.1.2"), pod("b", "10.244.1.3")};
  const std::vector<json> slices = stored(plan(service(), pods));

  SECTION("nothing changed: nothing to write") {
    auto again = plan(service(), pods, slices);
    CHECK(again.create.empty());
    CHECK(again.update.empty());
    CHECK(again.remove.empty());
  }
  SECTION("a pod turned not ready: its endpoint is updated in place") {
    auto again = plan(service(), {pod("a", "10.244.1.2"), pod("b", "10.244.1.3", false)}, slices);
    REQUIRE(again.update.size() == 1);
    CHECK(again.update[0]["metadata"]["name"] == "web-0");
    CHECK(again.update[0]["metadata"]["resourceVersion"] == "7");
    CHECK(again.update[0]["endpoints"][1]["conditions"]["ready"] == false);
  }
  SECTION("the service's labels changed: the slice's follow") {
    json svc = service();
    svc["metadata"]["labels"] = {{"tier", "back"}};
    auto again = plan(svc, pods, slices);
    REQUIRE(again.update.size() == 1);
    CHECK(again.update[0]["metadata"]["labels"]["tier"] == "back");
  }
  SECTION("every pod went: the slice becomes the empty placeholder, which then stays") {
    auto again = plan(service(), {}, slices);
    CHECK(again.create.empty());
    CHECK(again.remove.empty());
    REQUIRE(again.update.size() == 1);
    CHECK(again.update[0]["metadata"]["name"] == "web-0");
    CHECK(again.update[0]["endpoints"].empty());
    CHECK(again.update[0]["ports"].empty());
    json placeholder = again.update[0];
    auto then = plan(service(), {}, {placeholder});
    CHECK(then.create.empty());
    CHECK(then.update.empty());
    CHECK(then.remove.empty());
  }
}

TEST_CASE("a pod on an unknown node is left out and reported", "[cluster][endpoints]") {
  json lost = pod("lost", "10.244.2.2");
  lost["spec"]["nodeName"] = "node-9";
  auto p = plan(service(), {pod("a", "10.244.1.2"), lost});
  REQUIRE(p.create.size() == 1);
  CHECK(p.create[0]["endpoints"].size() == 1);
  CHECK(p.errors == std::vector<std::string>{
                        "skipping Pod lost for Service default/web: node \"node-9\" not found"});
}

TEST_CASE("services without a selector get no endpoints", "[cluster][endpoints]") {
  json none = service();
  none["spec"].erase("selector");
  CHECK_FALSE(cluster::service_selector(none));
  CHECK_FALSE(cluster::service_selector(service({{"selector", json::object()}})));
  CHECK_FALSE(cluster::service_selector(service({{"type", "ExternalName"}})));
  CHECK(cluster::service_selector(service()) == json{{"app", "web"}});
}

TEST_CASE("a service port's target resolves by number or by name and protocol",
          "[cluster][endpoints]") {
  const json p = pod("a", "10.244.1.2");
  CHECK(cluster::find_port(p, {{"port", 80}, {"targetPort", 9000}}) == 9000);
  CHECK(cluster::find_port(p, {{"port", 80}}) == 80);
  CHECK(cluster::find_port(p, {{"port", 80}, {"targetPort", "http"}}) == 8080);
  CHECK_FALSE(cluster::find_port(p, {{"port", 80}, {"targetPort", "http"}, {"protocol", "UDP"}}));
  CHECK_FALSE(cluster::find_port(p, {{"port", 80}, {"targetPort", "grpc"}}));
}

TEST_CASE("Endpoints subsets group ports by the addresses they reach", "[cluster][endpoints]") {
  json svc = service({{"ports",
                       {{{"name", "http"}, {"port", 80}, {"targetPort", "http"}},
                        {{"name", "metrics"}, {"port", 90}, {"targetPort", "metrics"}}}}});
  json a = pod("a", "10.244.1.2");
  a["spec"]["containers"][0]["ports"].push_back({{"name", "metrics"}, {"containerPort", 9090}});
  const std::vector<json> pods = {a, pod("b", "10.244.1.3", false)};
  const json subsets = cluster::endpoint_subsets(svc, pointers(pods));
  REQUIRE(subsets.size() == 2);
  const json address_a = {
      {"ip", "10.244.1.2"},
      {"nodeName", "node-1"},
      {"targetRef", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "a"}, {"uid", "a-uid"}}}};
  CHECK(subsets[0]["addresses"] == json::array({address_a}));
  CHECK(subsets[0]["notReadyAddresses"][0]["ip"] == "10.244.1.3");
  CHECK(subsets[0]["ports"] == json::parse(R"([{"name":"http","port":8080,"protocol":"TCP"}])"));
  CHECK(subsets[1] ==
        json{{"addresses", {address_a}},
             {"ports", {{{"name", "metrics"}, {"port", 9090}, {"protocol", "TCP"}}}}});
}

TEST_CASE("the Endpoints object carries the service's labels and is written only on change",
          "[cluster][endpoints]") {
  json headless = service({{"clusterIP", "None"}, {"ports", json::array()}});
  const std::vector<json> pods = {pod("a", "10.244.1.2")};
  const json subsets = cluster::endpoint_subsets(headless, pointers(pods));
  REQUIRE(subsets.size() == 1);
  CHECK_FALSE(subsets[0].contains("ports"));
  auto first = cluster::endpoints_to_write(headless, nullptr, subsets, kCreated);
  REQUIRE(first);
  CHECK((*first)["metadata"]["name"] == "web");
  CHECK((*first)["metadata"]["labels"] ==
        json{{"tier", "front"}, {"service.kubernetes.io/headless", ""}});
  CHECK((*first)["metadata"]["annotations"] ==
        json{{"endpoints.kubernetes.io/last-change-trigger-time", "2027-01-15T08:00:00Z"}});
  json current = *first;
  current["metadata"]["resourceVersion"] = "3";
  CHECK_FALSE(cluster::endpoints_to_write(headless, &current, subsets, std::nullopt));
  auto emptied = cluster::endpoints_to_write(headless, &current, json::array(), std::nullopt);
  REQUIRE(emptied);
  CHECK_FALSE(emptied->contains("subsets"));
  CHECK_FALSE((*emptied)["metadata"].contains("annotations"));
}

TEST_CASE("more than 1000 addresses are cut, ready ones kept first", "[cluster][endpoints]") {
  json subsets =
      json::array({{{"addresses", json::array()}, {"notReadyAddresses", json::array()}}});
  for (int i = 0; i < 900; ++i) {
    subsets[0]["addresses"].push_back({{"ip", "10.0.0." + std::to_string(i)}});
    subsets[0]["notReadyAddresses"].push_back({{"ip", "10.1.0." + std::to_string(i)}});
  }
  CHECK(cluster::truncate_subsets(subsets));
  CHECK(subsets[0]["addresses"].size() == 900);
  CHECK(subsets[0]["notReadyAddresses"].size() == 100);
}

TEST_CASE("the trigger time is the service's creation, then the earliest change since",
          "[cluster][endpoints]") {
  cluster::TriggerTimes times;
  const json svc = service();
  std::vector<json> pods = {pod("a", "10.244.1.2")};
  CHECK(times.compute(svc, pointers(pods)) == kCreated);
  CHECK_FALSE(times.compute(svc, pointers(pods)));
  pods[0]["status"]["conditions"][0]["lastTransitionTime"] =
      cluster::rfc3339(kCreated + std::chrono::seconds(60));
  CHECK(times.compute(svc, pointers(pods)) == kCreated + std::chrono::seconds(60));
  times.forget("default/web");
  CHECK(times.compute(svc, pointers(pods)) == kCreated);
}
