// The admission chain as a client meets it through the whole server: the default-on plugins
// kube-sandbox writes itself (NamespaceLifecycle, ServiceAccount, TaintNodesByCondition,
// Priority, DefaultTolerationSeconds, ValidatingAdmissionPolicy), the plugin flags, and what the
// request's trace says each plugin did.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/chain.h"
#include "authorization_fixture.h"

namespace {

using apiserver::testing::Cluster;
using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

json pod(const std::string& name, json spec_extra = json::object()) {
  json spec = {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}};
  spec.update(spec_extra);
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

// The texts of the request's trace notes of `layer`, for the last request matching `query`.
std::vector<std::string> notes(Cluster& cluster, const std::string& query,
                               const std::string& layer) {
  auto items = cluster.admin("GET", "/debug/requests?" + query).body["items"];
  std::vector<std::string> out;
  if (!items.is_array() || items.empty()) {
    return out;
  }
  for (const auto& n : items.back()["notes"]) {
    if (n["layer"] == layer) {
      out.push_back(n["text"].get<std::string>());
    }
  }
  return out;
}

bool any_starts_with(const std::vector<std::string>& texts, const std::string& prefix) {
  for (const auto& t : texts) {
    if (t.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("a pod created gets the admission plugins' effects", "[admission]") {
  Cluster cluster;
  auto created = cluster.admin("POST", kPods, pod("web"));
  REQUIRE(created.status == 201);
  const json& spec = created.body["spec"];
  CHECK(spec["serviceAccountName"] == "default");
  CHECK(spec["serviceAccount"] == "default");
  const std::string volume = spec["volumes"][0]["name"];
  CHECK(volume.rfind("kube-api-access-", 0) == 0);
  CHECK(spec["containers"][0]["volumeMounts"][0] ==
        json({{"name", volume},
              {"readOnly", true},
              {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"}}));
  CHECK(spec["priority"] == 0);
  CHECK(spec["preemptionPolicy"] == "PreemptLowerPriority");
  CHECK(spec["tolerations"] ==
        json::parse(R"([{"key":"node.kubernetes.io/not-ready","operator":"Exists",
          "effect":"NoExecute","tolerationSeconds":300},
          {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute",
          "tolerationSeconds":300}])"));

  auto admission = notes(cluster, "verb=create&resource=pods", "admission");
  INFO(json(admission).dump());
  CHECK(any_starts_with(admission, "ServiceAccount: set spec.containers[0].volumeMounts"));
  CHECK(any_starts_with(admission, "Priority: set spec.preemptionPolicy, spec.priority"));
  CHECK(any_starts_with(admission, "DefaultTolerationSeconds: set spec.tolerations"));
}

TEST_CASE("ServiceAccount admission reads the account", "[admission]") {
  Cluster cluster;
  SECTION("an account that does not exist is a 403") {
    auto refused = cluster.admin("POST", kPods, pod("p", {{"serviceAccountName", "ghost"}}));
    CHECK(refused.status == 403);
    CHECK(refused.body["message"] ==
          "pods \"p\" is forbidden: error looking up service account default/ghost: "
          "serviceaccount \"ghost\" not found");
    CHECK(cluster.admin("GET", std::string(kPods) + "/p").status == 404);
  }
  SECTION("the account's automount and pull secrets apply when the pod is silent") {
    REQUIRE(cluster
                .admin("POST", "/api/v1/namespaces/default/serviceaccounts",
                       {{"apiVersion", "v1"},
                        {"kind", "ServiceAccount"},
                        {"metadata", {{"name", "builder"}}},
                        {"automountServiceAccountToken", false},
                        {"imagePullSecrets", json::array({{{"name", "regcred"}}})}})
                .status == 201);
    auto created = cluster.admin("POST", kPods, pod("p", {{"serviceAccountName", "builder"}}));
    REQUIRE(created.status == 201);
    CHECK_FALSE(created.body["spec"].contains("volumes"));
    CHECK(created.body["spec"]["imagePullSecrets"] == json::parse(R"([{"name":"regcred"}])"));
  }
  SECTION("turned off, nothing is mounted and no account is looked up") {
    Cluster off(
        [](apiserver::ApiServerConfig& c) { c.disable_admission_plugins = {"ServiceAccount"}; });
    auto created = off.admin("POST", kPods, pod("p", {{"serviceAccountName", "ghost"}}));
    REQUIRE(created.status == 201);
    CHECK_FALSE(created.body["spec"].contains("volumes"));
    CHECK(created.body["spec"]["serviceAccountName"] == "ghost");
  }
}

TEST_CASE("Priority admission resolves PriorityClasses", "[admission]") {
  Cluster cluster;
  const std::string classes = "/apis/scheduling.k8s.io/v1/priorityclasses";
  auto priority_class = [](const std::string& name, int value, bool global) {
    return json{{"apiVersion", "scheduling.k8s.io/v1"},
                {"kind", "PriorityClass"},
                {"metadata", {{"name", name}}},
                {"value", value},
                {"globalDefault", global}};
  };
  auto missing = cluster.admin("POST", kPods, pod("p", {{"priorityClassName", "gold"}}));
  CHECK(missing.status == 403);
  CHECK(missing.body["message"] ==
        "pods \"p\" is forbidden: no PriorityClass with name gold was found");

  REQUIRE(cluster.admin("POST", classes, priority_class("gold", 1000, false)).status == 201);
  auto gold = cluster.admin("POST", kPods, pod("g", {{"priorityClassName", "gold"}}));
  REQUIRE(gold.status == 201);
  CHECK(gold.body["spec"]["priority"] == 1000);

  auto wrong =
      cluster.admin("POST", kPods, pod("w", {{"priorityClassName", "gold"}, {"priority", 5}}));
  CHECK(wrong.status == 403);
  CHECK(wrong.body["message"] ==
        "pods \"w\" is forbidden: the integer value of priority (5) must not be provided in pod "
        "spec; priority admission controller computed 1000 from the given PriorityClass name");

  REQUIRE(cluster.admin("POST", classes, priority_class("base", 7, true)).status == 201);
  auto second = cluster.admin("POST", classes, priority_class("other", 9, true));
  CHECK(second.status == 403);
  CHECK(second.body["message"] ==
        "priorityclasses.scheduling.k8s.io \"other\" is forbidden: PriorityClass base is already "
        "marked as default. Only one default can exist");
  auto defaulted = cluster.admin("POST", kPods, pod("d"));
  REQUIRE(defaulted.status == 201);
  CHECK(defaulted.body["spec"]["priorityClassName"] == "base");
  CHECK(defaulted.body["spec"]["priority"] == 7);
}

TEST_CASE("NamespaceLifecycle guards namespaces", "[admission]") {
  Cluster cluster;
  auto missing = cluster.admin("POST", "/api/v1/namespaces/nowhere/configmaps",
                               apiserver::testing::configmap("c"));
  CHECK(missing.status == 404);
  CHECK(missing.body["message"] == "namespaces \"nowhere\" not found");

  auto immortal = cluster.admin("DELETE", "/api/v1/namespaces/kube-public");
  CHECK(immortal.status == 403);
  CHECK(immortal.body["message"] ==
        "namespaces \"kube-public\" is forbidden: this namespace may not be deleted");
  CHECK(cluster.admin("GET", "/api/v1/namespaces/kube-public").body["status"]["phase"] == "Active");

  SECTION("turned off, a create in a missing namespace is stored, and default may go") {
    Cluster off([](apiserver::ApiServerConfig& c) {
      c.disable_admission_plugins = {"NamespaceLifecycle"};
    });
    CHECK(off.admin("POST", "/api/v1/namespaces/nowhere/configmaps",
                    apiserver::testing::configmap("c"))
              .status == 201);
    CHECK(off.admin("DELETE", "/api/v1/namespaces/kube-public").status == 200);
  }
}

TEST_CASE("TaintNodesByCondition taints a new node not-ready", "[admission]") {
  Cluster cluster;
  auto node =
      cluster.admin("POST", "/api/v1/nodes",
                    {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}});
  REQUIRE(node.status == 201);
  CHECK(node.body["spec"]["taints"] ==
        json::parse(R"([{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])"));
}

TEST_CASE("AlwaysDeny, when enabled, refuses every write", "[admission]") {
  // As kube-apiserver's, the server then cannot even write its own namespaces: without
  // NamespaceLifecycle the refusal is AlwaysDeny's own.
  Cluster cluster([](apiserver::ApiServerConfig& c) {
    c.enable_admission_plugins = {"AlwaysDeny"};
    c.disable_admission_plugins = {"NamespaceLifecycle"};
  });
  auto refused =
      cluster.admin("POST", apiserver::testing::kConfigMaps, apiserver::testing::configmap("c"));
  CHECK(refused.status == 403);
  CHECK(refused.body["message"] ==
        "configmaps \"c\" is forbidden: admission control is denying all modifications");
  CHECK(cluster.admin("GET", apiserver::testing::kConfigMaps).status == 200);  // reads pass
}

TEST_CASE("ValidatingAdmissionPolicy says it evaluates nothing yet", "[admission]") {
  Cluster cluster;
  auto created =
      cluster.admin("POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
                    json::parse(R"({"apiVersion":"admissionregistration.k8s.io/v1",
        "kind":"ValidatingAdmissionPolicy","metadata":{"name":"replicas"},
        "spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],
          "apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
          "validations":[{"expression":"object.spec.replicas <= 5"}]}})"));
  CHECK(created.status == 201);
  auto said = notes(cluster, "verb=create&resource=validatingadmissionpolicies", "admission");
  CHECK(any_starts_with(said, "ValidatingAdmissionPolicy: not evaluated: no CEL"));
}

TEST_CASE("the plugin flags are checked as kube-apiserver checks them", "[admission]") {
  using apiserver::admission::enabled_plugins;
  auto defaults = enabled_plugins({});
  REQUIRE(defaults);
  CHECK(defaults->front() == "NamespaceLifecycle");
  CHECK(std::find(defaults->begin(), defaults->end(), "AlwaysDeny") == defaults->end());

  auto unknown = enabled_plugins({{"Nope"}, {}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error() == "enable-admission-plugins plugin \"Nope\" is unknown");
  auto overlap = enabled_plugins({{"AlwaysDeny", "Priority"}, {"Priority", "AlwaysDeny"}});
  REQUIRE_FALSE(overlap);
  CHECK(overlap.error() ==
        "[AlwaysDeny Priority] in enable-admission-plugins and disable-admission-plugins "
        "overlapped");
  auto missing = enabled_plugins({{"PodNodeSelector"}, {}});
  REQUIRE_FALSE(missing);
  CHECK(missing.error() == "admission plugin \"PodNodeSelector\" is not available in kube-sandbox");

  // Whatever order the flag names them in, they run in upstream's.
  auto ordered = enabled_plugins({{"AlwaysDeny", "AlwaysAdmit"}, {"Priority"}});
  REQUIRE(ordered);
  CHECK(ordered->front() == "AlwaysAdmit");
  CHECK(ordered->back() == "AlwaysDeny");
  CHECK(std::find(ordered->begin(), ordered->end(), "Priority") == ordered->end());
}
