// The garbage collector's look at one dependent (upstream's attemptToDeleteItem) against a
// scripted API: how it finds out whether an owner is there, and what it then asks for.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fake_api.h"
#include "gc/garbage_collector.h"

using cluster::ResourceRef;
using cluster::gc::Discovery;
using cluster::gc::GarbageCollector;
using cluster::testing::FakeApi;
using nlohmann::json;

namespace {

const ResourceRef kConfigMaps{"", "v1", "configmaps", true};
const ResourceRef kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles", false};

Discovery discovery() {
  const json verbs = json::array({"delete", "get", "list", "watch"});
  auto resource = [&](const char* name, const char* kind, bool namespaced) {
    return json{{"name", name}, {"kind", kind}, {"namespaced", namespaced}, {"verbs", verbs}};
  };
  Discovery d;
  d.add({{"groupVersion", "v1"},
         {"resources",
          json::array({resource("configmaps", "ConfigMap", true),
                       resource("secrets", "Secret", true), resource("nodes", "Node", false)})}},
        true);
  d.add({{"groupVersion", "rbac.authorization.k8s.io/v1"},
         {"resources", json::array({resource("clusterroles", "ClusterRole", false)})}},
        true);
  return d;
}

json ref(const std::string& kind, const std::string& name, const std::string& uid,
         const std::string& api_version = "v1") {
  return {{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", uid}};
}

json config_map(const std::string& ns, const std::string& name, const std::string& uid,
                const json& owners = json::array()) {
  json o = {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"namespace", ns}, {"name", name}, {"uid", uid}}}};
  if (!owners.empty()) {
    o["metadata"]["ownerReferences"] = owners;
  }
  return o;
}

std::string cm_path(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/configmaps/" + name;
}

struct Fixture {
  FakeApi api;
  cluster::Client client = api.client();
  GarbageCollector gc{client, common::Clock::real()};
  Fixture() { gc.set_discovery_for_test(discovery()); }

  // Observes `object` (and lets GETs and DELETEs of it answer it).
  std::vector<std::string> observe(const ResourceRef& resource, const json& object) {
    const std::string ns = object["metadata"].value("namespace", "");
    const std::string path = resource.object(ns, object["metadata"]["name"].get<std::string>());
    api.answer("GET", path, 200, object);
    api.answer("DELETE", path, 200, object);
    return gc.observe_for_test(resource, object);
  }
  std::vector<std::string> deleted() const {
    std::vector<std::string> paths;
    for (const auto& c : api.calls("DELETE")) {
      paths.push_back(c.path);
    }
    return paths;
  }
  std::vector<std::string> gets() const {
    std::vector<std::string> paths;
    for (const auto& c : api.calls("GET")) {
      paths.push_back(c.path);
    }
    return paths;
  }
};

using Paths = std::vector<std::string>;

}  // namespace

TEST_CASE("a dependent whose owner is not found, or found with another uid, is deleted",
          "[cluster][gc]") {
  Fixture f;
  const json dep = config_map("a", "dep", "d1", json::array({ref("ConfigMap", "owner", "o1")}));
  CHECK(f.observe(kConfigMaps, dep) == Paths{"delete:d1"});
  SECTION("not found") {
    CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
    CHECK(f.gets() == Paths{cm_path("a", "dep"), cm_path("a", "owner")});
    REQUIRE(f.api.calls("DELETE").size() == 1);
    CHECK(f.api.calls("DELETE")[0].path == cm_path("a", "dep"));
    CHECK(f.api.calls("DELETE")[0].body == json{{"kind", "DeleteOptions"},
                                                {"apiVersion", "v1"},
                                                {"propagationPolicy", "Background"},
                                                {"preconditions", {{"uid", "d1"}}}});
    // The owner is remembered as absent: another dependent is deleted without asking again.
    const json dep2 = config_map("a", "dep2", "d2", json::array({ref("ConfigMap", "owner", "o1")}));
    f.observe(kConfigMaps, dep2);
    CHECK_FALSE(f.gc.sync_for_test("delete:d2"));
    CHECK(f.gets().back() == cm_path("a", "dep2"));
    CHECK(f.deleted() == Paths{cm_path("a", "dep"), cm_path("a", "dep2")});
  }
  SECTION("another uid under that name") {
    f.api.answer("GET", cm_path("a", "owner"), 200, config_map("a", "owner", "o2"));
    CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
    CHECK(f.deleted() == Paths{cm_path("a", "dep")});
  }
  SECTION("there: nothing to do") {
    f.api.answer("GET", cm_path("a", "owner"), 200, config_map("a", "owner", "o1"));
    CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
    CHECK(f.deleted().empty());
  }
  SECTION("a failed look is tried again") {
    f.api.fail("GET", cm_path("a", "owner"), 500, "InternalError", "boom");
    CHECK(f.gc.sync_for_test("delete:d1") ==
          std::optional<std::string>("getting owner ConfigMap owner: boom"));
    CHECK(f.deleted().empty());
  }
}

TEST_CASE("an owner seen in another namespace is no owner, and the dependent hears of it",
          "[cluster][gc]") {
  Fixture f;
  CHECK(f.observe(kConfigMaps, config_map("b", "owner", "o1")).empty());
  const json dep = config_map("a", "dep", "d1", json::array({ref("ConfigMap", "owner", "o1")}));
  CHECK(f.observe(kConfigMaps, dep) == Paths{"delete:d1"});
  const auto events = f.api.calls("POST");
  REQUIRE(events.size() == 1);
  CHECK(events[0].body["reason"] == "OwnerRefInvalidNamespace");
  CHECK(events[0].body["type"] == "Warning");
  CHECK(events[0].body["message"] ==
        "ownerRef [v1/ConfigMap, namespace: a, name: owner, uid: o1] does not exist in namespace "
        "\"a\"");
  CHECK(events[0].body["involvedObject"]["uid"] == "d1");
  // Looked up where the reference says, in the dependent's namespace: not there.
  CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
  CHECK(f.gets().back() == cm_path("a", "owner"));
  CHECK(f.deleted() == Paths{cm_path("a", "dep")});
}

TEST_CASE("an owner seen after its dependent is checked against the dependent's reference",
          "[cluster][gc]") {
  Fixture f;
  const json dep = config_map("a", "dep", "d1", json::array({ref("ConfigMap", "owner", "o1")}));
  CHECK(f.observe(kConfigMaps, dep) == Paths{"delete:d1"});
  // The uid belongs to an object of another name: the dependent is looked at again.
  CHECK(f.observe(kConfigMaps, config_map("a", "other", "o1")) == Paths{"delete:d1"});
  // One that matches calls for nothing.
  const json dep2 = config_map("a", "dep2", "d2", json::array({ref("ConfigMap", "x", "o3")}));
  f.observe(kConfigMaps, dep2);
  CHECK(f.observe(kConfigMaps, config_map("a", "x", "o3")).empty());
}

TEST_CASE("a reference with another kind than its owner's is dangling", "[cluster][gc]") {
  Fixture f;
  f.observe(kConfigMaps, config_map("a", "owner", "o1"));
  const json dep = config_map("a", "dep", "d1", json::array({ref("Secret", "owner", "o1")}));
  CHECK(f.observe(kConfigMaps, dep) == Paths{"delete:d1"});
  CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
  CHECK(f.gets().back() == "/api/v1/namespaces/a/secrets/owner");
  CHECK(f.deleted() == Paths{cm_path("a", "dep")});
}

TEST_CASE("a kind nobody serves is tried again, and a lower-case kind resolves", "[cluster][gc]") {
  Fixture f;
  const json dep =
      config_map("a", "dep", "d1", json::array({ref("Deployment", "web", "o1", "apps/v1beta1")}));
  f.observe(kConfigMaps, dep);
  CHECK(f.gc.sync_for_test("delete:d1") ==
        std::optional<std::string>("unable to get REST mapping for apps/v1beta1/Deployment."));
  CHECK(f.deleted().empty());

  const json lower = config_map("a", "dep2", "d2", json::array({ref("configmap", "owner", "o2")}));
  f.observe(kConfigMaps, lower);
  f.api.answer("GET", cm_path("a", "owner"), 200, config_map("a", "owner", "o2"));
  CHECK_FALSE(f.gc.sync_for_test("delete:d2"));
  CHECK(f.gets().back() == cm_path("a", "owner"));
  CHECK(f.deleted().empty());
}

TEST_CASE("a cluster-scoped dependent of a namespaced owner is left alone", "[cluster][gc]") {
  Fixture f;
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRole"},
               {"metadata",
                {{"name", "role"},
                 {"uid", "c1"},
                 {"ownerReferences", json::array({ref("ConfigMap", "owner", "o1")})}}}};
  CHECK(f.observe(kClusterRoles, role) == Paths{"delete:c1"});
  CHECK_FALSE(f.gc.sync_for_test("delete:c1"));  // no error: not tried again
  CHECK(f.gets() == Paths{"/apis/rbac.authorization.k8s.io/v1/clusterroles/role"});
  CHECK(f.deleted().empty());
  // Its owner seen in a namespace: the dependent hears of it, and is still left alone.
  CHECK(f.observe(kConfigMaps, config_map("default", "owner", "o1")) == Paths{"delete:c1"});
  REQUIRE(f.api.calls("POST").size() == 1);
  CHECK(f.api.calls("POST")[0].body["message"] ==
        "ownerRef [v1/ConfigMap, namespace: , name: owner, uid: o1] does not exist in namespace "
        "\"\"");
  CHECK_FALSE(f.gc.sync_for_test("delete:c1"));
  CHECK(f.deleted().empty());
}

TEST_CASE("a cluster-scoped owner is looked up without a namespace", "[cluster][gc]") {
  Fixture f;
  const json dep = config_map("a", "dep", "d1", json::array({ref("Node", "node-1", "n1")}));
  f.observe(kConfigMaps, dep);
  f.api.answer("GET", "/api/v1/nodes/node-1", 200,
               {{"kind", "Node"}, {"metadata", {{"name", "node-1"}, {"uid", "n1"}}}});
  CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
  CHECK(f.gets().back() == "/api/v1/nodes/node-1");
  CHECK(f.deleted().empty());
}

TEST_CASE("with one owner left, the references to the gone ones are dropped", "[cluster][gc]") {
  Fixture f;
  const json dep =
      config_map("a", "dep", "d1",
                 json::array({ref("ConfigMap", "keep", "k1"), ref("ConfigMap", "gone", "g1")}));
  f.observe(kConfigMaps, dep);
  f.api.answer("GET", cm_path("a", "keep"), 200, config_map("a", "keep", "k1"));
  f.api.answer("PUT", cm_path("a", "dep"), 200, dep);
  CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
  const auto puts = f.api.calls("PUT");
  REQUIRE(puts.size() == 1);
  CHECK(puts[0].body["metadata"]["ownerReferences"] ==
        json::array({ref("ConfigMap", "keep", "k1")}));
  CHECK(f.deleted().empty());
}

TEST_CASE("an owner deleted while it had dependents is remembered as gone", "[cluster][gc]") {
  Fixture f;
  const json owner = config_map("a", "owner", "o1");
  f.observe(kConfigMaps, owner);
  const json dep = config_map("a", "dep", "d1", json::array({ref("ConfigMap", "owner", "o1")}));
  CHECK(f.observe(kConfigMaps, dep).empty());
  CHECK(f.gc.forget_for_test(owner) == Paths{"delete:d1"});
  CHECK(f.gc.graph().absent({"v1", "ConfigMap", "owner", "o1", false}, "a"));
  // Even were the owner's kind no longer served (a custom resource's definition gone).
  f.gc.set_discovery_for_test(Discovery{});
  CHECK_FALSE(f.gc.sync_for_test("delete:d1"));
  CHECK(f.gets() == Paths{cm_path("a", "dep")});
  CHECK(f.deleted() == Paths{cm_path("a", "dep")});
}

TEST_CASE("a dependent whose own dependent waits too stops blocking before it goes",
          "[cluster][gc]") {
  Fixture f;
  json owner = config_map("a", "owner", "o1");
  owner["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  owner["metadata"]["finalizers"] = json::array({"foregroundDeletion"});
  json blocking = ref("ConfigMap", "owner", "o1");
  blocking["blockOwnerDeletion"] = true;
  const json mid = config_map("a", "mid", "m1", json::array({blocking}));
  json mid_ref = ref("ConfigMap", "mid", "m1");
  mid_ref["blockOwnerDeletion"] = true;
  json leaf = config_map("a", "leaf", "l1", json::array({mid_ref}));
  leaf["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  leaf["metadata"]["finalizers"] = json::array({"foregroundDeletion"});
  f.observe(kConfigMaps, owner);
  f.observe(kConfigMaps, mid);
  f.observe(kConfigMaps, leaf);
  f.api.answer("PUT", cm_path("a", "mid"), 200, mid);
  CHECK_FALSE(f.gc.sync_for_test("delete:m1"));
  const auto puts = f.api.calls("PUT");
  REQUIRE(puts.size() == 1);
  CHECK(puts[0].body["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] == false);
  REQUIRE(f.api.calls("DELETE").size() == 1);
  CHECK(f.api.calls("DELETE")[0].body["propagationPolicy"] == "Foreground");
}
