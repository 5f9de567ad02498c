// Adoption and release (workloads/controller_ref_manager) against a scripted API: which objects
// an owner claims, the strategic merge patches it sends, and when it sends none.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "fake_api.h"
#include "workloads/controller_ref_manager.h"

using cluster::ControllerRefManager;
using cluster::ObjectPtr;
using cluster::ResourceRef;
using cluster::testing::FakeApi;
using nlohmann::json;

namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kReplicaSets{"apps", "v1", "replicasets", true};
const std::string kOwnerPath = "/apis/apps/v1/namespaces/default/replicasets/web";
const char* kStrategic = "application/strategic-merge-patch+json";

json owner(bool deleting = false) {
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "r"}}},
             {"spec", {{"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
  if (deleting) {
    rs["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  }
  return rs;
}

json controller(const std::string& uid) {
  return {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"},
          {"name", "rs-" + uid},     {"uid", uid},
          {"controller", true},      {"blockOwnerDeletion", true}};
}

// A pod named `name` (uid u<name>) labelled app=`app`, controlled by `by` ("" for none).
ObjectPtr pod(const std::string& name, const std::string& app, const std::string& by = "",
              bool deleting = false) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", name},
              {"namespace", "default"},
              {"uid", "u" + name},
              {"labels", {{"app", app}}}}}};
  if (!by.empty()) {
    p["metadata"]["ownerReferences"] = json::array({controller(by)});
  }
  if (deleting) {
    p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  }
  return std::make_shared<const json>(std::move(p));
}

std::string pod_path(const std::string& name) {
  return "/api/v1/namespaces/default/pods/" + name;
}

std::vector<std::string> names(const std::vector<ObjectPtr>& objects) {
  std::vector<std::string> out;
  for (const ObjectPtr& o : objects) {
    out.push_back((*o)["metadata"]["name"].get<std::string>());
  }
  return out;
}

ControllerRefManager manager(const cluster::Client& client, const json& rs) {
  return ControllerRefManager(client, rs, kReplicaSets,
                              cluster::selector_matcher(rs["spec"]["selector"]));
}

}  // namespace

TEST_CASE("an owner claims its matching objects, adopts orphans and releases the rest",
          "[cluster][controllerref]") {
  FakeApi api;
  const json rs = owner();
  api.answer("GET", kOwnerPath, 200, rs);
  json adopted = *pod("b", "web");
  adopted["metadata"]["ownerReferences"] = json::array({controller("r")});
  api.answer("PATCH", pod_path("b"), 200, adopted);
  api.answer("PATCH", pod_path("e"), 200, *pod("e", "web", "r"));
  api.answer("PATCH", pod_path("c"), 200, *pod("c", "db"));
  const cluster::Client client = api.client();
  auto refs = manager(client, rs);
  const auto claimed = refs.claim(
      kPods, {pod("a", "web", "r"), pod("b", "web"), pod("c", "db", "r"), pod("d", "web", "x"),
              pod("e", "web"), pod("f", "web", "", true), pod("g", "db")});
  CHECK_FALSE(claimed.error.has_value());
  CHECK(names(claimed.objects) == std::vector<std::string>{"a", "b", "e"});
  CHECK(claimed.objects[1]->at("metadata").contains("ownerReferences"));  // the patched pod

  // One live look at the owner before the first adoption, none after.
  CHECK(api.calls("GET").size() == 1);
  const auto patches = api.calls("PATCH");
  REQUIRE(patches.size() == 3);
  CHECK(patches[0].path == pod_path("b"));
  CHECK(patches[0].content_type == kStrategic);
  CHECK(patches[0].body ==
        json{{"metadata",
              {{"ownerReferences", json::array({{{"apiVersion", "apps/v1"},
                                                 {"kind", "ReplicaSet"},
                                                 {"name", "web"},
                                                 {"uid", "r"},
                                                 {"controller", true},
                                                 {"blockOwnerDeletion", true}}})},
               {"uid", "ub"}}}});
  CHECK(patches[1].path == pod_path("c"));
  CHECK(patches[1].content_type == kStrategic);
  CHECK(patches[1].body ==
        json{{"metadata",
              {{"ownerReferences", json::array({{{"$patch", "delete"}, {"uid", "r"}}})},
               {"uid", "uc"}}}});
  CHECK(patches[2].path == pod_path("e"));
}

TEST_CASE("an owner being deleted adopts and releases nothing", "[cluster][controllerref]") {
  FakeApi api;
  const cluster::Client client = api.client();
  auto refs = manager(client, owner(true));
  const auto claimed =
      refs.claim(kPods, {pod("a", "web", "r"), pod("b", "web"), pod("c", "db", "r")});
  CHECK_FALSE(claimed.error.has_value());
  CHECK(names(claimed.objects) == std::vector<std::string>{"a"});
  CHECK(api.calls().empty());
}

TEST_CASE("adoption waits for a live look at the owner", "[cluster][controllerref]") {
  FakeApi api;
  const cluster::Client client = api.client();
  SECTION("the owner was replaced: another uid") {
    json fresh = owner();
    fresh["metadata"]["uid"] = "r2";
    api.answer("GET", kOwnerPath, 200, fresh);
    auto refs = manager(client, owner());
    const auto claimed = refs.claim(kPods, {pod("b", "web"), pod("e", "web")});
    CHECK(claimed.objects.empty());
    REQUIRE(claimed.error.has_value());
    CHECK(claimed.error->starts_with(
        "can't adopt Pod default/b (ub): can't recheck DeletionTimestamp: original ReplicaSet "
        "default/web is gone: got uid r2, wanted r"));
    CHECK(api.calls("GET").size() == 1);  // asked once for the whole claim
    CHECK(api.calls("PATCH").empty());
  }
  SECTION("the owner has just been deleted") {
    api.answer("GET", kOwnerPath, 200, owner(true));
    auto refs = manager(client, owner());
    const auto claimed = refs.claim(kPods, {pod("b", "web")});
    REQUIRE(claimed.error.has_value());
    CHECK(*claimed.error ==
          "can't adopt Pod default/b (ub): default/web has just been deleted at "
          "2026-01-01T00:00:00Z");
    CHECK(api.calls("PATCH").empty());
  }
  SECTION("the owner is gone") {
    auto refs = manager(client, owner());
    const auto claimed = refs.claim(kPods, {pod("b", "web")});
    REQUIRE(claimed.error.has_value());
    CHECK(claimed.error->find("can't recheck DeletionTimestamp: not found") != std::string::npos);
  }
}

TEST_CASE("a failed adoption or release is an error unless the object is gone or replaced",
          "[cluster][controllerref]") {
  FakeApi api;
  api.answer("GET", kOwnerPath, 200, owner());
  const cluster::Client client = api.client();
  auto refs = manager(client, owner());
  SECTION("adoption: not found is no error, a conflict is") {
    api.fail("PATCH", pod_path("b"), 404, "NotFound", "pods \"b\" not found");
    api.fail("PATCH", pod_path("e"), 409, "Conflict", "the object has been modified");
    const auto claimed = refs.claim(kPods, {pod("b", "web"), pod("e", "web")});
    CHECK(claimed.objects.empty());
    CHECK(claimed.error == std::optional<std::string>("the object has been modified"));
  }
  SECTION("release: not found and invalid are done, anything else is an error") {
    api.fail("PATCH", pod_path("c"), 404, "NotFound", "gone");
    api.fail("PATCH", pod_path("d"), 422, "Invalid", "metadata.uid: field is immutable");
    api.fail("PATCH", pod_path("e"), 500, "InternalError", "boom");
    const auto claimed =
        refs.claim(kPods, {pod("c", "db", "r"), pod("d", "db", "r"), pod("e", "db", "r")});
    CHECK(claimed.objects.empty());
    CHECK(claimed.error == std::optional<std::string>("releasing Pod default/e (ue): boom"));
  }
}

TEST_CASE("a change is looked at by the owners it concerns", "[cluster][controllerref]") {
  json other = owner();
  other["metadata"]["name"] = "db";
  other["spec"]["selector"] = {{"matchLabels", {{"app", "db"}}}};
  const std::vector<ObjectPtr> owners = {std::make_shared<const json>(owner()),
                                         std::make_shared<const json>(other)};
  const cluster::OwnerKind kind{
      "ReplicaSet",
      [&](const std::string& ns) { return ns == "default" ? owners : std::vector<ObjectPtr>{}; },
      cluster::spec_selector};
  auto keys = [&](const json* old, const ObjectPtr& object, bool deleted) {
    return cluster::owners_to_sync(old, *object, deleted, kind);
  };
  using Keys = std::vector<std::string>;
  CHECK(keys(nullptr, pod("a", "web", "r"), false) == Keys{"default/rs-r"});
  CHECK(keys(nullptr, pod("a", "web", "r"), true) == Keys{"default/rs-r"});
  // A new controller: the old one looks too (it may have one less).
  const json before = *pod("a", "web", "x");
  CHECK(keys(&before, pod("a", "web", "r"), false) == Keys{"default/rs-x", "default/rs-r"});
  // Released: the old controller looks, and the owners that may adopt it.
  CHECK(keys(&before, pod("a", "web"), false) == Keys{"default/rs-x", "default/web"});
  // Another kind's pod concerns no ReplicaSet.
  json job_pod = *pod("j", "web");
  job_pod["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "batch/v1"},
                                                         {"kind", "Job"},
                                                         {"name", "j"},
                                                         {"uid", "j1"},
                                                         {"controller", true}}});
  CHECK(keys(nullptr, std::make_shared<const json>(job_pod), false).empty());
  // An orphan: every owner whose selector matches it, when it is new or its labels changed.
  CHECK(keys(nullptr, pod("b", "db"), false) == Keys{"default/db"});
  const json web = *pod("b", "web");
  CHECK(keys(&web, pod("b", "db"), false) == Keys{"default/db"});
  CHECK(keys(&web, pod("b", "web"), false).empty());  // nothing an owner cares about changed
  CHECK(keys(nullptr, pod("b", "db"), true).empty());
  CHECK(keys(nullptr, pod("b", "db", "", true), false).empty());  // being deleted: not adoptable
}
