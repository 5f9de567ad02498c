#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "endpoints/openapi.h"

using apiserver::endpoints::OpenApi;
using nlohmann::json;

namespace {

apiserver::http::Request get(const std::string& path, const std::string& query = "") {
  apiserver::http::Request r;
  r.method = "GET";
  r.path = path;
  r.target = query.empty() ? path : path + "?" + query;
  r.query = apiserver::http::parse_query(query);
  return r;
}

std::string header(const apiserver::http::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) {
      return v;
    }
  }
  return "";
}

// The only descriptions served: HTTP reason phrases that OpenAPI requires on responses.
void collect_descriptions(const json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "description" && it.value().is_string()) {
        out.insert(it.value().get<std::string>());
      } else if (it.key() == "properties") {
        // field names are data, not descriptions (PriorityClass has a field "description")
        for (const auto& [name, sub] : it.value().items()) {
          (void)name;
          collect_descriptions(sub, out);
        }
      } else {
        collect_descriptions(it.value(), out);
      }
    }
  } else if (j.is_array()) {
    for (const auto& e : j) {
      collect_descriptions(e, out);
    }
  }
}

const std::set<std::string> kReasonPhrases = {"OK", "Created", "Accepted", "Unauthorized"};

json gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

bool has_param(const json& op, const std::string& name) {
  for (const auto& p : op.value("parameters", json::array())) {
    if (p.value("name", "") == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("OpenAPI v2 lists every served resource with its operations and schemas", "[openapi]") {
  auto registry = apiserver::registry::Registry::builtin();
  auto snapshot = registry->snapshot();
  OpenApi openapi;

  auto start = std::chrono::steady_clock::now();
  const std::string text = openapi.v2_document(*snapshot);
  auto elapsed = std::chrono::steady_clock::now() - start;
  const json doc = json::parse(text);
  UNSCOPED_INFO("v2 bytes " << text.size() << ", built in "
                << std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()
                << " ms");

  CHECK(doc.at("swagger") == "2.0");
  CHECK(doc.at("info").at("title") == "Kubernetes");
  CHECK(doc.at("info").at("version").get<std::string>().rfind("v1.32.", 0) == 0);

  const json& pods = doc.at("paths").at("/api/v1/namespaces/{namespace}/pods");
  CHECK(pods.at("get").at("x-kubernetes-action") == "list");
  CHECK(pods.at("get").at("operationId") == "listCoreV1NamespacedPod");
  CHECK(pods.at("get").at("x-kubernetes-group-version-kind") == gvk("", "v1", "Pod"));
  CHECK(pods.at("get").at("responses").at("200").at("schema").at("$ref") ==
        "#/definitions/io.k8s.api.core.v1.PodList");
  CHECK(has_param(pods.at("get"), "watch"));
  CHECK(has_param(pods.at("get"), "allowWatchBookmarks"));
  CHECK(pods.at("post").at("x-kubernetes-action") == "post");
  CHECK(has_param(pods.at("post"), "fieldValidation"));
  CHECK(has_param(pods.at("post"), "dryRun"));
  CHECK(has_param(pods.at("post"), "fieldManager"));
  CHECK(pods.at("delete").at("x-kubernetes-action") == "deletecollection");
  // namespace and pretty are shared by every operation: listed once on the path.
  CHECK(pods.at("parameters").size() == 2);

  const json& pod = doc.at("paths").at("/api/v1/namespaces/{namespace}/pods/{name}");
  for (const char* method : {"get", "put", "patch", "delete"}) {
    CAPTURE(method);
    CHECK(pod.at(method).at("x-kubernetes-group-version-kind") == gvk("", "v1", "Pod"));
  }
  CHECK(pod.at("patch").at("consumes") ==
        json::array({"application/json-patch+json", "application/merge-patch+json",
                      "application/strategic-merge-patch+json", "application/apply-patch+yaml",
                      "application/apply-patch+cbor"}));
  CHECK(has_param(pod.at("patch"), "force"));
  CHECK(doc.at("paths").contains("/api/v1/watch/namespaces/{namespace}/pods/{name}"));
  CHECK(doc.at("paths").contains("/api/v1/pods"));
  CHECK(doc.at("paths")
            .at("/api/v1/namespaces/{namespace}/pods/{name}/exec")
            .at("post")
            .at("x-kubernetes-action") == "connect");
  CHECK(doc.at("paths")
            .at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale")
            .at("get")
            .at("x-kubernetes-group-version-kind") == gvk("autoscaling", "v1", "Scale"));

  const json& pod_def = doc.at("definitions").at("io.k8s.api.core.v1.Pod");
  CHECK(pod_def.at("x-kubernetes-group-version-kind") == json::array({gvk("", "v1", "Pod")}));
  CHECK(pod_def.at("properties").at("spec").at("$ref") ==
        "#/definitions/io.k8s.api.core.v1.PodSpec");
  CHECK(doc.at("definitions").contains("io.k8s.api.core.v1.Container"));
  CHECK(doc.at("definitions").contains("io.k8s.apimachinery.pkg.apis.meta.v1.Status"));

  // Every $ref resolves.
  std::set<std::string> dangling;
  std::function<void(const json&)> check_refs = [&](const json& j) {
    if (j.is_object()) {
      auto ref = j.find("$ref");
      if (ref != j.end() && ref->is_string()) {
        const std::string name =
            ref->get<std::string>().substr(std::string("#/definitions/").size());
        if (!doc.at("definitions").contains(name)) {
          dangling.insert(name);
        }
      }
      for (const auto& [k, v] : j.items()) {
        (void)k;
        check_refs(v);
      }
    } else if (j.is_array()) {
      for (const auto& v : j) {
        check_refs(v);
      }
    }
  };
  check_refs(doc.at("paths"));
  check_refs(doc.at("definitions"));
  CHECK(dangling.empty());

  std::set<std::string> descriptions;
  collect_descriptions(doc, descriptions);
  for (const auto& d : descriptions) {
    CAPTURE(d);
    CHECK(kReasonPhrases.count(d) == 1);
  }
}

TEST_CASE("OpenAPI v2 is served with an ETag and 304, as JSON or protobuf by Accept", "[openapi]") {
  auto snapshot = apiserver::registry::Registry::builtin()->snapshot();
  OpenApi openapi;

  auto first = openapi.serve(get("/openapi/v2"), *snapshot);
  REQUIRE(first);
  CHECK(first->status == 200);
  CHECK(header(*first, "Content-Type") == "application/json");
  const std::string etag = header(*first, "ETag");
  CHECK(etag.size() == 130);  // quoted SHA-512 in hex
  CHECK(etag.front() == '"');

  SECTION("the ETag is stable across instances") {
    OpenApi other;
    CHECK(header(*other.serve(get("/openapi/v2"), *snapshot), "ETag") == etag);
  }
  SECTION("If-None-Match with the ETag gives 304 and no body") {
    auto request = get("/openapi/v2");
    request.headers["If-None-Match"] = etag;
    auto r = openapi.serve(request, *snapshot);
    CHECK(r->status == 304);
    CHECK(r->body.empty());
    CHECK(header(*r, "ETag") == etag);
  }
  SECTION("a protobuf Accept gets the gnostic protobuf form; one the server lacks gets 406") {
    auto request = get("/openapi/v2");
    request.headers["Accept"] = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    auto proto = openapi.serve(request, *snapshot);
    CHECK(proto->status == 200);
    CHECK(header(*proto, "Content-Type") ==
          "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    CHECK(header(*proto, "ETag") == etag);
    CHECK_FALSE(proto->body.empty());
    CHECK(proto->body.front() != '{');
    request.headers["Accept"] = "text/plain";
    CHECK(openapi.serve(request, *snapshot)->status == 406);
  }
}

TEST_CASE("OpenAPI v3 index and group-version documents", "[openapi]") {
  auto snapshot = apiserver::registry::Registry::builtin()->snapshot();
  OpenApi openapi;

  auto index_response = openapi.serve(get("/openapi/v3"), *snapshot);
  REQUIRE(index_response);
  CHECK(index_response->status == 200);
  const json index = json::parse(index_response->body);
  for (const char* key : {"api/v1", "apis/apps/v1", "api", "apis", "apis/apps", "version"}) {
    CAPTURE(key);
    REQUIRE(index.at("paths").contains(key));
    const std::string url = index.at("paths").at(key).at("serverRelativeURL");
    CHECK(url.rfind("/openapi/v3/" + std::string(key) + "?hash=", 0) == 0);
    CHECK(url.size() == std::string("/openapi/v3/").size() + std::string(key).size() + 6 + 128);
  }
  CHECK_FALSE(index.at("paths").contains("apis/apps/v1beta1"));

  const std::string url = index.at("paths").at("apis/apps/v1").at("serverRelativeURL");
  const std::string hash = url.substr(url.find("hash=") + 5);

  auto r = openapi.serve(get("/openapi/v3/apis/apps/v1", "hash=" + hash), *snapshot);
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(header(*r, "Cache-Control") == "public, immutable");
  CHECK_FALSE(header(*r, "Expires").empty());
  CHECK(header(*r, "ETag") == "\"" + hash + "\"");
  const json doc = json::parse(r->body);
  CHECK(doc.at("openapi") == "3.0.0");
  const json& schemas = doc.at("components").at("schemas");
  const json& deployment = schemas.at("io.k8s.api.apps.v1.Deployment");
  CHECK(deployment.at("x-kubernetes-group-version-kind") ==
        json::array({gvk("apps", "v1", "Deployment")}));
  CHECK(deployment.at("properties").at("spec").at("$ref") ==
        "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec");
  CHECK(schemas.contains("io.k8s.api.core.v1.PodSpec"));
  CHECK_FALSE(schemas.contains("io.k8s.api.batch.v1.Job"));
  // A "$ref" with siblings is wrapped in allOf, as upstream serves v3.
  const json& strategy =
      schemas.at("io.k8s.api.apps.v1.DeploymentSpec").at("properties").at("strategy");
  CHECK(strategy.at("allOf") ==
        json::array({{{"$ref", "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}}}));
  CHECK_FALSE(strategy.contains("$ref"));

  const json& paths = doc.at("paths");
  CHECK_FALSE(paths.contains("/api/v1/namespaces/{namespace}/pods"));
  const json& item = paths.at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}");
  // kubectl's field validation check: the PATCH operation of the kind lists fieldValidation.
  CHECK(item.at("patch").at("x-kubernetes-group-version-kind") == gvk("apps", "v1", "Deployment"));
  CHECK(has_param(item.at("patch"), "fieldValidation"));
  CHECK(item.at("patch").at("requestBody").at("content").contains("application/apply-patch+yaml"));
  const json& ok = item.at("get").at("responses").at("200");
  CHECK(ok.at("content").at("application/json").at("schema") ==
        json{{"$ref", "#/components/schemas/io.k8s.api.apps.v1.Deployment"}});
  CHECK(paths.at("/apis/apps/v1/namespaces/{namespace}/deployments").at("get").at(
            "x-kubernetes-group-version-kind") == gvk("apps", "v1", "Deployment"));

  std::set<std::string> descriptions;
  collect_descriptions(doc, descriptions);
  for (const auto& d : descriptions) {
    CAPTURE(d);
    CHECK(kReasonPhrases.count(d) == 1);
  }

  SECTION("every PATCH operation of every group-version lists fieldValidation itself") {
    for (const auto& [key, entry] : index.at("paths").items()) {
      CAPTURE(key);
      auto gv = openapi.v3_document(*snapshot, key);
      REQUIRE(gv);
      const json doc = json::parse(*gv);  // named: items() must not outlive a temporary
      for (const auto& [path, methods] : doc.at("paths").items()) {
        if (methods.contains("patch") &&
            methods.at("patch").value("x-kubernetes-action", "") == "patch") {
          CAPTURE(path);
          CHECK(has_param(methods.at("patch"), "fieldValidation"));
        }
      }
      (void)entry;
    }
  }
  SECTION("a stale hash redirects to the current one") {
    auto stale = openapi.serve(get("/openapi/v3/apis/apps/v1", "hash=0123"), *snapshot);
    CHECK(stale->status == 301);
    CHECK(header(*stale, "Location") == url);
  }
  SECTION("no hash: no immutable caching; If-None-Match gives 304") {
    auto plain = openapi.serve(get("/openapi/v3/apis/apps/v1"), *snapshot);
    CHECK(plain->status == 200);
    CHECK(header(*plain, "Cache-Control").empty());
    auto request = get("/openapi/v3/apis/apps/v1");
    request.headers["If-None-Match"] = "\"" + hash + "\"";
    CHECK(openapi.serve(request, *snapshot)->status == 304);
  }
  SECTION("the core group-version document has the pod paths and kinds") {
    const json core = json::parse(*openapi.v3_document(*snapshot, "api/v1"));
    CHECK(core.at("paths").contains("/api/v1/namespaces/{namespace}/pods/{name}"));
    CHECK(core.at("components").at("schemas").at("io.k8s.api.core.v1.Pod").contains(
        "x-kubernetes-group-version-kind"));
  }
  SECTION("an unknown group-version is 404") {
    CHECK(openapi.serve(get("/openapi/v3/apis/nope/v1"), *snapshot)->status == 404);
  }
}

TEST_CASE("OpenAPI documents follow the snapshot generation", "[openapi]") {
  auto registry = apiserver::registry::Registry::builtin();
  OpenApi openapi;
  auto before = registry->snapshot();
  const std::string etag = header(*openapi.serve(get("/openapi/v2"), *before), "ETag");

  apiserver::registry::Resource crd;
  crd.group = "stable.example.com";
  crd.version = "v1";
  crd.resource = "crontabs";
  crd.kind = "CronTab";
  crd.singular = "crontab";
  crd.namespaced = true;
  crd.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  registry->upsert(crd);
  auto after = registry->snapshot();
  REQUIRE(after->generation() != before->generation());

  auto r = openapi.serve(get("/openapi/v2"), *after);
  CHECK(header(*r, "ETag") != etag);
  const json doc = json::parse(r->body);
  CHECK(doc.at("paths").contains("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs"));
  CHECK(doc.at("definitions").at("com.example.stable.v1.CronTab").at(
            "x-kubernetes-group-version-kind") ==
        json::array({gvk("stable.example.com", "v1", "CronTab")}));
  const json index = json::parse(openapi.serve(get("/openapi/v3"), *after)->body);
  CHECK(index.at("paths").contains("apis/stable.example.com/v1"));
}

TEST_CASE("OpenAPI ignores other paths", "[openapi]") {
  auto snapshot = apiserver::registry::Registry::builtin()->snapshot();
  OpenApi openapi;
  for (const char* path : {"/api/v1", "/openapi", "/openapi/v2/", "/openapi/v3x", "/version"}) {
    CAPTURE(path);
    CHECK_FALSE(openapi.serve(get(path), *snapshot));
  }
}
