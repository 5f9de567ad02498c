#include "console/model/resource_tree.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using console::model::ApiResource;
using console::model::ResourceTree;
using nlohmann::json;

namespace {

json resource(const std::string& plural, const std::string& kind, bool namespaced,
              const json& verbs = {"get", "list", "watch"}) {
  return {{"resource", plural},
          {"responseKind", {{"group", ""}, {"version", ""}, {"kind", kind}}},
          {"scope", namespaced ? "Namespaced" : "Cluster"},
          {"singularResource", kind.empty() ? "" : plural.substr(0, plural.size() - 1)},
          {"verbs", verbs}};
}

// Lists as std::vector: a braced list holding one json would copy it instead of making an array.
json version(const std::string& name, const std::vector<json>& resources) {
  return {{"version", name}, {"resources", resources}, {"freshness", "Current"}};
}

json group(const std::string& name, const std::vector<json>& versions) {
  json item = {{"metadata", json::object()}, {"versions", versions}};
  if (!name.empty()) {
    item["metadata"]["name"] = name;
  }
  return item;
}

json document(const std::vector<json>& items) {
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/v2"},
          {"metadata", json::object()},
          {"items", items}};
}

json core_document() {
  json pods = resource("pods", "Pod", true,
                       {"create", "delete", "get", "list", "patch", "update", "watch"});
  pods["shortNames"] = {"po"};
  pods["subresources"] = {{{"subresource", "log"}, {"verbs", {"get"}}},
                          {{"subresource", "status"}, {"verbs", {"get", "patch"}}}};
  return document({group("", {version("v1", {pods, resource("nodes", "Node", false),
                                             resource("configmaps", "ConfigMap", true),
                                             resource("pods/log", "Pod", true)})})});
}

// Groups arrive out of order; "widgets.example.com" is a CRD; autoscaling prefers v2 and still
// serves v1; "beta.io" has a resource only in its older version.
json groups_document(bool with_crd = true) {
  std::vector<json> items = {
      group("batch", {version("v1", {resource("jobs", "Job", true),
                                     resource("cronjobs", "CronJob", true)})}),
      group(
          "autoscaling",
          {version("v2", {resource("horizontalpodautoscalers", "HorizontalPodAutoscaler", true)}),
           version("v1", {resource("horizontalpodautoscalers", "HorizontalPodAutoscaler", true)})}),
      group("apps", {version("v1", {resource("deployments", "Deployment", true),
                                    resource("daemonsets", "DaemonSet", true)})}),
      group("beta.io", {version("v1", {resource("alphas", "Alpha", true)}),
                        version("v1beta1", {resource("alphas", "Alpha", true),
                                            resource("betas", "Beta", false)})}),
  };
  if (with_crd) {
    items.push_back(group("example.com", {version("v1", {resource("widgets", "Widget", true)})}));
  }
  return document(items);
}

ResourceTree built(bool with_crd = true) {
  ResourceTree tree;
  const auto error = tree.rebuild(core_document(), groups_document(with_crd));
  INFO(error.value_or(""));
  REQUIRE_FALSE(error.has_value());
  return tree;
}

std::vector<std::string> group_names(const ResourceTree& tree) {
  std::vector<std::string> names;
  for (const auto& g : tree.groups()) {
    names.push_back(g.display_name);
  }
  return names;
}

std::vector<std::string> resource_names(const ResourceTree& tree, size_t group) {
  std::vector<std::string> names;
  for (const auto& r : tree.groups().at(group).resources) {
    names.push_back(r.resource);
  }
  return names;
}

std::vector<std::string> keys(const std::vector<const ApiResource*>& resources) {
  std::vector<std::string> out;
  for (const ApiResource* r : resources) {
    out.push_back(r->key());
  }
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("the tree lists core first, then groups alphabetically", "[console][model][tree]") {
  const ResourceTree tree = built();
  CHECK(group_names(tree) ==
        Names{"core", "apps", "autoscaling", "batch", "beta.io", "example.com"});
  CHECK(tree.groups()[0].name.empty());
  CHECK(tree.groups()[1].name == "apps");
}

TEST_CASE("resources sort by name and skip subresources", "[console][model][tree]") {
  const ResourceTree tree = built();
  CHECK(resource_names(tree, 0) == Names{"configmaps", "nodes", "pods"});
  CHECK(resource_names(tree, 1) == Names{"daemonsets", "deployments"});
  CHECK(resource_names(tree, 3) == Names{"cronjobs", "jobs"});
}

TEST_CASE("each resource is listed once at its most preferred version", "[console][model][tree]") {
  const ResourceTree tree = built();
  CHECK(tree.groups()[2].preferred_version == "v2");
  REQUIRE(resource_names(tree, 2) == Names{"horizontalpodautoscalers"});
  CHECK(tree.groups()[2].resources[0].version == "v2");

  REQUIRE(resource_names(tree, 4) == Names{"alphas", "betas"});
  CHECK(tree.find("beta.io", "alphas")->version == "v1");
  CHECK(tree.find("beta.io", "betas")->version == "v1beta1");  // only served there
}

TEST_CASE("resources keep kind, scope, verbs and short names", "[console][model][tree]") {
  const ResourceTree tree = built();
  const ApiResource* pods = tree.find("", "pods");
  REQUIRE(pods != nullptr);
  CHECK(pods->group.empty());
  CHECK(pods->version == "v1");
  CHECK(pods->kind == "Pod");
  CHECK(pods->singular == "pod");
  CHECK(pods->namespaced);
  CHECK(pods->short_names == Names{"po"});
  CHECK(pods->has_verb("watch"));
  CHECK_FALSE(pods->has_verb("deletecollection"));
  CHECK(pods->key() == "core/pods");
  CHECK_FALSE(pods->count.has_value());

  const ApiResource* nodes = tree.find("", "nodes");
  REQUIRE(nodes != nullptr);
  CHECK_FALSE(nodes->namespaced);
  CHECK(tree.find("apps", "deployments")->key() == "apps/deployments");
  CHECK(tree.find("apps", "pods") == nullptr);
  CHECK(tree.find("", "pods/log") == nullptr);
}

TEST_CASE("favourites are pinned in tree order", "[console][model][tree]") {
  ResourceTree tree = built();
  tree.set_favourites({"example.com/widgets", "core/pods", "apps/deployments", "gone.io/things"});
  CHECK(keys(tree.favourites()) == Names{"core/pods", "apps/deployments", "example.com/widgets"});
  CHECK(tree.is_favourite(*tree.find("", "pods")));
  CHECK_FALSE(tree.is_favourite(*tree.find("", "nodes")));

  SECTION("toggling one") {
    tree.set_favourite(*tree.find("", "nodes"), true);
    tree.set_favourite(*tree.find("", "pods"), false);
    CHECK(keys(tree.favourites()) ==
          Names{"core/nodes", "apps/deployments", "example.com/widgets"});
    CHECK(tree.favourite_keys().contains("core/nodes"));
    CHECK_FALSE(tree.favourite_keys().contains("core/pods"));
  }
  SECTION("a favourite whose CRD goes is unpinned but remembered, and returns with it") {
    REQUIRE_FALSE(tree.rebuild(core_document(), groups_document(false)));
    CHECK(keys(tree.favourites()) == Names{"core/pods", "apps/deployments"});
    CHECK(tree.favourite_keys().size() == 4);
    REQUIRE_FALSE(tree.rebuild(core_document(), groups_document(true)));
    CHECK(keys(tree.favourites()) == Names{"core/pods", "apps/deployments", "example.com/widgets"});
  }
}

TEST_CASE("the selection survives rebuilds while its resource exists", "[console][model][tree]") {
  ResourceTree tree = built();
  CHECK(tree.selected() == nullptr);
  REQUIRE(tree.select("example.com", "widgets"));
  CHECK(tree.selected()->kind == "Widget");

  SECTION("kept when still served") {
    REQUIRE_FALSE(tree.rebuild(core_document(), groups_document(true)));
    REQUIRE(tree.selected() != nullptr);
    CHECK(tree.selected()->key() == "example.com/widgets");
  }
  SECTION("cleared when the CRD is gone, and not brought back with it") {
    REQUIRE_FALSE(tree.rebuild(core_document(), groups_document(false)));
    CHECK(tree.selected() == nullptr);
    REQUIRE_FALSE(tree.rebuild(core_document(), groups_document(true)));
    CHECK(tree.selected() == nullptr);
  }
  SECTION("an unknown resource is refused") {
    CHECK_FALSE(tree.select("apps", "widgets"));
    CHECK(tree.selected()->key() == "example.com/widgets");
  }
  SECTION("cleared on request") {
    tree.clear_selection();
    CHECK(tree.selected() == nullptr);
  }
}

TEST_CASE("live counts are kept across rebuilds", "[console][model][tree]") {
  ResourceTree tree = built();
  tree.set_count("", "pods", 42);
  tree.set_count("example.com", "widgets", 3);
  tree.set_count("later.io", "things", 7);  // not discovered yet
  CHECK(tree.find("", "pods")->count == 42u);

  REQUIRE_FALSE(tree.rebuild(core_document(), groups_document(true)));
  CHECK(tree.find("", "pods")->count == 42u);
  CHECK(tree.find("example.com", "widgets")->count == 3u);
  CHECK_FALSE(tree.find("apps", "deployments")->count.has_value());

  json later = groups_document(true);
  later["items"].push_back(group("later.io", {version("v1", {resource("things", "Thing", true)})}));
  REQUIRE_FALSE(tree.rebuild(core_document(), later));
  CHECK(tree.find("later.io", "things")->count == 7u);
}

TEST_CASE("stale aggregated groups are marked", "[console][model][tree]") {
  json groups = groups_document(true);
  groups["items"][0]["versions"][0]["freshness"] = "Stale";  // batch
  ResourceTree tree;
  REQUIRE_FALSE(tree.rebuild(core_document(), groups));
  CHECK(tree.groups()[3].display_name == "batch");
  CHECK(tree.groups()[3].stale);
  CHECK_FALSE(tree.groups()[1].stale);
}

TEST_CASE("malformed discovery changes nothing", "[console][model][tree]") {
  struct Row {
    json core;
    json groups;
    std::string error;
  };
  json no_version = groups_document();
  no_version["items"][1]["versions"][0].erase("version");
  json bad_resources = groups_document();
  bad_resources["items"][2]["versions"][0]["resources"] = "x";
  json nameless = core_document();
  nameless["items"][0]["versions"][0]["resources"][1].erase("resource");
  const auto row = GENERATE_REF(values<Row>({
      {json::array(), groups_document(), "/api: items is not an array"},
      {core_document(), {{"items", json::object()}}, "/apis: items is not an array"},
      {core_document(),
       {{"items", {{{"versions", 1}}}}},
       "/apis.items[0].versions is not an array"},
      {core_document(), no_version, "/apis.items[1].versions[0].version is missing"},
      {core_document(), bad_resources, "/apis.items[2].versions[0].resources is not an array"},
      {nameless, groups_document(), "/api.items[0].versions[0].resources[1].resource is missing"},
  }));
  ResourceTree tree = built();
  CHECK(tree.rebuild(row.core, row.groups) == row.error);
  CHECK(tree.groups().size() == 6);
}

TEST_CASE("an empty discovery document is an empty tree", "[console][model][tree]") {
  ResourceTree tree = built();
  REQUIRE(tree.select("", "pods"));
  REQUIRE_FALSE(tree.rebuild(json::object(), document({})));
  CHECK(tree.groups().empty());
  CHECK(tree.selected() == nullptr);
  CHECK(tree.favourites().empty());
}
