#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "apiserver/apiserver.h"
#include "store/store.h"
#include "test_request.h"
#include "watch_events.h"

using nlohmann::json;

namespace {

// An API server over a store, driven through ApiServer::handle with an admin bearer token.
class Api {
 public:
  explicit Api(store::Store& db, const std::filesystem::path& snapshots = {}) {
    apiserver::ApiServerConfig config;
    config.tokens["t0ken"] = {"admin", {"system:masters"}};
    config.snapshots_dir = snapshots;
    api_ = std::make_unique<apiserver::ApiServer>(db, config);
    api_->bootstrap();
    api_->set_ready(true);
  }

  struct Reply {
    int status;
    json body;
    std::string etag;
  };

  Reply call(const std::string& method, const std::string& target, const json& body = nullptr,
             const std::string& type = "application/json", const std::string& accept = "") {
    auto request = apiserver::testing::make_request(method, target, body, "t0ken", type);
    if (!accept.empty()) {
      request.headers["Accept"] = accept;
    }
    auto response = api_->handle(request);
    std::string etag;
    for (const auto& [name, value] : response.headers) {
      if (name == "ETag") {
        etag = value;
      }
    }
    return {response.status, json::parse(response.body, nullptr, false), etag};
  }

  // Waits (bounded) until the controllers are done with what the last requests started, and
  // with what they scheduled within `within` (a CRD held by finalizers is looked at every 1 s).
  void settle(std::chrono::milliseconds within = std::chrono::seconds(5)) {
    REQUIRE(api_->wait_controllers_idle(within, std::chrono::seconds(20)));
  }

  // The answer to a request as the server gives it (a watch's stream in it).
  apiserver::http::Response raw(const std::string& target) {
    auto request = apiserver::testing::make_request("GET", target, nullptr, "t0ken");
    return api_->handle(request);
  }

  // Once the controllers settled, GET `target` answers `status`.
  void await_status(const std::string& target, int status) {
    settle();
    REQUIRE(call("GET", target).status == status);
  }

  // Once the controllers settled, the CRD's Established condition has status `value`.
  void await_established(const std::string& crd, const std::string& value = "True") {
    settle();
    auto got = call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crd);
    std::string established;
    for (const auto& c : got.body.value("/status/conditions"_json_pointer, json::array())) {
      if (c.value("type", "") == "Established") {
        established = c.value("status", "");
      }
    }
    REQUIRE(established == value);
  }

 private:
  std::unique_ptr<apiserver::ApiServer> api_;
};

std::unique_ptr<store::Store> open_store(const std::string& dir = "") {
  store::Options options;
  if (dir.empty()) {
    options.durability = store::Durability::Ephemeral;
  } else {
    options.dir = dir;
  }
  auto opened = store::Store::open(options);
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

json crd(const std::string& plural = "widgets", const std::string& kind = "Widget") {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", plural + ".example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"scope", "Namespaced"},
            {"names", {{"plural", plural}, {"kind", kind}, {"shortNames", {"wd"}}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"subresources", {{"status", json::object()}}},
               {"schema",
                {{"openAPIV3Schema",
                  {{"type", "object"},
                   {"properties",
                    {{"spec",
                      {{"type", "object"},
                       {"properties",
                        {{"size", {{"type", "integer"}, {"maximum", 5}, {"default", 1}}},
                         {"color", {{"type", "string"}}}}}}},
                     {"status",
                      {{"type", "object"},
                       {"properties", {{"ready", {{"type", "boolean"}}}}}}}}}}}}}}}}}}};
}

json widget(const std::string& name, const json& spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

json condition(const json& object, const std::string& type) {
  for (const auto& c : object["status"]["conditions"]) {
    if (c["type"] == type) {
      return c;
    }
  }
  return nullptr;
}

const char* const kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const char* const kWidgets = "/apis/example.com/v1/namespaces/default/widgets";

// Creates the widgets CRD (crd()) and waits until its kind is served.
void serve_widgets(Api& api) {
  REQUIRE(api.call("POST", kCrds, crd()).status == 201);
  api.await_established("widgets.example.com");
}

}  // namespace

TEST_CASE("a CRD is accepted, established and served", "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  auto created = api.call("POST", kCrds, crd());
  REQUIRE(created.status == 201);
  CHECK(created.body["spec"]["names"]["singular"] == "widget");
  CHECK(created.body["spec"]["names"]["listKind"] == "WidgetList");
  api.await_established("widgets.example.com");
  auto got = api.call("GET", std::string(kCrds) + "/widgets.example.com");
  REQUIRE(got.status == 200);
  json accepted = condition(got.body, "NamesAccepted");
  CHECK(accepted["status"] == "True");
  CHECK(accepted["reason"] == "NoConflicts");
  CHECK(accepted["message"] == "no conflicts found");
  json established = condition(got.body, "Established");
  CHECK(established["status"] == "True");
  CHECK(established["reason"] == "InitialNamesAccepted");
  CHECK(established["message"] == "the initial names have been accepted");
  CHECK(got.body["status"]["acceptedNames"]["shortNames"] == json{"wd"});
  CHECK(got.body["status"]["storedVersions"] == json{"v1"});

  auto discovery = api.call("GET", "/apis/example.com/v1");
  REQUIRE(discovery.status == 200);
  CHECK(discovery.body["resources"][0]["name"] == "widgets");

  SECTION("objects are pruned, defaulted and validated by the schema") {
    auto made = api.call("POST", std::string(kWidgets) + "?fieldValidation=Strict",
                         widget("a", {{"color", "red"}}));
    REQUIRE(made.status == 201);
    CHECK(made.body["spec"] == json{{"color", "red"}, {"size", 1}});
    CHECK(made.body["metadata"]["generation"] == 1);
    auto strict = api.call("POST", std::string(kWidgets) + "?fieldValidation=Strict",
                           widget("b", {{"shape", "round"}}));
    CHECK(strict.status == 400);
    CHECK(strict.body["message"] ==
          "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: "
          "unknown field \"spec.shape\"");
    auto pruned = api.call("POST", kWidgets, widget("b", {{"shape", "round"}}));
    CHECK(pruned.status == 201);
    CHECK(pruned.body["spec"] == json{{"size", 1}});
    auto invalid = api.call("POST", kWidgets, widget("c", {{"size", 9}}));
    CHECK(invalid.status == 422);
    CHECK(invalid.body["message"] ==
          "Widget.example.com \"c\" is invalid: spec.size: Invalid value: 9: spec.size in body "
          "should be less than or equal to 5");
    auto smp = api.call("PATCH", std::string(kWidgets) + "/a", json{{"spec", {{"size", 2}}}},
                        "application/strategic-merge-patch+json");
    CHECK(smp.status == 415);
  }

  SECTION("generation counts changes outside metadata; status goes through /status only") {
    auto made = api.call("POST", kWidgets, widget("a", {{"color", "red"}}));
    REQUIRE(made.status == 201);
    auto labelled =
        api.call("PATCH", std::string(kWidgets) + "/a",
                 json{{"metadata", {{"labels", {{"x", "y"}}}}}}, "application/merge-patch+json");
    CHECK(labelled.body["metadata"]["generation"] == 1);
    auto status_ignored =
        api.call("PATCH", std::string(kWidgets) + "/a", json{{"status", {{"ready", true}}}},
                 "application/merge-patch+json");
    CHECK_FALSE(status_ignored.body.contains("status"));
    CHECK(status_ignored.body["metadata"]["generation"] == 1);
    auto status = api.call("PATCH", std::string(kWidgets) + "/a/status",
                           json{{"status", {{"ready", true}}}}, "application/merge-patch+json");
    CHECK(status.body["status"]["ready"] == true);
    CHECK(status.body["metadata"]["generation"] == 1);
    auto recolored = api.call("PATCH", std::string(kWidgets) + "/a",
                              json{{"spec", {{"color", "blue"}}}}, "application/merge-patch+json");
    CHECK(recolored.body["metadata"]["generation"] == 2);
    CHECK(recolored.body["status"]["ready"] == true);
  }

  SECTION("deleting the CRD deletes its objects, then the CRD, and the kind goes") {
    REQUIRE(api.call("POST", kWidgets, widget("a", json::object())).status == 201);
    REQUIRE(api.call("POST", kWidgets, widget("b", json::object())).status == 201);
    // The CRD registry makes the first delete itself: no propagation policy applies to it.
    auto deleted =
        api.call("DELETE", std::string(kCrds) + "/widgets.example.com?propagationPolicy=Orphan");
    REQUIRE(deleted.status == 200);
    CHECK(deleted.body["metadata"]["finalizers"] ==
          json{"customresourcecleanup.apiextensions.k8s.io"});
    CHECK(deleted.body["metadata"]["generation"] == 1);
    CHECK(condition(deleted.body, "Terminating")["reason"] == "InstanceDeletionPending");
    api.await_status(std::string(kCrds) + "/widgets.example.com", 404);
    api.settle();
    CHECK(api.call("GET", kWidgets).status == 404);
    CHECK(api.call("GET", "/apis/example.com/v1").status == 404);
    // Created again, it starts empty.
    REQUIRE(api.call("POST", kCrds, crd()).status == 201);
    api.await_established("widgets.example.com");
    auto list = api.call("GET", kWidgets);
    REQUIRE(list.status == 200);
    CHECK(list.body["items"].empty());
  }
}

TEST_CASE("a CRD whose names another CRD of its group holds is not served", "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  serve_widgets(api);
  REQUIRE(api.call("POST", kCrds, crd("gadgets", "Widget")).status == 201);
  api.await_established("gadgets.example.com", "False");
  auto got = api.call("GET", std::string(kCrds) + "/gadgets.example.com");
  json accepted = condition(got.body, "NamesAccepted");
  CHECK(accepted["status"] == "False");
  CHECK(accepted["reason"] == "NameConflict");
  CHECK(accepted["message"] == "\"widget\" is already in use");
  json established = condition(got.body, "Established");
  CHECK(established["status"] == "False");
  CHECK(established["reason"] == "NotAccepted");
  CHECK(api.call("GET", "/apis/example.com/v1/namespaces/default/gadgets").status == 404);
}

TEST_CASE("CRD create validation answers 422 with upstream's text", "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  json bad = crd();
  bad["metadata"]["name"] = "things.example.com";
  auto reply = api.call("POST", kCrds, bad);
  CHECK(reply.status == 422);
  CHECK(reply.body["message"] ==
        "CustomResourceDefinition.apiextensions.k8s.io \"things.example.com\" is invalid: "
        "metadata.name: Invalid value: \"things.example.com\": must be "
        "spec.names.plural+\".\"+spec.group");
}

TEST_CASE("stored CRDs are served again after a restart, before readiness", "[crd][controller]") {
  char dir_template[] = "/tmp/ks-crd-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  std::string dir = dir_template;
  {
    auto db = open_store(dir);
    Api api(*db);
    REQUIRE(api.call("POST", kCrds, crd()).status == 201);
    api.await_established("widgets.example.com");
    REQUIRE(api.call("POST", kWidgets, widget("kept", json::object())).status == 201);
  }
  {
    auto db = open_store(dir);
    Api api(*db);  // bootstrap() returns once the rows are back
    auto got = api.call("GET", std::string(kWidgets) + "/kept");
    CHECK(got.status == 200);
    CHECK(got.body["spec"]["size"] == 1);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a CRD waits for custom resources held by finalizers, refusing new ones meanwhile",
          "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  serve_widgets(api);
  json held = widget("held", json::object());
  held["metadata"]["finalizers"] = {"example.com/hold"};
  auto created = api.call("POST", kWidgets, held);
  REQUIRE(created.status == 201);
  // The controller marks the held object and waits, looking again every second: its queue is
  // never idle for long, so the mark is awaited on a watch of the object.
  const std::string rv = created.body["metadata"]["resourceVersion"];
  auto watch = api.raw(std::string(kWidgets) + "?watch=true&resourceVersion=" + rv);
  REQUIRE(watch.status == 200);
  REQUIRE(watch.stream);
  apiserver::testing::EventReader events(*watch.stream);
  REQUIRE(api.call("DELETE", std::string(kCrds) + "/widgets.example.com").status == 200);
  json marked = events.next(std::chrono::seconds(20));
  CHECK(marked["type"] == "MODIFIED");
  REQUIRE(marked["object"]["metadata"].contains("deletionTimestamp"));
  // The CRD stays, Terminating.
  REQUIRE(api.call("GET", std::string(kWidgets) + "/held")
              .body["metadata"]
              .contains("deletionTimestamp"));
  auto crd_now = api.call("GET", std::string(kCrds) + "/widgets.example.com");
  REQUIRE(crd_now.status == 200);
  json terminating = condition(crd_now.body, "Terminating");
  CHECK(terminating["status"] == "True");
  CHECK(terminating["reason"] == "InstanceDeletionInProgress");
  CHECK(terminating["message"] == "CustomResource deletion is in progress");
  auto refused = api.call("POST", kWidgets, widget("late", json::object()));
  CHECK(refused.status == 405);
  CHECK(refused.body["reason"] == "MethodNotAllowed");
  CHECK(refused.body["message"] ==
        "create not allowed while custom resource definition is terminating");
  // Releasing the object lets the CRD go.
  REQUIRE(api.call("PATCH", std::string(kWidgets) + "/held",
                   json{{"metadata", {{"finalizers", nullptr}}}}, "application/merge-patch+json")
              .status == 200);
  api.await_status(std::string(kCrds) + "/widgets.example.com", 404);
  api.await_status("/apis/example.com/v1", 404);
}

TEST_CASE("a custom resource's scale subresource reads and writes the CRD's paths",
          "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  json definition = crd();
  json& version = definition["spec"]["versions"][0];
  version["subresources"]["scale"] = {{"specReplicasPath", ".spec.size"},
                                      {"statusReplicasPath", ".status.count"},
                                      {"labelSelectorPath", ".status.selector"}};
  version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["count"] = {
      {"type", "integer"}};
  version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["selector"] = {
      {"type", "string"}};
  REQUIRE(api.call("POST", kCrds, definition).status == 201);
  api.await_established("widgets.example.com");
  REQUIRE(api.call("POST", kWidgets, widget("w", {{"size", 2}})).status == 201);
  REQUIRE(api.call("PATCH", std::string(kWidgets) + "/w/status",
                   json{{"status", {{"count", 2}, {"selector", "app=w"}}}},
                   "application/merge-patch+json")
              .status == 200);
  auto scale = api.call("GET", std::string(kWidgets) + "/w/scale");
  REQUIRE(scale.status == 200);
  CHECK(scale.body["kind"] == "Scale");
  CHECK(scale.body["spec"] == json{{"replicas", 2}});
  CHECK(scale.body["status"] == json{{"replicas", 2}, {"selector", "app=w"}});
  auto scaled = api.call("PATCH", std::string(kWidgets) + "/w/scale",
                         json{{"spec", {{"replicas", 4}}}}, "application/merge-patch+json");
  REQUIRE(scaled.status == 200);
  CHECK(scaled.body["spec"]["replicas"] == 4);
  auto got = api.call("GET", std::string(kWidgets) + "/w");
  CHECK(got.body["spec"]["size"] == 4);
  CHECK(got.body["metadata"]["generation"] == 2);
}

TEST_CASE("discovery and OpenAPI follow CRDs", "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  const std::string aggregated =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  auto before = api.call("GET", "/apis", nullptr, "application/json", aggregated);
  REQUIRE(before.status == 200);
  REQUIRE_FALSE(before.etag.empty());
  serve_widgets(api);
  auto after = api.call("GET", "/apis", nullptr, "application/json", aggregated);
  REQUIRE(after.status == 200);
  CHECK(after.etag != before.etag);
  json group;
  for (const auto& g : after.body["items"]) {
    if (g["metadata"]["name"] == "example.com") {
      group = g;
    }
  }
  REQUIRE(group.is_object());
  const json& resource = group["versions"][0]["resources"][0];
  CHECK(resource["resource"] == "widgets");
  CHECK(resource["shortNames"] == json{"wd"});
  CHECK(resource["responseKind"]["kind"] == "Widget");

  auto openapi = api.call("GET", "/openapi/v3/apis/example.com/v1");
  REQUIRE(openapi.status == 200);
  const json& schema = openapi.body["components"]["schemas"]["com.example.v1.Widget"];
  CHECK(schema["properties"]["spec"]["properties"]["size"]["maximum"] == 5);
  CHECK(schema["properties"]["metadata"].dump().find("ObjectMeta") != std::string::npos);
  CHECK(schema["x-kubernetes-group-version-kind"][0]["kind"] == "Widget");
}

TEST_CASE("unknown metadata fields of a custom resource are unknown fields too",
          "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  serve_widgets(api);
  json body = widget("m", {{"colour", "red"}});
  body["metadata"]["nmae"] = "typo";
  auto strict = api.call("POST", std::string(kWidgets) + "?fieldValidation=Strict", body);
  CHECK(strict.status == 400);
  CHECK(strict.body["message"] ==
        "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown "
        "field \"metadata.nmae\", unknown field \"spec.colour\"");
  auto ignored = api.call("POST", std::string(kWidgets) + "?fieldValidation=Ignore", body);
  REQUIRE(ignored.status == 201);
  CHECK_FALSE(ignored.body["metadata"].contains("nmae"));
}

TEST_CASE("a custom resource body of another kind is refused by validation, naming that kind",
          "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  serve_widgets(api);
  const std::string message =
      "Gadget.example.com \"w\" is invalid: kind: Invalid value: \"Gadget\": must be Widget";
  auto check_refused = [&](const Api::Reply& reply) {
    CHECK(reply.status == 422);
    CHECK(reply.body["reason"] == "Invalid");
    CHECK(reply.body["message"] == message);
    CHECK(reply.body["details"]["kind"] == "Gadget");
    CHECK(reply.body["details"]["group"] == "example.com");
    CHECK(reply.body["details"]["causes"] ==
          json::array({{{"reason", "FieldValueInvalid"},
                        {"message", "Invalid value: \"Gadget\": must be Widget"},
                        {"field", "kind"}}}));
  };
  json gadget = widget("w", {{"size", 2}, {"colour", "red"}});
  gadget["kind"] = "Gadget";
  // Not pruned as a Widget, so Strict has no unknown field to report: validation answers.
  check_refused(api.call("POST", std::string(kWidgets) + "?fieldValidation=Strict", gadget));
  CHECK(api.call("GET", std::string(kWidgets) + "/w").status == 404);

  auto created = api.call("POST", kWidgets, widget("w", {{"size", 2}}));
  REQUIRE(created.status == 201);
  gadget["metadata"]["resourceVersion"] = created.body["metadata"]["resourceVersion"];
  check_refused(api.call("PUT", std::string(kWidgets) + "/w", gadget));
  check_refused(api.call("PATCH", std::string(kWidgets) + "/w", json{{"kind", "Gadget"}},
                         "application/merge-patch+json"));
  check_refused(api.call("PATCH", std::string(kWidgets) + "/w",
                         json::array({{{"op", "replace"}, {"path", "/kind"}, {"value", "Gadget"}}}),
                         "application/json-patch+json"));
  auto kept = api.call("GET", std::string(kWidgets) + "/w");
  CHECK(kept.body["kind"] == "Widget");
  CHECK(kept.body["metadata"]["resourceVersion"] == created.body["metadata"]["resourceVersion"]);
  // Another apiVersion is refused before validation, as for every kind.
  json other = widget("v", {});
  other["apiVersion"] = "example.com/v2";
  auto moved = api.call("POST", kWidgets, other);
  CHECK(moved.status == 400);
  CHECK(moved.body["message"] ==
        "the API version in the data (example.com/v2) does not match the expected API version "
        "(example.com/v1)");
}

TEST_CASE("a cluster-scoped CRD serves its kind without namespaces and cleans up on delete",
          "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  json definition = crd();
  definition["spec"]["scope"] = "Cluster";
  REQUIRE(api.call("POST", kCrds, definition).status == 201);
  api.await_established("widgets.example.com");
  const std::string widgets = "/apis/example.com/v1/widgets";
  auto made = api.call("POST", widgets, widget("global", json::object()));
  REQUIRE(made.status == 201);
  CHECK_FALSE(made.body["metadata"].contains("namespace"));
  CHECK(api.call("GET", kWidgets).status == 404);
  REQUIRE(api.call("DELETE", std::string(kCrds) + "/widgets.example.com").status == 200);
  api.await_status(std::string(kCrds) + "/widgets.example.com", 404);
  store::RangeRequest probe;
  probe.key = "/registry/example.com/widgets/";
  probe.range_end = "/registry/example.com/widgets0";
  probe.count_only = true;
  auto left = db->range(probe);
  REQUIRE(left.is_ok());
  CHECK(left->count == 0);
}

TEST_CASE("a version no longer served loses its row", "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  json definition = crd();
  json beta = definition["spec"]["versions"][0];
  beta["name"] = "v1beta1";
  beta["storage"] = false;
  definition["spec"]["versions"].push_back(beta);
  auto created = api.call("POST", kCrds, definition);
  REQUIRE(created.status == 201);
  api.await_established("widgets.example.com");
  api.await_status("/apis/example.com/v1beta1/widgets", 200);
  json updated = api.call("GET", std::string(kCrds) + "/widgets.example.com").body;
  updated["spec"]["versions"][1]["served"] = false;
  REQUIRE(api.call("PUT", std::string(kCrds) + "/widgets.example.com", updated).status == 200);
  api.await_status("/apis/example.com/v1beta1/widgets", 404);
  CHECK(api.call("GET", "/apis/example.com/v1/widgets").status == 200);
}

TEST_CASE("a default added to a CRD later shows when objects are read back", "[crd][controller]") {
  auto db = open_store();
  Api api(*db);
  serve_widgets(api);
  REQUIRE(api.call("POST", kWidgets, widget("old", {{"size", 2}})).status == 201);
  json updated = api.call("GET", std::string(kCrds) + "/widgets.example.com").body;
  updated["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
         ["color"]["default"] = "grey";
  REQUIRE(api.call("PUT", std::string(kCrds) + "/widgets.example.com", updated).status == 200);
  api.settle();
  CHECK(api.call("GET", std::string(kWidgets) + "/old")
            .body.value("/spec/color"_json_pointer, std::string()) == "grey");
  CHECK(api.call("GET", kWidgets).body["items"][0]["spec"]["color"] == "grey");
  auto labelled =
      api.call("PATCH", std::string(kWidgets) + "/old",
               json{{"metadata", {{"labels", {{"a", "b"}}}}}}, "application/merge-patch+json");
  CHECK(labelled.body["spec"]["color"] == "grey");
  CHECK(labelled.body["metadata"]["generation"] == 1);
}

TEST_CASE("a snapshot restore brings back the kinds of the CRDs it holds, and only those",
          "[crd][controller]") {
  char dir_template[] = "/tmp/ks-crd-snap-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::filesystem::path dir = dir_template;
  {
    auto db = open_store();
    Api api(*db, dir);
    REQUIRE(api.call("POST", "/admin/snapshots/empty").status / 100 == 2);
    REQUIRE(api.call("POST", kCrds, crd()).status == 201);
    api.await_established("widgets.example.com");
    REQUIRE(api.call("POST", kWidgets, widget("kept", json::object())).status == 201);
    REQUIRE(api.call("POST", "/admin/snapshots/with-crd").status / 100 == 2);
    REQUIRE(api.call("DELETE", std::string(kCrds) + "/widgets.example.com").status == 200);
    api.await_status(std::string(kCrds) + "/widgets.example.com", 404);
    api.await_status(kWidgets, 404);

    REQUIRE(api.call("POST", "/admin/snapshots/with-crd/restore").status == 200);
    api.await_status(std::string(kWidgets) + "/kept", 200);

    REQUIRE(api.call("POST", "/admin/snapshots/empty/restore").status == 200);
    api.await_status(kWidgets, 404);
  }
  std::filesystem::remove_all(dir);
}
