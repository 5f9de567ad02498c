#include "endpoints/discovery.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "apiserver/registry.h"
#include "test_request.h"

using apiserver::endpoints::serve_discovery;
using apiserver::endpoints::storage_version_hash;
using apiserver::testing::get_request;
using apiserver::testing::response_header;
using nlohmann::json;

namespace {

constexpr const char* kV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr const char* kV2Beta1 =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
// What client-go 1.32's discovery client sends to /api and /apis.
const std::string kKubectlAccept = std::string(kV2) + "," + kV2Beta1 + ",application/json";

const json* find_named(const json& array, const std::string& key, const std::string& name) {
  for (const auto& e : array) {
    if (e.value(key, std::string()) == name) {
      return &e;
    }
  }
  return nullptr;
}

struct Fixture {
  std::shared_ptr<apiserver::registry::Registry> registry =
      apiserver::registry::Registry::builtin();
  std::shared_ptr<const apiserver::registry::Snapshot> snapshot = registry->snapshot();

  apiserver::http::Response serve(const apiserver::http::Request& request) const {
    auto response = serve_discovery(request, *snapshot, "10.0.0.1:6443");
    REQUIRE(response.has_value());
    return *response;
  }
  json body(const apiserver::http::Request& request) const {
    auto r = serve(request);
    REQUIRE(r.status == 200);
    return json::parse(r.body);
  }
};

void require_not_found(const apiserver::http::Response& r) {
  REQUIRE(r.status == 404);
  REQUIRE(json::parse(r.body) == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
      "status":"Failure","message":"the server could not find the requested resource",
      "reason":"NotFound","details":{},"code":404})"));
}

}  // namespace

TEST_CASE("storage version hashes match kube-apiserver's", "[discovery]") {
  // Values from upstream's storage version hash test data.
  CHECK(storage_version_hash("", "v1", "Pod") == "xPOwRZ+Yhw8=");
  CHECK(storage_version_hash("apps", "v1", "Deployment") == "8aSe+NMegvE=");
  CHECK(storage_version_hash("", "v1", "Event") == "r2yiGXH7wu8=");
  CHECK(storage_version_hash("autoscaling", "v2", "HorizontalPodAutoscaler") == "qwQve8ut294=");
}

TEST_CASE("paths that are not discovery are left to the caller", "[discovery]") {
  Fixture f;
  for (const char* path :
       {"/api/v1/pods", "/api/v1/namespaces/default/pods", "/apis/apps/v1/deployments", "/version",
        "/healthz", "/apiss", "/openapi/v2", "/"}) {
    CAPTURE(path);
    CHECK_FALSE(serve_discovery(get_request(path), *f.snapshot, "10.0.0.1:6443").has_value());
  }
}

TEST_CASE("/api lists the core versions and the server address", "[discovery]") {
  Fixture f;
  auto r = f.serve(get_request("/api"));
  CHECK(response_header(r, "Content-Type") == "application/json");
  CHECK(r.body == R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":)"
                  R"([{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]})");
}

TEST_CASE("/api/v1 lists core resources and their subresources", "[discovery]") {
  Fixture f;
  json list = f.body(get_request("/api/v1"));
  CHECK(list["kind"] == "APIResourceList");
  CHECK_FALSE(list.contains("apiVersion"));  // kube-apiserver strips it for the core group
  CHECK(list["groupVersion"] == "v1");
  const json& resources = list["resources"];

  SECTION("pods") {
    const json* pods = find_named(resources, "name", "pods");
    REQUIRE(pods != nullptr);
    CHECK(*pods == json::parse(R"({"name":"pods","singularName":"pod","namespaced":true,
        "kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch",
        "update","watch"],"shortNames":["po"],"categories":["all"],
        "storageVersionHash":"xPOwRZ+Yhw8="})"));
  }
  SECTION("subresources, with group and version only when the kind lives elsewhere") {
    const json* status = find_named(resources, "name", "pods/status");
    REQUIRE(status != nullptr);
    CHECK(*status == json::parse(R"({"name":"pods/status","singularName":"","namespaced":true,
        "kind":"Pod","verbs":["get","patch","update"]})"));
    const json* log = find_named(resources, "name", "pods/log");
    REQUIRE(log != nullptr);
    CHECK((*log)["kind"] == "Pod");
    CHECK((*log)["verbs"] == json::array({"get"}));
    const json* eviction = find_named(resources, "name", "pods/eviction");
    REQUIRE(eviction != nullptr);
    CHECK(*eviction == json::parse(R"({"name":"pods/eviction","singularName":"",
        "namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]})"));
  }
  SECTION("resources that are never stored carry no storage version hash") {
    const json* bindings = find_named(resources, "name", "bindings");
    REQUIRE(bindings != nullptr);
    CHECK_FALSE(bindings->contains("storageVersionHash"));
  }
  SECTION("entries are ordered by path, as upstream registers them") {
    std::vector<std::string> names;
    for (const auto& e : resources) {
      names.push_back(e["name"]);
    }
    CHECK(std::is_sorted(names.begin(), names.end()));
    auto pods = std::find(names.begin(), names.end(), "pods");
    REQUIRE(pods != names.end());
    CHECK(*(pods + 1) == "pods/attach");
  }
}

TEST_CASE("/apis/apps/v1 lists deployments with their scale subresource", "[discovery]") {
  Fixture f;
  json list = f.body(get_request("/apis/apps/v1"));
  CHECK(list["kind"] == "APIResourceList");
  CHECK(list["apiVersion"] == "v1");
  CHECK(list["groupVersion"] == "apps/v1");
  const json* deployments = find_named(list["resources"], "name", "deployments");
  REQUIRE(deployments != nullptr);
  CHECK((*deployments)["shortNames"] == json::array({"deploy"}));
  CHECK((*deployments)["storageVersionHash"] == "8aSe+NMegvE=");
  const json* scale = find_named(list["resources"], "name", "deployments/scale");
  REQUIRE(scale != nullptr);
  CHECK(*scale == json::parse(R"({"name":"deployments/scale","singularName":"","namespaced":true,
      "group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]})"));
}

TEST_CASE("resources stored elsewhere hash their storage kind", "[discovery]") {
  Fixture f;
  // events.k8s.io events are core v1 Events in storage; HPAs are stored as autoscaling/v2.
  json events_list = f.body(get_request("/apis/events.k8s.io/v1"));
  const json* events = find_named(events_list["resources"], "name", "events");
  REQUIRE(events != nullptr);
  CHECK((*events)["storageVersionHash"] == "r2yiGXH7wu8=");
  for (const char* version : {"v1", "v2"}) {
    CAPTURE(version);
    json list = f.body(get_request(std::string("/apis/autoscaling/") + version));
    const json* hpa = find_named(list["resources"], "name", "horizontalpodautoscalers");
    REQUIRE(hpa != nullptr);
    CHECK((*hpa)["storageVersionHash"] == "qwQve8ut294=");
  }
}

TEST_CASE("/apis lists the groups with their preferred versions", "[discovery]") {
  Fixture f;
  json list = f.body(get_request("/apis"));
  CHECK(list["kind"] == "APIGroupList");
  CHECK(list["apiVersion"] == "v1");
  const json& groups = list["groups"];
  CHECK(find_named(groups, "name", "") == nullptr);  // core is served at /api only
  CHECK(groups[0]["name"] == "apiregistration.k8s.io");
  const json* apps = find_named(groups, "name", "apps");
  REQUIRE(apps != nullptr);
  CHECK(*apps == json::parse(R"({"name":"apps","versions":[{"groupVersion":"apps/v1",
      "version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}})"));
  const json* autoscaling = find_named(groups, "name", "autoscaling");
  REQUIRE(autoscaling != nullptr);
  CHECK((*autoscaling)["versions"] ==
        json::parse(R"([{"groupVersion":"autoscaling/v2","version":"v2"},
            {"groupVersion":"autoscaling/v1","version":"v1"}])"));
  CHECK((*autoscaling)["preferredVersion"] ==
        json::parse(R"({"groupVersion":"autoscaling/v2","version":"v2"})"));
  // Group order is the registry's discovery order.
  size_t i = 0;
  for (const auto& g : f.snapshot->groups()) {
    if (!g.name.empty()) {
      CHECK(groups[i++]["name"] == g.name);
    }
  }
}

TEST_CASE("/apis/<group> describes one group", "[discovery]") {
  Fixture f;
  CHECK(f.body(get_request("/apis/autoscaling/")) ==
        json::parse(R"({"kind":"APIGroup","apiVersion":"v1","name":"autoscaling","versions":[
            {"groupVersion":"autoscaling/v2","version":"v2"},
            {"groupVersion":"autoscaling/v1","version":"v1"}],
            "preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}})"));
}

TEST_CASE("groups and versions that are not served are 404 Status", "[discovery]") {
  Fixture f;
  for (const char* path : {"/apis/nosuch.example.com", "/apis/nosuch.example.com/v1",
                           "/apis/apps/v1beta1", "/apis/storage.k8s.io/v1alpha1", "/api/v2"}) {
    CAPTURE(path);
    require_not_found(f.serve(get_request(path)));
  }
}

TEST_CASE("discovery answers GET only", "[discovery]") {
  Fixture f;
  auto request = get_request("/apis");
  request.method = "POST";
  auto r = f.serve(request);
  CHECK(r.status == 405);
  CHECK(json::parse(r.body)["reason"] == "MethodNotAllowed");
}

TEST_CASE("aggregated discovery is chosen by the Accept header", "[discovery]") {
  Fixture f;
  struct Case {
    std::string accept;
    std::string content_type;  // empty: the legacy document
  };
  auto [accept, content_type] = GENERATE(
      Case{kKubectlAccept, kV2}, Case{kV2, kV2}, Case{kV2Beta1, kV2Beta1},
      Case{std::string(kV2) + ";q=0.5," + kV2Beta1, kV2Beta1},
      Case{"application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io", kV2},
      Case{"*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", kV2},
      Case{"application/json", ""}, Case{"*/*", ""}, Case{"", ""},
      Case{"application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList,application/json",
           ""},
      Case{"application/json;g=meta.k8s.io;v=v1;as=Table,application/json", ""});
  CAPTURE(accept);
  for (const char* path : {"/api", "/apis"}) {
    CAPTURE(path);
    auto r = f.serve(get_request(path, accept));
    REQUIRE(r.status == 200);
    json doc = json::parse(r.body);
    if (content_type.empty()) {
      CHECK(response_header(r, "Content-Type") == "application/json");
      CHECK(doc["kind"] != "APIGroupDiscoveryList");
      CHECK(response_header(r, "ETag").empty());
    } else {
      CHECK(response_header(r, "Content-Type") == content_type);
      CHECK(doc["kind"] == "APIGroupDiscoveryList");
      std::string version = content_type.find("v=v2beta1") != std::string::npos ? "v2beta1" : "v2";
      CHECK(doc["apiVersion"] == "apidiscovery.k8s.io/" + version);
    }
  }
}

TEST_CASE("accept headers the server cannot answer are 406", "[discovery]") {
  Fixture f;
  auto r = f.serve(get_request("/apis/apps/v1", "text/html"));
  CHECK(r.status == 406);
  CHECK(json::parse(r.body)["reason"] == "NotAcceptable");
  // The aggregated type is only offered at /api and /apis.
  CHECK(f.serve(get_request("/apis/apps/v1", kV2)).status == 406);
  // A range without a subtype is dropped, as goautoneg drops it.
  CHECK(f.serve(get_request("/apis/apps/v1", "application")).status == 406);
}

TEST_CASE("discovery negotiates in goautoneg's order, q=0 ranges last but still acceptable",
          "[discovery]") {
  Fixture f;
  auto [accept, content_type] = GENERATE(table<std::string, std::string>({
      {"application/json;q=0", "application/json"},
      {"text/html, application/yaml;q=0", "application/yaml"},
      {"application/yaml;q=0.5, application/json", "application/json"},
      {"application/json;q=0.5, application/yaml", "application/yaml"},
      {"*;q=0.5, application/yaml;q=0.1", "application/json"},
      {"application, application/yaml", "application/yaml"},
  }));
  CAPTURE(accept);
  auto r = f.serve(get_request("/apis/apps", accept));
  CHECK(r.status == 200);
  CHECK(response_header(r, "Content-Type") == content_type);
}

TEST_CASE("YAML is served when asked for", "[discovery]") {
  Fixture f;
  auto r = f.serve(get_request("/apis/apps", "application/yaml"));
  CHECK(r.status == 200);
  CHECK(response_header(r, "Content-Type") == "application/yaml");
  CHECK(r.body.find("kind: APIGroup\n") != std::string::npos);
}

TEST_CASE("the aggregated document mirrors the resource lists", "[discovery]") {
  Fixture f;
  json core = f.body(get_request("/api", kKubectlAccept));
  json groups = f.body(get_request("/apis", kKubectlAccept));

  SECTION("list shape") {
    CHECK(core["metadata"] == json::object());
    REQUIRE(core["items"].size() == 1);
    CHECK(core["items"][0]["metadata"] == json::parse(R"({"creationTimestamp":null})"));
    REQUIRE(groups["items"].size() + 1 == f.snapshot->groups().size());
    size_t i = 0;
    for (const auto& g : f.snapshot->groups()) {
      if (!g.name.empty()) {
        CHECK(groups["items"][i++]["metadata"]["name"] == g.name);
      }
    }
  }
  SECTION("pods") {
    const json& v1 = core["items"][0]["versions"][0];
    CHECK(v1["version"] == "v1");
    CHECK(v1["freshness"] == "Current");
    const json* pods = find_named(v1["resources"], "resource", "pods");
    REQUIRE(pods != nullptr);
    CHECK((*pods)["responseKind"] == json::parse(R"({"group":"","version":"","kind":"Pod"})"));
    CHECK((*pods)["scope"] == "Namespaced");
    CHECK((*pods)["singularResource"] == "pod");
    CHECK((*pods)["shortNames"] == json::array({"po"}));
    CHECK((*pods)["categories"] == json::array({"all"}));
    const json* eviction = find_named((*pods)["subresources"], "subresource", "eviction");
    REQUIRE(eviction != nullptr);
    CHECK(*eviction == json::parse(R"({"subresource":"eviction","responseKind":
        {"group":"policy","version":"v1","kind":"Eviction"},"verbs":["create"]})"));
    const json* status = find_named((*pods)["subresources"], "subresource", "status");
    REQUIRE(status != nullptr);
    CHECK((*status)["responseKind"] == json::parse(R"({"group":"","version":"","kind":"Pod"})"));
  }
  SECTION("cluster scope and versions in preference order") {
    const json* nodes =
        find_named(core["items"][0]["versions"][0]["resources"], "resource", "nodes");
    REQUIRE(nodes != nullptr);
    CHECK((*nodes)["scope"] == "Cluster");
    const json* autoscaling = nullptr;
    for (const auto& item : groups["items"]) {
      if (item["metadata"]["name"] == "autoscaling") {
        autoscaling = &item;
      }
    }
    REQUIRE(autoscaling != nullptr);
    REQUIRE((*autoscaling)["versions"].size() == 2);
    CHECK((*autoscaling)["versions"][0]["version"] == "v2");
    CHECK((*autoscaling)["versions"][1]["version"] == "v1");
  }
  SECTION("every legacy entry appears, and nothing else") {
    for (const auto& item : groups["items"]) {
      std::string group = item["metadata"]["name"];
      for (const auto& version : item["versions"]) {
        json legacy = f.body(get_request("/apis/" + group + "/" + std::string(version["version"])));
        std::set<std::string> expected;
        for (const auto& e : legacy["resources"]) {
          expected.insert(e["name"]);
        }
        std::set<std::string> actual;
        for (const auto& r : version["resources"]) {
          actual.insert(r["resource"]);
          CHECK(r["scope"] ==
                (find_named(legacy["resources"], "name", r["resource"])->at("namespaced")
                     ? "Namespaced"
                     : "Cluster"));
          for (const auto& s : r.value("subresources", json::array())) {
            actual.insert(std::string(r["resource"]) + "/" + std::string(s["subresource"]));
          }
        }
        CAPTURE(group, version["version"]);
        CHECK(actual == expected);
      }
    }
  }
}

TEST_CASE("the aggregated document carries a stable ETag and honours If-None-Match",
          "[discovery]") {
  Fixture f;
  for (const char* path : {"/api", "/apis"}) {
    CAPTURE(path);
    auto first = f.serve(get_request(path, kKubectlAccept));
    auto second = f.serve(get_request(path, kKubectlAccept));
    std::string etag = response_header(first, "ETag");
    REQUIRE(etag.size() == 2 + 128);  // quoted SHA-512 in hex
    CHECK(etag.front() == '"');
    CHECK(etag.back() == '"');
    CHECK(etag.find_first_not_of("0123456789ABCDEF", 1) == etag.size() - 1);
    CHECK(response_header(second, "ETag") == etag);
    CHECK(response_header(first, "Vary") == "Accept");
    CHECK(response_header(first, "Cache-Control") == "public");
    // The ETag does not depend on the negotiated version.
    CHECK(response_header(f.serve(get_request(path, kV2Beta1)), "ETag") == etag);

    auto request = get_request(path, kKubectlAccept);
    request.headers["If-None-Match"] = etag;
    auto cached = f.serve(request);
    CHECK(cached.status == 304);
    CHECK(cached.body.empty());
    CHECK(response_header(cached, "ETag") == etag);

    request.headers["If-None-Match"] = "\"0\"";
    CHECK(f.serve(request).status == 200);
  }
  CHECK(response_header(f.serve(get_request("/api", kV2)), "ETag") !=
        response_header(f.serve(get_request("/apis", kV2)), "ETag"));
}

TEST_CASE("the ETag changes when the served resources change", "[discovery]") {
  Fixture f;
  std::string before = response_header(f.serve(get_request("/apis", kV2)), "ETag");
  f.registry->remove("apps", "v1", "controllerrevisions");
  f.snapshot = f.registry->snapshot();
  CHECK(response_header(f.serve(get_request("/apis", kV2)), "ETag") != before);
}
