// The aggregation layer's pure parts: priorities and order, APIService status, availability
// checks, the proxied request's headers, and the discovery merge.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "aggregator/apiservice.h"
#include "aggregator/availability.h"
#include "aggregator/discovery_merge.h"
#include "aggregator/proxy_request.h"

using namespace apiserver::aggregator;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

ApiService service_of(const std::string& group, const std::string& version, Priority p,
                      bool remote = false) {
  ApiService s;
  s.name = apiservice_name(group, version);
  s.group = group;
  s.version = version;
  s.priority = p;
  if (remote) {
    s.service = apiserver::webhook::ServiceReference{"default", "api", "", 443};
  }
  return s;
}

// Lookups over a fixed set of objects, by "<resource>/<ns>/<name>".
apiserver::webhook::Lookups lookups_over(const std::map<std::string, json>& objects) {
  return {[objects](const std::string&, const std::string& resource, const std::string& ns,
                    const std::string& name) -> std::optional<json> {
            auto it = objects.find(resource + "/" + ns + "/" + name);
            return it == objects.end() ? std::nullopt : std::optional<json>(it->second);
          },
          [objects](const std::string&, const std::string& resource, const std::string& ns) {
            std::vector<json> out;
            for (const auto& [key, value] : objects) {
              if (key.rfind(resource + "/" + ns + "/", 0) == 0) {
                out.push_back(value);
              }
            }
            return out;
          }};
}

}  // namespace

TEST_CASE("built-in APIServices take upstream's priorities and names", "[aggregator]") {
  CHECK(builtin_priority("", "v1") == Priority{18000, 1});
  CHECK(builtin_priority("apps", "v1") == Priority{17800, 15});
  CHECK(builtin_priority("autoscaling", "v2") == Priority{17500, 30});
  CHECK(builtin_priority("flowcontrol.apiserver.k8s.io", "v1") == Priority{16100, 21});
  CHECK_FALSE(builtin_priority("example.com", "v1"));
  CHECK(apiservice_name("", "v1") == "v1.");
  CHECK(apiservice_name("apps", "v1") == "v1.apps");

  const json local = local_apiservice("apps", "v1", {17800, 15}, kOnStart);
  CHECK(local.dump() ==
        R"({"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"labels":)"
        R"({"kube-aggregator.kubernetes.io/automanaged":"onstart"},"name":"v1.apps"},"spec":)"
        R"({"group":"apps","groupPriorityMinimum":17800,"service":null,"version":"v1",)"
        R"("versionPriority":15}})");
}

TEST_CASE("CRDs call for one APIService per served version", "[aggregator]") {
  const json crd = json::parse(R"({"spec":{"group":"tools.example.com","versions":[
      {"name":"v1","served":true},{"name":"v2beta1","served":false},{"name":"v1alpha1","served":true}]}})");
  auto wanted = crd_group_versions({crd, json::parse(R"({"spec":"hostile"})")});
  REQUIRE(wanted.size() == 2);
  CHECK(wanted["v1.tools.example.com"] ==
        std::pair<std::string, std::string>("tools.example.com", "v1"));
  CHECK(wanted.count("v1alpha1.tools.example.com") == 1);
}

TEST_CASE("versions sort kube-aware", "[aggregator]") {
  // Upstream's own example order.
  std::vector<std::string> versions = {"foo10", "v11alpha2", "v1",       "v3beta1", "v12alpha1",
                                       "v2",    "foo1",      "v10beta3", "v10",     "v11beta2"};
  std::sort(versions.begin(), versions.end(),
            [](const auto& a, const auto& b) { return compare_versions(a, b) < 0; });
  CHECK(versions == std::vector<std::string>{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1",
                                             "v12alpha1", "v11alpha2", "foo1", "foo10"});
  CHECK(compare_versions("v1", "v1") == 0);
  CHECK(compare_versions("v1", "v1beta1") < 0);
}

TEST_CASE("groups order by groupPriorityMinimum, then name; versions by versionPriority",
          "[aggregator]") {
  auto order = order_groups(
      {service_of("b.example.com", "v1", {1000, 15}), service_of("apps", "v1", {17800, 15}),
       service_of("a.example.com", "v1beta1", {1000, 9}),
       service_of("a.example.com", "v2", {1000, 9}), service_of("a.example.com", "v1", {1000, 15}),
       service_of("", "v1", {18000, 1})});
  REQUIRE(order.size() == 4);
  CHECK(order[0].group == "");
  CHECK(order[1].group == "apps");
  CHECK(order[2].group == "a.example.com");
  CHECK(order[2].versions == std::vector<std::string>{"v1", "v2", "v1beta1"});
  CHECK(order[3].group == "b.example.com");
}

TEST_CASE("the Available condition keeps its transition time while its status holds",
          "[aggregator]") {
  json object = {{"metadata", {{"name", "v1.x"}}}};
  CHECK(set_available(object, local_condition(), "2026-01-01T00:00:00Z"));
  CHECK(
      object["status"]["conditions"].dump() ==
      R"([{"lastTransitionTime":"2026-01-01T00:00:00Z","message":"Local APIServices are always available","reason":"Local","status":"True","type":"Available"}])");
  CHECK_FALSE(set_available(object, local_condition(), "2026-01-02T00:00:00Z"));
  CHECK(set_available(object, passed_condition(), "2026-01-03T00:00:00Z"));
  CHECK(object["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:00:00Z");
  CHECK(set_available(object, {"False", "MissingEndpoints", "m"}, "2026-01-04T00:00:00Z"));
  CHECK(object["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-04T00:00:00Z");
  CHECK(parse_apiservice(object).available == Condition{"False", "MissingEndpoints", "m"});
}

TEST_CASE("a service-backed APIService is read from its object", "[aggregator]") {
  auto s = parse_apiservice(json::parse(R"({"metadata":{"name":"v1.w.example.com",
      "labels":{"kube-aggregator.kubernetes.io/automanaged":"true"}},
      "spec":{"group":"w.example.com","version":"v1","groupPriorityMinimum":1000,
      "versionPriority":15,"service":{"namespace":"ns","name":"api"},"caBundle":"cGVt",
      "insecureSkipTLSVerify":true}})"));
  CHECK(s.group == "w.example.com");
  CHECK(s.priority == Priority{1000, 15});
  REQUIRE(s.service);
  CHECK(s.service->port == 443);
  CHECK(s.ca_pem == "pem");
  CHECK(s.insecure_skip_verify);
  CHECK(s.automanaged == "true");
  CHECK_FALSE(s.available);
}

TEST_CASE("availability checks end in upstream's reasons and messages", "[aggregator]") {
  ApiService s = service_of("w.example.com", "v1", {1000, 15}, true);
  const json service = json::parse(R"({"spec":{"ports":[{"name":"https","port":443}]}})");
  const json ready = json::parse(
      R"({"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"name":"https","port":8443}]}]})");
  using Objects = std::map<std::string, json>;

  CHECK(check_service(s, lookups_over({})) ==
        Condition{"False", "ServiceNotFound", R"(service/api in "default" is not present)"});
  s.service->port = 8080;
  CHECK(check_service(s, lookups_over(Objects{{"services/default/api", service}})) ==
        Condition{"False", "ServicePortError",
                  R"(service/api in "default" is not listening on port 8080)"});
  s.service->port = 443;
  CHECK(check_service(s, lookups_over(Objects{{"services/default/api", service}})) ==
        Condition{"False", "EndpointsNotFound",
                  R"(cannot find endpoints for service/api in "default")"});
  CHECK(check_service(s, lookups_over(Objects{{"services/default/api", service},
                                              {"endpoints/default/api", json::object()}})) ==
        Condition{
            "False", "MissingEndpoints",
            R"(endpoints for service/api in "default" have no addresses with port name "https")"});
  CHECK_FALSE(check_service(s, lookups_over(Objects{{"services/default/api", service},
                                                    {"endpoints/default/api", ready}})));
  const json slice = json::parse(R"({"metadata":{"labels":{"kubernetes.io/service-name":"api"}},
      "endpoints":[{"addresses":["127.0.0.1"]}],"ports":[{"name":"https","port":8443}]})");
  CHECK_FALSE(check_service(s, lookups_over(Objects{{"services/default/api", service},
                                                    {"endpointslices/default/s1", slice}})));
  CHECK_FALSE(check_service(
      s, lookups_over(Objects{
             {"services/default/api", json::parse(R"({"spec":{"type":"ExternalName"}})")}})));

  CHECK(discovery_path(s) == "/apis/w.example.com/v1");
  CHECK(discovery_path(service_of("", "v1", {}, true)) == "/api/v1");
  const std::string url = "https://127.0.0.1:8443/apis/w.example.com/v1";
  CHECK(discovery_condition(url, "", 200) == passed_condition());
  CHECK(discovery_condition(url, "", 404).message ==
        "failing or missing response from " + url + ": bad status from " + url + ": 404");
  CHECK(discovery_condition(url, "Get \"" + url + "\": context deadline exceeded", 0) ==
        Condition{"False", "FailedDiscoveryCheck",
                  "failing or missing response from " + url + ": Get \"" + url +
                      "\": context deadline exceeded"});
}

TEST_CASE("the proxied request carries the identity, not the client's credentials",
          "[aggregator]") {
  CHECK(path_escape("example.com/key with space") == "example.com%2Fkey%20with%20space");
  CHECK(path_escape("a-b_c.d~e$f&g+h:i=j@k") == "a-b_c.d~e$f&g+h:i=j@k");

  apiserver::http::Request request;
  request.method = "GET";
  request.headers["Authorization"] = "Bearer secret";
  request.headers["Impersonate-User"] = "alice";
  request.headers["X-Remote-User"] = "forged";
  request.headers["Accept"] = "application/json";
  request.headers["Connection"] = "keep-alive";
  request.remote_address = "127.0.0.1:51000";
  Identity identity{
      "alice", {"devs", "system:authenticated"}, {{"scopes.example.com/x", {"a", "b"}}}};
  auto out = proxied_request(request, identity);
  CHECK(out.headers == std::vector<std::pair<std::string, std::string>>{
                           {"Accept", "application/json"},
                           {"X-Forwarded-For", "127.0.0.1"},
                           {"X-Remote-User", "alice"},
                           {"X-Remote-Group", "devs"},
                           {"X-Remote-Group", "system:authenticated"},
                           {"X-Remote-Extra-scopes.example.com%2Fx", "a"},
                           {"X-Remote-Extra-scopes.example.com%2Fx", "b"}});

  auto error = proxy_error(503, "service unavailable");
  CHECK(error.status == 503);
  CHECK(error.body == "service unavailable\n");
}

TEST_CASE("extension groups merge into discovery in priority order", "[aggregator]") {
  std::vector<ApiService> local = {service_of("", "v1", {18000, 1}),
                                   service_of("apps", "v1", {17800, 15}),
                                   service_of("tools.example.com", "v1", {1000, 100})};
  ExtensionGroup ext;
  ext.services = {service_of("wardle.example.com", "v1alpha1", {1000, 15}, true)};
  ext.resource_lists["v1alpha1"] = json::parse(R"({"resources":[
      {"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"],"shortNames":["fl"]},
      {"name":"flunders/status","namespaced":true,"kind":"Flunder","verbs":["get"]}]})");
  ExtensionGroup high;
  high.services = {service_of("metrics.k8s.io", "v1beta1", {17900, 100}, true)};
  std::map<std::string, ExtensionGroup> extensions = {{"wardle.example.com", ext},
                                                      {"metrics.k8s.io", high}};

  ordered_json legacy = ordered_json::parse(
      R"({"kind":"APIGroupList","groups":[{"name":"apiregistration.k8s.io"},{"name":"apps"},{"name":"tools.example.com"}]})");
  merge_groups(legacy, false, local, extensions);
  std::vector<std::string> names;
  for (const auto& g : legacy["groups"]) {
    names.push_back(g["name"].get<std::string>());
  }
  CHECK(names == std::vector<std::string>{"apiregistration.k8s.io", "metrics.k8s.io", "apps",
                                          "tools.example.com", "wardle.example.com"});
  CHECK(
      legacy["groups"][4].dump() ==
      R"({"name":"wardle.example.com","versions":[{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}})");

  // Aggregated: only versions with a known resource list; stale ones marked.
  extensions["wardle.example.com"].stale["v1alpha1"] = true;
  ordered_json aggregated = ordered_json::parse(
      R"({"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"}}]})");
  merge_groups(aggregated, true, local, extensions);
  REQUIRE(aggregated["items"].size() == 2);
  CHECK(
      aggregated["items"][1].dump() ==
      R"({"metadata":{"name":"wardle.example.com","creationTimestamp":null},"versions":[{"version":"v1alpha1","resources":[{"resource":"flunders","responseKind":{"group":"","version":"","kind":"Flunder"},"scope":"Namespaced","singularResource":"flunder","verbs":["get","list"],"shortNames":["fl"],"subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"Flunder"},"verbs":["get"]}]}],"freshness":"Stale"}]})");
}
