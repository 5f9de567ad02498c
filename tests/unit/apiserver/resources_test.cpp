#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apiserver/apiserver.h"
#include "common/clock.h"
#include "storage/compactor.h"
#include "store/store.h"
#include "test_api.h"
#include "watch_events.h"

using apiserver::testing::Api;
using apiserver::testing::EventReader;
using nlohmann::json;

namespace {

json configmap(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}}},
          {"data", {{"k", "v"}}}};
}

}  // namespace

TEST_CASE("a fresh cluster has its four namespaces", "[apiserver][resources]") {
  Api api;
  auto list = api.call("GET", "/api/v1/namespaces");
  REQUIRE(list.status == 200);
  CHECK(list.body["kind"] == "NamespaceList");
  std::vector<std::string> names;
  for (const auto& item : list.body["items"]) {
    names.push_back(item["metadata"]["name"]);
    CHECK(item["status"]["phase"] == "Active");
  }
  CHECK(names ==
        std::vector<std::string>{"default", "kube-node-lease", "kube-public", "kube-system"});
}

TEST_CASE("create, get, update and delete a ConfigMap with kube-apiserver's metadata",
          "[apiserver][resources]") {
  Api api;
  auto created = api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("app"));
  REQUIRE(created.status == 201);
  const auto& meta = created.body["metadata"];
  CHECK(meta["namespace"] == "default");
  CHECK(meta["uid"].get<std::string>().size() == 36);
  CHECK_FALSE(meta.contains("generation"));
  std::string rv = meta["resourceVersion"];

  auto got = api.call("GET", "/api/v1/namespaces/default/configmaps/app");
  REQUIRE(got.status == 200);
  CHECK(got.body == created.body);

  SECTION("an update with the current resourceVersion succeeds and moves it") {
    json changed = got.body;
    changed["data"]["k"] = "w";
    auto updated = api.call("PUT", "/api/v1/namespaces/default/configmaps/app", changed);
    REQUIRE(updated.status == 200);
    CHECK(updated.body["data"]["k"] == "w");
    CHECK(updated.body["metadata"]["uid"] == meta["uid"]);
    CHECK(updated.body["metadata"]["resourceVersion"] != rv);

    SECTION("and the stale object is then a Conflict") {
      auto stale = api.call("PUT", "/api/v1/namespaces/default/configmaps/app", changed);
      CHECK(stale.status == 409);
      CHECK(stale.body["reason"] == "Conflict");
      CHECK(stale.body["message"] ==
            "Operation cannot be fulfilled on configmaps \"app\": the object has been modified; "
            "please apply your changes to the latest version and try again");
    }
  }
  SECTION("delete removes it and a second delete is NotFound") {
    CHECK(api.call("DELETE", "/api/v1/namespaces/default/configmaps/app").status == 200);
    auto again = api.call("DELETE", "/api/v1/namespaces/default/configmaps/app");
    CHECK(again.status == 404);
    CHECK(again.body["message"] == "configmaps \"app\" not found");
    CHECK(again.body["details"] == json{{"name", "app"}, {"kind", "configmaps"}});
  }
}

TEST_CASE("create errors carry kube-apiserver's Status", "[apiserver][resources]") {
  Api api;
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("one")).status ==
          201);
  struct Case {
    std::string what;
    std::string path;
    json body;
    int code;
    std::string reason;
    std::string message;
  };
  auto c = GENERATE(values<Case>({
      {"a name that exists", "/api/v1/namespaces/default/configmaps", configmap("one"), 409,
       "AlreadyExists", "configmaps \"one\" already exists"},
      {"a namespace that does not exist", "/api/v1/namespaces/nope/configmaps", configmap("x"), 404,
       "NotFound", "namespaces \"nope\" not found"},
      {"no name at all", "/api/v1/namespaces/default/configmaps",
       json{{"metadata", json::object()}}, 422, "Invalid",
       "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is "
       "required"},
      {"an invalid name", "/api/v1/namespaces/default/configmaps",
       json{{"metadata", {{"name", "Bad_Name"}}}}, 422, "Invalid",
       "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a "
       "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
       "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
       "used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"a namespace in the body that differs", "/api/v1/namespaces/default/configmaps",
       json{{"metadata", {{"name", "x"}, {"namespace", "kube-system"}}}}, 400, "BadRequest",
       "the namespace of the provided object does not match the namespace sent on the request"},
      {"an unknown resource", "/api/v1/namespaces/default/widgets", configmap("x"), 404, "NotFound",
       "the server could not find the requested resource"},
  }));
  CAPTURE(c.what);
  auto reply = api.call("POST", c.path, c.body);
  CHECK(reply.status == c.code);
  CHECK(reply.body["kind"] == "Status");
  CHECK(reply.body["reason"] == c.reason);
  CHECK(reply.body["message"] == c.message);
}

TEST_CASE("generateName gets a random suffix", "[apiserver][resources]") {
  Api api;
  json body = {{"metadata", {{"generateName", "job-"}}}};
  auto a = api.call("POST", "/api/v1/namespaces/default/configmaps", body);
  auto b = api.call("POST", "/api/v1/namespaces/default/configmaps", body);
  REQUIRE(a.status == 201);
  REQUIRE(b.status == 201);
  std::string name = a.body["metadata"]["name"];
  CHECK(name.rfind("job-", 0) == 0);
  CHECK(name.size() == 9);
  CHECK(name != b.body["metadata"]["name"]);
}

TEST_CASE("lists page with limit and continue, sorted by namespace and name",
          "[apiserver][resources]") {
  Api api;
  for (const char* ns : {"kube-system", "default"}) {
    for (const char* name : {"c", "a", "b"}) {
      REQUIRE(
          api.call("POST", std::string("/api/v1/namespaces/") + ns + "/configmaps", configmap(name))
              .status == 201);
    }
  }
  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    auto page =
        api.call("GET", "/api/v1/configmaps?limit=4" + (token.empty() ? "" : "&continue=" + token));
    REQUIRE(page.status == 200);
    ++pages;
    for (const auto& item : page.body["items"]) {
      CHECK_FALSE(item.contains("kind"));
      seen.push_back(item["metadata"]["namespace"].get<std::string>() + "/" +
                     item["metadata"]["name"].get<std::string>());
    }
    token = page.body["metadata"].value("continue", "");
  } while (!token.empty());
  CHECK(pages == 2);
  CHECK(seen == std::vector<std::string>{"default/a", "default/b", "default/c", "kube-system/a",
                                         "kube-system/b", "kube-system/c"});
}

TEST_CASE("an object with finalizers is only marked on delete, and goes with the last one",
          "[apiserver][resources]") {
  Api api;
  json body = configmap("held");
  body["metadata"]["finalizers"] = {"example.com/hold"};
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", body).status == 201);
  auto deleted = api.call("DELETE", "/api/v1/namespaces/default/configmaps/held");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.body["metadata"].contains("deletionTimestamp"));
  auto still = api.call("GET", "/api/v1/namespaces/default/configmaps/held");
  REQUIRE(still.status == 200);
  json released = still.body;
  released["metadata"]["finalizers"] = json::array();
  CHECK(api.call("PUT", "/api/v1/namespaces/default/configmaps/held", released).status == 200);
  CHECK(api.call("GET", "/api/v1/namespaces/default/configmaps/held").status == 404);
}

TEST_CASE("generation moves only when the spec changes", "[apiserver][resources]") {
  Api api;
  json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}}},
                     {"spec",
                      {{"replicas", 1},
                       {"selector", {{"matchLabels", {{"app", "web"}}}}},
                       {"template",
                        {{"metadata", {{"labels", {{"app", "web"}}}}},
                         {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}}}}}};
  auto created = api.call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment);
  REQUIRE(created.status == 201);
  CHECK(created.body["metadata"]["generation"] == 1);
  json labelled = created.body;
  labelled["metadata"]["labels"] = {{"a", "b"}};
  auto relabelled = api.call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", labelled);
  REQUIRE(relabelled.status == 200);
  CHECK(relabelled.body["metadata"]["generation"] == 1);
  json scaled = relabelled.body;
  scaled["spec"]["replicas"] = 3;
  auto rescaled = api.call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", scaled);
  REQUIRE(rescaled.status == 200);
  CHECK(rescaled.body["metadata"]["generation"] == 2);
}

TEST_CASE("deleting a namespace empties it, then it disappears", "[apiserver][resources]") {
  Api api;
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}};
  REQUIRE(api.call("POST", "/api/v1/namespaces", ns).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/team/configmaps", configmap("a")).status == 201);
  auto deleted = api.call("DELETE", "/api/v1/namespaces/team");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.body["status"]["phase"] == "Terminating");
  api.settle();  // the namespace controller
  CHECK(api.call("GET", "/api/v1/namespaces/team").status == 404);
  CHECK(api.call("GET", "/api/v1/namespaces/team/configmaps/a").status == 404);
}

TEST_CASE("default, kube-system and kube-public may not be deleted", "[apiserver][resources]") {
  Api api;
  auto reply = api.call("DELETE", "/api/v1/namespaces/default");
  CHECK(reply.status == 403);
  CHECK(reply.body["message"] ==
        "namespaces \"default\" is forbidden: this namespace may not be deleted");
}

TEST_CASE("the store is compacted to the revision of one interval ago", "[apiserver][storage]") {
  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto db = std::move(store::Store::open(options)).value();
  auto write = [&] {
    store::PutRequest put;
    put.key = "/registry/configmaps/default/a";
    put.value = "{}";
    REQUIRE(db->put(put).is_ok());
    return db->current_revision();
  };
  common::FakeClock clock;
  apiserver::storage::Compactor compactor(*db, std::chrono::milliseconds(20), clock);
  const auto first = write();
  // Each interval: compact to the revision the last one recorded, then record the current one.
  // The compactor waits on the clock again once its pass is done.
  REQUIRE(clock.wait_for_waiters(1, std::chrono::seconds(10)));
  clock.advance(std::chrono::milliseconds(19));
  CHECK(clock.waiters() == 1);
  clock.advance(std::chrono::milliseconds(1));
  REQUIRE(clock.wait_for_waiters(1, std::chrono::seconds(10)));
  CHECK(db->compacted_revision() < first);  // the first interval only records `first`
  const auto second = write();
  clock.advance(std::chrono::milliseconds(20));
  REQUIRE(clock.wait_for_waiters(1, std::chrono::seconds(10)));
  CHECK(db->compacted_revision() == first);  // not `second`: one interval of history stays
  CHECK(second > first);
}

TEST_CASE("a watch sends the current state, then every change", "[apiserver][watch]") {
  Api api;
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("old")).status ==
          201);
  auto stream = api.watch("/api/v1/namespaces/default/configmaps?watch=true");
  EventReader events(*stream);
  auto added = events.next();
  CHECK(added["type"] == "ADDED");
  CHECK(added["object"]["metadata"]["name"] == "old");

  auto created = api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("new"));
  REQUIRE(created.status == 201);
  auto event = events.next();
  CHECK(event["type"] == "ADDED");
  CHECK(event["object"]["metadata"]["resourceVersion"] ==
        created.body["metadata"]["resourceVersion"]);

  json changed = created.body;
  changed["data"]["k"] = "changed";
  REQUIRE(api.call("PUT", "/api/v1/namespaces/default/configmaps/new", changed).status == 200);
  CHECK(events.next()["type"] == "MODIFIED");
  REQUIRE(api.call("DELETE", "/api/v1/namespaces/default/configmaps/new").status == 200);
  auto deleted = events.next();
  CHECK(deleted["type"] == "DELETED");
  CHECK(deleted["object"]["data"]["k"] == "changed");
  stream->close();
  CHECK(stream->finished());
}

TEST_CASE("a watch from a compacted resourceVersion ends with 410 Expired", "[apiserver][watch]") {
  Api api;
  auto first = api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("a"));
  REQUIRE(first.status == 201);
  std::string old_rv = first.body["metadata"]["resourceVersion"];
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("b")).status == 201);
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("c")).status == 201);
  REQUIRE(api.db().compact({api.db().current_revision(), true}).is_ok());
  auto stream =
      api.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + old_rv);
  EventReader events(*stream);
  auto error = events.next();
  CHECK(error["type"] == "ERROR");
  CHECK(error["object"]["code"] == 410);
  CHECK(error["object"]["reason"] == "Expired");
  CHECK(error["object"]["message"] == "too old resource version: " + old_rv + " (" +
                                          std::to_string(api.db().compacted_revision() - 1) + ")");
}

TEST_CASE("/metrics counts requests by verb, resource, scope and code", "[apiserver][metrics]") {
  Api api;
  REQUIRE(api.call("GET", "/api/v1/namespaces/default/configmaps").status == 200);
  REQUIRE(api.call("GET", "/api/v1/configmaps").status == 200);
  REQUIRE(api.call("GET", "/api/v1/namespaces/default/configmaps/none").status == 404);
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", configmap("d"))
              .status == 201);
  apiserver::http::Request apply;
  apply.method = "PATCH";
  apply.path = "/api/v1/namespaces/default/configmaps/applied";
  apply.query = apiserver::http::parse_query("fieldManager=test");
  apply.headers["Authorization"] = "Bearer t0ken";
  apply.headers["Content-Type"] = "application/apply-patch+yaml";
  apply.body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n";
  REQUIRE(api.raw(apply).status == 201);
  apiserver::http::Request scrape;
  scrape.method = "GET";
  scrape.path = "/metrics";
  scrape.headers["Authorization"] = "Bearer t0ken";
  auto metrics = api.raw(scrape);
  REQUIRE(metrics.status == 200);
  const std::string& text = metrics.body;
  auto counted = [&](const std::string& code, const std::string& dry_run, const std::string& scope,
                     const std::string& verb) {
    return text.find("apiserver_request_total{code=\"" + code +
                     "\",component=\"apiserver\",dry_run=\"" + dry_run +
                     "\",group=\"\",resource=\"configmaps\",scope=\"" + scope +
                     "\",subresource=\"\",verb=\"" + verb + "\",version=\"v1\"} 1\n") !=
           std::string::npos;
  };
  CHECK(counted("200", "", "namespace", "LIST"));
  CHECK(counted("200", "", "cluster", "LIST"));
  CHECK(counted("404", "", "resource", "GET"));
  CHECK(counted("201", "All", "resource", "POST"));
  CHECK(counted("201", "", "resource", "APPLY"));
  CHECK(text.find("# TYPE apiserver_request_duration_seconds histogram") != std::string::npos);
  CHECK(text.find("apiserver_registered_watchers 0\n") != std::string::npos);
  CHECK(text.find("kube_sandbox_store_revision ") != std::string::npos);
  CHECK(text.find("apiserver_current_inflight_requests{request_kind=\"all\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("bodies may be YAML and answers may be asked for as YAML", "[apiserver][resources]") {
  Api api;
  apiserver::http::Request create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/default/configmaps";
  create.headers["Authorization"] = "Bearer t0ken";
  create.headers["Content-Type"] = "application/yaml";
  create.body =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  on: \"true\"\n"
      "  count: \"3\"\n";
  auto created = api.raw(create);
  REQUIRE(created.status == 201);
  auto body = json::parse(created.body);
  CHECK(body["data"] == json{{"on", "true"}, {"count", "3"}});

  apiserver::http::Request get;
  get.method = "GET";
  get.path = "/api/v1/namespaces/default/configmaps/from-yaml";
  get.headers["Authorization"] = "Bearer t0ken";
  get.headers["Accept"] = "application/yaml";
  auto yaml = api.raw(get);
  REQUIRE(yaml.status == 200);
  CHECK(yaml.body.find("name: from-yaml\n") != std::string::npos);
  CHECK(yaml.body.find("\"on\": \"true\"") != std::string::npos);  // quoted as go-yaml does

  get.headers["Accept"] = "application/vnd.kubernetes.protobuf";
  auto refused = api.raw(get);
  CHECK(refused.status == 406);

  create.headers["Content-Type"] = "text/plain";
  auto unsupported = api.raw(create);
  CHECK(unsupported.status == 415);
  CHECK(json::parse(unsupported.body)["reason"] == "UnsupportedMediaType");

  create.headers["Content-Type"] = "application/yaml";
  create.body = "metadata: [unclosed\n";
  auto malformed = api.raw(create);
  CHECK(malformed.status == 400);
}

TEST_CASE("reviews are answered, not stored: whoami and can-i", "[apiserver][reviews]") {
  Api api;
  auto whoami =
      api.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
               {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}});
  REQUIRE(whoami.status == 201);
  CHECK(whoami.body["status"]["userInfo"]["username"] == "admin");
  CHECK(whoami.body["status"]["userInfo"]["groups"] ==
        json{"system:masters", "system:authenticated"});

  json ssar = {{"apiVersion", "authorization.k8s.io/v1"},
               {"kind", "SelfSubjectAccessReview"},
               {"spec",
                {{"resourceAttributes",
                  {{"verb", "create"}, {"resource", "pods"}, {"namespace", "default"}}}}}};
  auto can = api.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar);
  REQUIRE(can.status == 201);
  CHECK(can.body["status"]["allowed"] == true);
  CHECK(can.body["spec"] == ssar["spec"]);

  auto token = api.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                        {{"spec", {{"token", "t0ken"}}}});
  REQUIRE(token.status == 201);
  CHECK(token.body["status"]["authenticated"] == true);
  CHECK(token.body["status"]["user"]["username"] == "admin");
}

TEST_CASE("lists and watches honour label and field selectors", "[apiserver][resources]") {
  Api api;
  for (const char* name : {"a", "b", "c", "d"}) {
    json body = configmap(name);
    body["metadata"]["labels"] = {{"tier", std::string(name) < "c" ? "web" : "db"}};
    REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", body).status == 201);
  }
  auto names = [](const json& list) {
    std::vector<std::string> out;
    for (const auto& item : list["items"]) {
      out.push_back(item["metadata"]["name"]);
    }
    return out;
  };
  auto web = api.call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dweb");
  REQUIRE(web.status == 200);
  CHECK(names(web.body) == std::vector<std::string>{"a", "b"});
  auto notweb =
      api.call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=tier+notin+(web)");
  CHECK(names(notweb.body) == std::vector<std::string>{"c", "d"});
  auto one = api.call("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Dc");
  CHECK(names(one.body) == std::vector<std::string>{"c"});

  SECTION("paging counts matching objects only") {
    auto page =
        api.call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Ddb&limit=1");
    CHECK(names(page.body) == std::vector<std::string>{"c"});
    std::string token = page.body["metadata"]["continue"];
    CHECK_FALSE(page.body["metadata"].contains("remainingItemCount"));
    auto next = api.call("GET",
                         "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Ddb"
                         "&limit=1&continue=" +
                             token);
    CHECK(names(next.body) == std::vector<std::string>{"d"});
  }
  SECTION("a bad selector is a 400 with the parser's text") {
    auto bad = api.call("GET", "/api/v1/configmaps?labelSelector=tier%3D%3D%3Dweb");
    CHECK(bad.status == 400);
    CHECK(bad.body["reason"] == "BadRequest");
    auto field = api.call("GET", "/api/v1/configmaps?fieldSelector=spec.nope%3Dx");
    CHECK(field.status == 400);
  }
  SECTION("a watch sees an object leave and enter the selection") {
    auto stream =
        api.watch("/api/v1/namespaces/default/configmaps?watch=1&labelSelector=tier%3Dweb");
    EventReader events(*stream);
    CHECK(events.next()["object"]["metadata"]["name"] == "a");
    CHECK(events.next()["object"]["metadata"]["name"] == "b");
    auto b = api.call("GET", "/api/v1/namespaces/default/configmaps/b").body;
    b["metadata"]["labels"]["tier"] = "db";
    REQUIRE(api.call("PUT", "/api/v1/namespaces/default/configmaps/b", b).status == 200);
    auto left = events.next();
    CHECK(left["type"] == "DELETED");
    CHECK(left["object"]["metadata"]["name"] == "b");
    auto c = api.call("GET", "/api/v1/namespaces/default/configmaps/c").body;
    c["metadata"]["labels"]["tier"] = "web";
    REQUIRE(api.call("PUT", "/api/v1/namespaces/default/configmaps/c", c).status == 200);
    auto entered = events.next();
    CHECK(entered["type"] == "ADDED");
    CHECK(entered["object"]["metadata"]["name"] == "c");
  }
}

TEST_CASE("PATCH in the four content types", "[apiserver][patch]") {
  Api api;
  const std::string cm = "/api/v1/namespaces/default/configmaps/p";
  REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("p")).status == 201);

  auto merged = api.patch(cm, "application/merge-patch+json", R"({"data":{"k":null,"m":"1"}})");
  REQUIRE(merged.status == 200);
  CHECK(merged.body["data"] == json{{"m", "1"}});

  auto jsonpatch = api.patch(cm, "application/json-patch+json",
                             R"([{"op":"add","path":"/data/n","value":"2"}])");
  REQUIRE(jsonpatch.status == 200);
  CHECK(jsonpatch.body["data"]["n"] == "2");
  auto failed = api.patch(cm, "application/json-patch+json",
                          R"([{"op":"test","path":"/data/n","value":"3"}])");
  CHECK(failed.status == 422);
  CHECK(failed.body["reason"] == "Invalid");

  auto strategic = api.patch(cm, "application/strategic-merge-patch+json",
                             R"({"metadata":{"labels":{"a":"b"}}})");
  REQUIRE(strategic.status == 200);
  CHECK(strategic.body["metadata"]["labels"]["a"] == "b");

  CHECK(api.patch(cm, "text/plain", "x").status == 415);
  CHECK(
      api.patch("/api/v1/namespaces/default/configmaps/none", "application/merge-patch+json", "{}")
          .status == 404);

  // Every write records its manager; apply conflicts with the patcher's fields until forced.
  auto applied =
      api.patch(cm + "?fieldManager=tool", "application/apply-patch+yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  m: x\n");
  CHECK(applied.status == 409);
  CHECK(applied.body["reason"] == "Conflict");
  CHECK(applied.body["details"]["causes"][0]["field"] == ".data.m");
  auto forced = api.patch(cm + "?fieldManager=tool&force=true", "application/apply-patch+yaml",
                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  m: x\n");
  REQUIRE(forced.status == 200);
  CHECK(forced.body["data"]["m"] == "x");
  bool tool_applies = false;
  for (const auto& entry : forced.body["metadata"]["managedFields"]) {
    tool_applies = tool_applies || (entry["manager"] == "tool" && entry["operation"] == "Apply");
  }
  CHECK(tool_applies);
  CHECK(api.patch(cm, "application/apply-patch+yaml", "kind: ConfigMap\n").status == 422);

  // Apply creates what does not exist.
  auto created = api.patch("/api/v1/namespaces/default/configmaps/fresh?fieldManager=tool",
                           "application/apply-patch+yaml",
                           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fresh\n");
  CHECK(created.status == 201);
}

TEST_CASE("dryRun=All runs a write without keeping it", "[apiserver][patch]") {
  Api api;
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  auto created = api.call("POST", cms + "?dryRun=All", configmap("ghost"));
  REQUIRE(created.status == 201);
  CHECK_FALSE(created.body["metadata"]["uid"].get<std::string>().empty());
  CHECK(api.call("GET", cms + "/ghost").status == 404);
  CHECK(api.call("POST", cms + "?dryRun=Some", configmap("ghost")).status == 422);

  REQUIRE(api.call("POST", cms, configmap("real")).status == 201);
  auto patched = api.patch(cms + "/real?dryRun=All", "application/merge-patch+json",
                           R"({"data":{"k":"other"}})");
  REQUIRE(patched.status == 200);
  CHECK(patched.body["data"]["k"] == "other");
  CHECK(api.call("GET", cms + "/real").body["data"]["k"] == "v");
  CHECK(api.call("DELETE", cms + "/real?dryRun=All").status == 200);
  CHECK(api.call("GET", cms + "/real").status == 200);
}

TEST_CASE("the scale subresource reads and writes replicas", "[apiserver][patch]") {
  Api api;
  json deployment = apiserver::testing::deployment("web", 2);
  REQUIRE(api.call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment).status ==
          201);
  const std::string scale = "/apis/apps/v1/namespaces/default/deployments/web/scale";
  auto got = api.call("GET", scale);
  REQUIRE(got.status == 200);
  CHECK(got.body["kind"] == "Scale");
  CHECK(got.body["apiVersion"] == "autoscaling/v1");
  CHECK(got.body["spec"]["replicas"] == 2);
  CHECK(got.body["status"]["selector"] == "app=web");
  auto patched = api.patch(scale, "application/merge-patch+json", R"({"spec":{"replicas":5}})");
  REQUIRE(patched.status == 200);
  CHECK(patched.body["spec"]["replicas"] == 5);
  json put = got.body;
  put["spec"]["replicas"] = 7;
  CHECK(api.call("PUT", scale, put).status == 409);  // its resourceVersion is stale now
  put["metadata"].erase("resourceVersion");
  CHECK(api.call("PUT", scale, put).body["spec"]["replicas"] == 7);
  CHECK(api.call("GET", "/apis/apps/v1/namespaces/default/deployments/web")
            .body["spec"]["replicas"] == 7);
}

TEST_CASE("server-side apply on the scale subresource moves ownership of replicas",
          "[apiserver][patch]") {
  Api api;
  const std::string deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx
)";
  const std::string path = "/apis/apps/v1/namespaces/default/deployments/web";
  REQUIRE(api.patch(path + "?fieldManager=owner", "application/apply-patch+yaml", deployment)
              .status == 201);
  const std::string scale = path + "/scale";
  const std::string applied = R"({"apiVersion":"autoscaling/v1","kind":"Scale",)"
                              R"("metadata":{"name":"web"},"spec":{"replicas":4}})";

  // The Deployment's applier owns spec.replicas: another manager conflicts...
  auto conflict =
      api.patch(scale + "?fieldManager=scaler", "application/apply-patch+yaml", applied);
  REQUIRE(conflict.status == 409);
  CHECK(conflict.body["reason"] == "Conflict");
  CHECK(conflict.body["message"].get<std::string>().find(
            "conflict with \"owner\"") != std::string::npos);
  CHECK(conflict.body["message"].get<std::string>().find(".spec.replicas") != std::string::npos);

  // ...until it forces: then it owns replicas (through /scale) and the applier no longer does.
  auto forced = api.patch(scale + "?fieldManager=scaler&force=true",
                          "application/apply-patch+yaml", applied);
  REQUIRE(forced.status == 200);
  CHECK(forced.body["kind"] == "Scale");
  CHECK(forced.body["spec"]["replicas"] == 4);
  auto parent = api.call("GET", path).body;
  CHECK(parent["spec"]["replicas"] == 4);
  bool scaler = false;
  for (const auto& entry : parent["metadata"]["managedFields"]) {
    if (entry["manager"] == "scaler") {
      scaler = true;
      CHECK(entry["operation"] == "Apply");
      CHECK(entry["subresource"] == "scale");
      CHECK(entry["apiVersion"] == "apps/v1");
      CHECK(entry["fieldsV1"] == json::parse(R"({"f:spec":{"f:replicas":{}}})"));
    } else if (entry["manager"] == "owner") {
      CHECK_FALSE(entry["fieldsV1"]["f:spec"].contains("f:replicas"));
      CHECK(entry["fieldsV1"]["f:spec"].contains("f:template"));
    }
  }
  CHECK(scaler);

  // The scaler applies again without conflict; the owner re-applying its replicas now conflicts.
  CHECK(api.patch(scale + "?fieldManager=scaler", "application/apply-patch+yaml",
                  R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},)"
                  R"("spec":{"replicas":6}})")
            .status == 200);
  CHECK(api.call("GET", path).body["spec"]["replicas"] == 6);
  CHECK(api.patch(path + "?fieldManager=owner", "application/apply-patch+yaml", deployment)
            .status == 409);
}

TEST_CASE("applying the same configuration again is a no-op", "[apiserver][patch]") {
  common::FakeClock clock;
  Api api(&clock);
  const std::string path = "/api/v1/namespaces/default/configmaps/same?fieldManager=me";
  const std::string config =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"same"},"data":{"a":"b"}})";
  auto first = api.patch(path, "application/apply-patch+yaml", config);
  REQUIRE(first.status == 201);
  clock.advance(std::chrono::seconds(2));  // a later managedFields time
  auto again = api.patch(path, "application/apply-patch+yaml", config);
  REQUIRE(again.status == 200);
  INFO(first.body.dump() << "\n" << again.body.dump());
  CHECK(again.body["metadata"]["resourceVersion"] == first.body["metadata"]["resourceVersion"]);
  CHECK(again.body["metadata"]["managedFields"] == first.body["metadata"]["managedFields"]);
  // A PUT of the object as it is changes nothing either.
  auto put = api.call("PUT", "/api/v1/namespaces/default/configmaps/same", again.body);
  REQUIRE(put.status == 200);
  CHECK(put.body["metadata"]["resourceVersion"] == first.body["metadata"]["resourceVersion"]);
}

TEST_CASE("server-side apply rejects fields the schema does not declare", "[apiserver][patch]") {
  Api api;
  auto rejected = api.patch(
      "/api/v1/namespaces/default/configmaps/odd?fieldManager=me&fieldValidation=Ignore",
      "application/apply-patch+yaml",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"odd"},"spec":{"x":1}})");
  CHECK(rejected.status == 500);
  CHECK_FALSE(rejected.body.contains("reason"));
  CHECK(rejected.body["message"] ==
        "failed to create typed patch object (/odd; /v1, Kind=ConfigMap): .spec: field not "
        "declared in schema");
  CHECK(api.call("GET", "/api/v1/namespaces/default/configmaps/odd").status == 404);
}

TEST_CASE("values of the wrong type are rejected by every write and nothing is stored",
          "[apiserver][resources]") {
  Api api;
  const std::string type_error =
      "json: cannot unmarshal array into Go struct field ConfigMap.data of type string";
  json bad = configmap("typed");
  bad["data"]["a"] = {1, 2};
  SECTION("create and update, whatever fieldValidation says") {
    auto created =
        api.call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore", bad);
    CHECK(created.status == 400);
    CHECK(created.body["reason"] == "BadRequest");
    CHECK(created.body["message"] ==
          "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: " + type_error);
    CHECK(api.call("GET", "/api/v1/namespaces/default/configmaps/typed").status == 404);
    REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("typed")).status ==
            201);
    auto updated = api.call("PUT", "/api/v1/namespaces/default/configmaps/typed", bad);
    CHECK(updated.status == 400);
    CHECK(updated.body["message"] ==
          "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: " + type_error);
  }
  SECTION("patches: an invalid patch with the patched object, or the strategic patch itself") {
    REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", configmap("typed")).status ==
            201);
    auto merged = api.patch("/api/v1/namespaces/default/configmaps/typed",
                            "application/merge-patch+json", R"({"data":{"a":[1]}})");
    CHECK(merged.status == 422);
    CHECK(merged.body["reason"] == "Invalid");
    const std::string message = merged.body["message"];
    CHECK(message.rfind(R"("" is invalid: patch: Invalid value: "{)", 0) == 0);
    CHECK(message.size() > type_error.size());
    CHECK(message.substr(message.size() - type_error.size() - 3) == "\": " + type_error);
    CHECK(merged.body["details"]["causes"][0]["field"] == "patch");
    auto strategic = api.patch("/api/v1/namespaces/default/configmaps/typed",
                               "application/strategic-merge-patch+json", R"({"data":{"a":[1]}})");
    CHECK(strategic.status == 422);
    CHECK(strategic.body["message"] ==
          R"("" is invalid: patch: Invalid value: "map[data:map[a:[1]]]": )" + type_error);
    CHECK(api.call("GET", "/api/v1/namespaces/default/configmaps/typed").body["data"] ==
          json{{"k", "v"}});
  }
  SECTION("server-side apply: the typed converter's text, then the Go type's own decoder") {
    auto applied = api.patch("/api/v1/namespaces/default/configmaps/typed?fieldManager=me",
                             "application/apply-patch+yaml",
                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\n"
                             "  namespace: default\ndata:\n  a: [1, 2]\n");
    CHECK(applied.status == 500);
    CHECK(applied.body["message"] ==
          "failed to create typed patch object (default/typed; /v1, Kind=ConfigMap): .data.a: "
          "expected string, got &value.valueUnstructured{Value:[]interface {}{1, 2}}");
    auto secret = api.patch("/api/v1/namespaces/default/secrets/s?fieldManager=me",
                            "application/apply-patch+yaml",
                            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
                            "data:\n  key: not base64!\n");
    CHECK(secret.status == 500);
    CHECK(secret.body["message"] ==
          "failed to convert new object (/s; /v1, Kind=Secret) to proper version: illegal "
          "base64 data at input byte 3");
    CHECK(api.call("GET", "/api/v1/namespaces/default/secrets/s").status == 404);
  }
}

TEST_CASE("paging with a selector over more objects than one read returns each object once",
          "[apiserver][resources]") {
  Api api;
  constexpr int kObjects = 700;  // several internal reads of 256 keys
  for (int i = 0; i < kObjects; ++i) {
    json body = configmap("cm-" + std::to_string(1000 + i));
    body["metadata"]["labels"] = {{"shard", i % 2 == 0 ? "even" : "odd"}};
    REQUIRE(api.call("POST", "/api/v1/namespaces/default/configmaps", body).status == 201);
  }
  std::vector<std::string> seen;
  std::string token;
  do {
    std::string target = "/api/v1/configmaps?labelSelector=shard&limit=500";
    if (!token.empty()) {
      target += "&continue=" + token;
    }
    auto page = api.call("GET", target);
    REQUIRE(page.status == 200);
    for (const auto& item : page.body["items"]) {
      seen.push_back(item["metadata"]["name"]);
    }
    token = page.body["metadata"].value("continue", "");
  } while (!token.empty());
  CHECK(seen.size() == kObjects);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
}
