#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "gc/discovery.h"
#include "client/objects.h"
#include "gc/graph.h"

using cluster::ResourceRef;
using cluster::gc::Decision;
using cluster::gc::Discovery;
using cluster::gc::Graph;
using cluster::gc::OwnerReference;
using cluster::gc::OwnerState;
using nlohmann::json;

namespace {

const ResourceRef kConfigMaps{"", "v1", "configmaps", true};

json ref(const std::string& uid, bool block = false) {
  json r = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "cm-" + uid}, {"uid", uid}};
  if (block) {
    r["blockOwnerDeletion"] = true;
  }
  return r;
}

// A ConfigMap named cm-UID in "default" (ns empty: cluster-scoped), owned by `owners`.
json object(const std::string& uid, const json& owners = json::array(),
            const std::vector<std::string>& finalizers = {}, bool deleting = false,
            const std::string& ns = "default") {
  json o = {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", "cm-" + uid}, {"uid", uid}}}};
  if (!ns.empty()) {
    o["metadata"]["namespace"] = ns;
  }
  if (!owners.empty()) {
    o["metadata"]["ownerReferences"] = owners;
  }
  if (!finalizers.empty()) {
    o["metadata"]["finalizers"] = finalizers;
  }
  if (deleting) {
    o["metadata"]["deletionTimestamp"] = "2026-11-26T17:00:00Z";
  }
  return o;
}

std::vector<OwnerReference> owners(std::initializer_list<const char*> uids) {
  std::vector<OwnerReference> out;
  for (const char* uid : uids) {
    out.push_back({"v1", "ConfigMap", std::string("cm-") + uid, uid, false});
  }
  return out;
}

}  // namespace

TEST_CASE("a dependent is deleted only when no owner is solid, else its gone owners are dropped",
          "[cluster][gc]") {
  using S = OwnerState;
  using A = Decision::Action;
  struct Row {
    const char* name;
    std::vector<OwnerReference> owners;
    std::map<std::string, S> states;
    bool has_dependents;
    std::vector<std::string> finalizers;
    A action;
    std::set<std::string> removed;
    std::string propagation;
  };
  const std::vector<Row> rows = {
      {"no owners", {}, {}, false, {}, A::None, {}, ""},
      {"every owner there",
       owners({"a", "b"}),
       {{"a", S::Solid}, {"b", S::Solid}},
       false,
       {},
       A::None,
       {},
       ""},
      {"the only owner gone",
       owners({"a"}),
       {{"a", S::Dangling}},
       false,
       {},
       A::Delete,
       {},
       "Background"},
      {"one of two owners gone",
       owners({"a", "b"}),
       {{"a", S::Solid}, {"b", S::Dangling}},
       false,
       {},
       A::RemoveReferences,
       {"b"},
       ""},
      {"an owner deleting its dependents next to a solid one",
       owners({"a", "b"}),
       {{"a", S::WaitingForDependentsDeletion}, {"b", S::Solid}},
       true,
       {},
       A::RemoveReferences,
       {"a"},
       ""},
      {"the owner waits and the dependent has dependents",
       owners({"a"}),
       {{"a", S::WaitingForDependentsDeletion}},
       true,
       {},
       A::Delete,
       {},
       "Foreground"},
      {"the owner waits and the dependent has none",
       owners({"a"}),
       {{"a", S::WaitingForDependentsDeletion}},
       false,
       {},
       A::Delete,
       {},
       "Background"},
      {"owners gone, the dependent asks to orphan",
       owners({"a"}),
       {{"a", S::Dangling}},
       true,
       {"orphan"},
       A::Delete,
       {},
       "Orphan"},
      {"owners gone, the dependent asks for the foreground",
       owners({"a"}),
       {{"a", S::Dangling}},
       true,
       {"foregroundDeletion"},
       A::Delete,
       {},
       "Foreground"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const Decision d = cluster::gc::decide(row.owners, row.states, row.has_dependents,
                                           object("x", json::array(), row.finalizers));
    CHECK(d.action == row.action);
    CHECK(d.remove_uids == row.removed);
    CHECK(d.propagation == row.propagation);
  }
}

TEST_CASE("finalizers and owner references are removed by name and uid", "[cluster][gc]") {
  json o = object("x", json::array({ref("a"), ref("b")}), {"orphan", "example.com/keep"});
  SECTION("a finalizer") {
    CHECK(cluster::remove_finalizer(o, "orphan"));
    CHECK(o["metadata"]["finalizers"] == json::array({"example.com/keep"}));
    CHECK_FALSE(cluster::remove_finalizer(o, "orphan"));
    CHECK_FALSE(cluster::has_finalizer(o, "orphan"));
    CHECK(cluster::remove_finalizer(o, "example.com/keep"));
    CHECK(o["metadata"]["finalizers"] == json::array());
  }
  SECTION("owner references") {
    CHECK_FALSE(cluster::gc::remove_owner_references(o, {"zzz"}));
    CHECK(cluster::gc::remove_owner_references(o, {"a"}));
    CHECK(o["metadata"]["ownerReferences"] == json::array({ref("b")}));
    CHECK(cluster::gc::remove_owner_references(o, {"b"}));
    CHECK_FALSE(o["metadata"].contains("ownerReferences"));
  }
  SECTION("references without a uid are not owners") {
    json r = ref("a", true);
    r.erase("uid");
    auto refs = cluster::gc::owner_references_of(object("y", json::array({r, ref("b", true)})));
    REQUIRE(refs.size() == 1);
    CHECK(refs[0].uid == "b");
    CHECK(refs[0].block_owner_deletion);
  }
}

TEST_CASE("the graph queues a dependent when its owner is unseen or goes", "[cluster][gc]") {
  using Keys = std::vector<std::string>;
  Graph g;
  CHECK(g.observe(kConfigMaps, object("d", json::array({ref("o")}))) == Keys{"delete:d"});
  CHECK(g.observe(kConfigMaps, object("o")).empty());
  CHECK(g.dependents("o") == Keys{"d"});
  // A new dependent of an owner seen: nothing to check.
  CHECK(g.observe(kConfigMaps, object("e", json::array({ref("o")}))).empty());
  CHECK(g.forget(object("o")) == Keys{"delete:d", "delete:e"});
  CHECK(g.size() == 2);
  // The references stay until the dependents change.
  CHECK(g.dependents("o") == Keys{"d", "e"});
  CHECK(g.observe(kConfigMaps, object("d")).empty());
  CHECK(g.dependents("o") == Keys{"e"});
  CHECK(g.forget(object("unknown")).empty());
}

TEST_CASE("a namespaced owner of a cluster-scoped dependent is looked at", "[cluster][gc]") {
  Graph g;
  CHECK(g.observe(kConfigMaps, object("o")).empty());
  const ResourceRef roles{"rbac.authorization.k8s.io", "v1", "clusterroles", false};
  CHECK(g.observe(roles, object("c", json::array({ref("o")}), {}, false, "")) ==
        std::vector<std::string>{"delete:c"});
}

TEST_CASE("an owner being deleted queues the orphaning or the deletion of its dependents",
          "[cluster][gc]") {
  using Keys = std::vector<std::string>;
  Graph g;
  g.observe(kConfigMaps, object("o"));
  g.observe(kConfigMaps, object("blocking", json::array({ref("o", true)})));
  g.observe(kConfigMaps, object("free", json::array({ref("o")})));
  CHECK(g.blocking_dependents("o") == Keys{"blocking"});

  SECTION("orphan") {
    CHECK(g.observe(kConfigMaps, object("o", json::array(), {"orphan"}, true)) == Keys{"orphan:o"});
    CHECK(g.node("o")->orphaning);
    // Only the transition queues it.
    CHECK(g.observe(kConfigMaps, object("o", json::array(), {"orphan"}, true)).empty());
  }
  SECTION("foreground") {
    CHECK(g.observe(kConfigMaps, object("o", json::array(), {"foregroundDeletion"}, true)) ==
          Keys{"delete:o", "delete:blocking", "delete:free"});
    CHECK(g.node("o")->deleting_dependents);
    // The owner looks again when the blocking dependent goes or stops blocking, not for others.
    CHECK(g.forget(object("free", json::array({ref("o")}))).empty());
    SECTION("gone") {
      CHECK(g.forget(object("blocking", json::array({ref("o", true)}))) == Keys{"delete:o"});
    }
    SECTION("no longer blocking") {
      CHECK(g.observe(kConfigMaps, object("blocking", json::array({ref("o")}))) ==
            Keys{"delete:o"});
    }
    CHECK(g.blocking_dependents("o").empty());
  }
  SECTION("a finalizer of its own is no deletion") {
    CHECK(g.observe(kConfigMaps, object("o", json::array(), {"orphan"})).empty());
    CHECK_FALSE(g.node("o")->orphaning);
  }
}

TEST_CASE("discovery watches the preferred resources that can be listed, watched and deleted",
          "[cluster][gc]") {
  const json all = json::array({"create", "delete", "get", "list", "watch"});
  const json apps_v1 = {
      {"groupVersion", "apps/v1"},
      {"resources",
       {{{"name", "replicasets"}, {"namespaced", true}, {"kind", "ReplicaSet"}, {"verbs", all}},
        {{"name", "replicasets/status"},
         {"namespaced", true},
         {"kind", "ReplicaSet"},
         {"verbs", all}},
        {{"name", "readonly"},
         {"namespaced", false},
         {"kind", "ReadOnly"},
         {"verbs", {"get", "list", "watch"}}}}}};
  const json core = {
      {"groupVersion", "v1"},
      {"resources",
       {{{"name", "events"}, {"namespaced", true}, {"kind", "Event"}, {"verbs", all}},
        {{"name", "namespaces"}, {"namespaced", false}, {"kind", "Namespace"}, {"verbs", all}}}}};
  const json apps_old = {
      {"groupVersion", "apps/v1beta1"},
      {"resources",
       {{{"name", "replicasets"}, {"namespaced", true}, {"kind", "ReplicaSet"}, {"verbs", all}}}}};
  Discovery d;
  d.add(apps_v1, true);
  d.add(core, true);
  d.add(apps_old, false);
  std::vector<std::string> watched;
  for (const ResourceRef& r : d.watched) {
    watched.push_back(cluster::gc::resource_key(r));
  }
  CHECK(watched == std::vector<std::string>{"apps/v1/replicasets", "v1/namespaces"});
  REQUIRE(d.resource_for("apps/v1beta1", "ReplicaSet"));
  CHECK(d.resource_for("apps/v1beta1", "ReplicaSet")->version == "v1beta1");
  REQUIRE(d.resource_for("v1", "Namespace"));
  CHECK_FALSE(d.resource_for("v1", "Namespace")->namespaced);
  CHECK_FALSE(d.resource_for("v1", "Pod"));
}

TEST_CASE("the owners known to be gone are the latest ones marked", "[cluster][gc]") {
  Graph g;
  auto owner = [](size_t i) {
    return OwnerReference{"v1", "ConfigMap", "cm-" + std::to_string(i), std::to_string(i), false};
  };
  for (size_t i = 0; i < Graph::kAbsentOwners; ++i) {
    g.mark_absent(owner(i), "default");
  }
  CHECK(g.absent(owner(0), "default"));
  CHECK_FALSE(g.absent(owner(0), ""));  // by namespace
  OwnerReference other_version = owner(0);
  other_version.api_version = "v2";
  CHECK_FALSE(g.absent(other_version, "default"));  // by apiVersion too
  g.mark_absent(owner(0), "default");               // marked again: the newest
  g.mark_absent(owner(Graph::kAbsentOwners), "default");
  CHECK(g.absent(owner(0), "default"));
  CHECK_FALSE(g.absent(owner(1), "default"));  // the oldest went
  CHECK(g.absent(owner(Graph::kAbsentOwners), "default"));
}

TEST_CASE("blocking references are turned off, the others left", "[cluster][gc]") {
  json o = object("x", json::array({ref("a", true), ref("b")}));
  CHECK(cluster::gc::unblock_owner_references(o));
  CHECK(o["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] == false);
  CHECK_FALSE(o["metadata"]["ownerReferences"][1].contains("blockOwnerDeletion"));
  CHECK_FALSE(cluster::gc::unblock_owner_references(o));
  json none = object("y");
  CHECK_FALSE(cluster::gc::unblock_owner_references(none));

  // Only a foreground deletion an owner waits for may have to unblock first.
  const Decision waits = cluster::gc::decide(
      owners({"a"}), {{"a", OwnerState::WaitingForDependentsDeletion}}, true, object("x"));
  CHECK(waits.owner_waits);
  const Decision asked = cluster::gc::decide(owners({"a"}), {{"a", OwnerState::Dangling}}, true,
                                             object("x", json::array(), {"foregroundDeletion"}));
  CHECK(asked.propagation == "Foreground");
  CHECK_FALSE(asked.owner_waits);
}
