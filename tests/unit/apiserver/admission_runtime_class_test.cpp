// The RuntimeClass admission plugin (overhead, scheduling, the class's existence) and the
// toleration merge it uses, on a chain of its own and through the whole server.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "admission/plugins/toleration_merge.h"
#include "admission_bench.h"
#include "authorization_fixture.h"

namespace {

using apiserver::admission::merge_tolerations;
using apiserver::admission::Operation;
using apiserver::testing::AdmissionBench;
using apiserver::testing::Cluster;
using nlohmann::json;

json runtime_class(const std::string& name, json extra = json::object()) {
  json rc = {{"apiVersion", "node.k8s.io/v1"},
             {"kind", "RuntimeClass"},
             {"metadata", {{"name", name}}},
             {"handler", "runsc"}};
  rc.update(extra);
  return rc;
}

json pod(json spec_extra = json::object()) {
  json spec = {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}};
  spec.update(spec_extra);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}, {"namespace", "default"}}},
          {"spec", spec}};
}

}  // namespace

TEST_CASE("merging tolerations keeps only what no other toleration covers", "[admission]") {
  const json exists_all = {{"operator", "Exists"}};
  const json a_x = {{"key", "a"}, {"operator", "Equal"}, {"value", "x"}};
  const json a_exists = {{"key", "a"}, {"operator", "Exists"}};
  const json a_noexec_60 = {
      {"key", "a"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 60}};
  const json a_noexec_30 = {
      {"key", "a"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 30}};
  const json b_x = {{"key", "b"}, {"operator", "Equal"}, {"value", "x"}};
  CHECK(merge_tolerations(json::array({a_x}), json::array({exists_all})) ==
        json::array({exists_all}));
  CHECK(merge_tolerations(json::array({a_x, b_x}), json::array({a_exists})) ==
        json::array({b_x, a_exists}));
  CHECK(merge_tolerations(json::array({a_x, a_x}), json::array({b_x})) == json::array({a_x, b_x}));
  // A NoExecute toleration that lasts longer covers a shorter one, whichever comes first.
  CHECK(merge_tolerations(json::array({a_noexec_60}), json::array({a_noexec_30})) ==
        json::array({a_noexec_60}));
  CHECK(merge_tolerations(json::array({a_noexec_30}), json::array({a_noexec_60})) ==
        json::array({a_noexec_60}));
  CHECK(merge_tolerations(json(), json::array()) == json::array());
}

TEST_CASE("RuntimeClass admission applies the pod's class", "[admission]") {
  AdmissionBench bench;
  bench.put(
      "node.k8s.io", "runtimeclasses",
      runtime_class("gvisor", {{"overhead", {{"podFixed", {{"cpu", "250m"}, {"memory", "120Mi"}}}}},
                               {"scheduling",
                                {{"nodeSelector", {{"sandbox", "gvisor"}}},
                                 {"tolerations", json::array({{{"key", "sandbox"},
                                                               {"operator", "Exists"},
                                                               {"effect", "NoSchedule"}}})}}}}));
  bench.put("node.k8s.io", "runtimeclasses", runtime_class("plain"));
  auto chain = bench.chain({"RuntimeClass"});
  // Both passes over `p`; the refusal's message, "" when admitted.
  auto run = [&](json& p) {
    auto a = bench.attributes(Operation::Create, "", "pods", &p);
    auto refused = chain->admit(a);
    if (!refused) {
      refused = chain->validate(a);
    }
    return refused ? refused->message : std::string();
  };

  SECTION("overhead, node selector and tolerations come from the class") {
    json p = pod({{"runtimeClassName", "gvisor"}, {"nodeSelector", {{"disk", "ssd"}}}});
    REQUIRE(run(p) == "");
    CHECK(p["spec"]["overhead"] == json({{"cpu", "250m"}, {"memory", "120Mi"}}));
    CHECK(p["spec"]["nodeSelector"] == json({{"disk", "ssd"}, {"sandbox", "gvisor"}}));
    CHECK(p["spec"]["tolerations"] ==
          json::parse(R"([{"key":"sandbox","operator":"Exists","effect":"NoSchedule"}])"));
  }
  SECTION("the same overhead in other words is no conflict") {
    json p = pod(
        {{"runtimeClassName", "gvisor"}, {"overhead", {{"cpu", "0.25"}, {"memory", "122880Ki"}}}});
    CHECK(run(p) == "");
  }
  SECTION("a class that does not exist") {
    json p = pod({{"runtimeClassName", "kata"}});
    CHECK(run(p) == "pods \"p\" is forbidden: pod rejected: RuntimeClass \"kata\" not found");
  }
  SECTION("another overhead than the class's") {
    json p = pod({{"runtimeClassName", "gvisor"}, {"overhead", {{"cpu", "1"}}}});
    CHECK(run(p) ==
          "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's "
          "defined Overhead");
  }
  SECTION("an overhead without a class that defines one") {
    const std::string kWithout =
        "pods \"p\" is forbidden: pod rejected: Pod Overhead set without corresponding "
        "RuntimeClass defined Overhead";
    json none = pod({{"overhead", {{"cpu", "1"}}}});
    CHECK(run(none) == kWithout);
    json plain = pod({{"runtimeClassName", "plain"}, {"overhead", {{"cpu", "1"}}}});
    CHECK(run(plain) == kWithout);
  }
  SECTION("a node selector that says otherwise") {
    json p = pod({{"runtimeClassName", "gvisor"}, {"nodeSelector", {{"sandbox", "kata"}}}});
    CHECK(run(p) ==
          "pods \"p\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = "
          "gvisor; pod.spec.nodeSelector[sandbox] = kata");
  }
  SECTION("updates are not checked, and a chain without the plugin checks nothing") {
    json p = pod({{"runtimeClassName", "kata"}});
    const json old = p;
    auto update = bench.attributes(Operation::Update, "", "pods", &p, &old);
    CHECK_FALSE(chain->admit(update));
    auto without = bench.chain({});
    auto create = bench.attributes(Operation::Create, "", "pods", &p);
    CHECK_FALSE(without->admit(create));
    CHECK_FALSE(without->validate(create));
  }
}

TEST_CASE("a pod created through the API gets its RuntimeClass's overhead", "[admission]") {
  Cluster cluster;
  const std::string pods = "/api/v1/namespaces/default/pods";
  REQUIRE(cluster
              .admin("POST", "/apis/node.k8s.io/v1/runtimeclasses",
                     runtime_class("gvisor", {{"overhead", {{"podFixed", {{"cpu", "250m"}}}}}}))
              .status == 201);
  json p = pod({{"runtimeClassName", "gvisor"}});
  p["metadata"].erase("namespace");
  auto created = cluster.admin("POST", pods, p);
  REQUIRE(created.status == 201);
  CHECK(created.body["spec"]["overhead"] == json({{"cpu", "250m"}}));

  json missing = pod({{"runtimeClassName", "kata"}});
  missing["metadata"] = {{"name", "q"}};
  auto refused = cluster.admin("POST", pods, missing);
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "pods \"q\" is forbidden: pod rejected: RuntimeClass \"kata\" not found");

  Cluster off(
      [](apiserver::ApiServerConfig& c) { c.disable_admission_plugins = {"RuntimeClass"}; });
  auto admitted = off.admin("POST", pods, missing);
  CHECK(admitted.status == 201);
  CHECK_FALSE(admitted.body["spec"].contains("overhead"));
}
