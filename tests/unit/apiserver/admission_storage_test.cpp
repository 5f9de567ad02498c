// The storage admission plugins: DefaultStorageClass, StorageObjectInUseProtection and
// PersistentVolumeClaimResize, each on a chain of its own (admission_bench.h) and, turned off,
// not at all; then through the whole server.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "admission_bench.h"
#include "authorization_fixture.h"

namespace {

using apiserver::admission::Operation;
using apiserver::testing::AdmissionBench;
using apiserver::testing::Cluster;
using nlohmann::json;

constexpr const char* kClasses = "/apis/storage.k8s.io/v1/storageclasses";
constexpr const char* kClaims = "/api/v1/namespaces/default/persistentvolumeclaims";

json storage_class(const std::string& name, bool is_default, const std::string& created = "",
                   json extra = json::object()) {
  json sc = {{"apiVersion", "storage.k8s.io/v1"},
             {"kind", "StorageClass"},
             {"metadata", {{"name", name}}},
             {"provisioner", "example.com/disk"}};
  if (is_default) {
    sc["metadata"]["annotations"] = {{"storageclass.kubernetes.io/is-default-class", "true"}};
  }
  if (!created.empty()) {
    sc["metadata"]["creationTimestamp"] = created;
  }
  sc.update(extra);
  return sc;
}

json claim(const std::string& name, json spec_extra = json::object()) {
  json spec = {{"accessModes", {"ReadWriteOnce"}},
               {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
  spec.update(spec_extra);
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}};
}

}  // namespace

TEST_CASE("DefaultStorageClass gives a claim without a class the default one", "[admission]") {
  AdmissionBench bench;
  auto chain = bench.chain({"DefaultStorageClass"});
  auto admit = [&](json pvc) {
    return bench.admitted_create(*chain, "", "persistentvolumeclaims", std::move(pvc));
  };

  SECTION("no class marked default: the claim stays without one") {
    bench.put("storage.k8s.io", "storageclasses", storage_class("plain", false));
    CHECK_FALSE(admit(claim("c"))["spec"].contains("storageClassName"));
  }
  SECTION("the one marked default, by the GA or the beta annotation") {
    bench.put("storage.k8s.io", "storageclasses", storage_class("plain", false));
    json beta = storage_class("beta", false);
    beta["metadata"]["annotations"] = {
        {"storageclass.beta.kubernetes.io/is-default-class", "true"}};
    bench.put("storage.k8s.io", "storageclasses", beta);
    CHECK(admit(claim("c"))["spec"]["storageClassName"] == "beta");
  }
  SECTION("an annotation that is not \"true\" marks nothing") {
    json odd = storage_class("odd", false);
    odd["metadata"]["annotations"] = {{"storageclass.kubernetes.io/is-default-class", "True"}};
    bench.put("storage.k8s.io", "storageclasses", odd);
    CHECK_FALSE(admit(claim("c"))["spec"].contains("storageClassName"));
  }
  SECTION("several marked default: the newest, then the first by name") {
    bench.put("storage.k8s.io", "storageclasses",
              storage_class("old", true, "2024-01-01T00:00:00Z"));
    bench.put("storage.k8s.io", "storageclasses",
              storage_class("zeta", true, "2024-03-01T00:00:00Z"));
    bench.put("storage.k8s.io", "storageclasses",
              storage_class("alpha", true, "2024-03-01T00:00:00Z"));
    CHECK(admit(claim("c"))["spec"]["storageClassName"] == "alpha");
  }
  SECTION("a claim that names a class, even \"\", or carries the beta annotation keeps it") {
    bench.put("storage.k8s.io", "storageclasses", storage_class("standard", true));
    CHECK(admit(claim("c", {{"storageClassName", "fast"}}))["spec"]["storageClassName"] == "fast");
    CHECK(admit(claim("c", {{"storageClassName", ""}}))["spec"]["storageClassName"] == "");
    json annotated = claim("c");
    annotated["metadata"]["annotations"] = {{"volume.beta.kubernetes.io/storage-class", "x"}};
    CHECK_FALSE(admit(annotated)["spec"].contains("storageClassName"));
    CHECK(admit(claim("c"))["spec"]["storageClassName"] == "standard");
  }
  SECTION("updates are left alone, and so is a chain without the plugin") {
    bench.put("storage.k8s.io", "storageclasses", storage_class("standard", true));
    json pvc = claim("c");
    const json old = pvc;
    auto update = bench.attributes(Operation::Update, "", "persistentvolumeclaims", &pvc, &old);
    REQUIRE_FALSE(chain->admit(update));
    CHECK_FALSE(pvc["spec"].contains("storageClassName"));
    auto without = bench.chain({});
    auto create = bench.attributes(Operation::Create, "", "persistentvolumeclaims", &pvc);
    REQUIRE_FALSE(without->admit(create));
    CHECK_FALSE(pvc["spec"].contains("storageClassName"));
  }
}

TEST_CASE("StorageObjectInUseProtection adds the protection finalizers on create", "[admission]") {
  AdmissionBench bench;
  auto chain = bench.chain({"StorageObjectInUseProtection"});
  json pvc = claim("c");
  pvc["metadata"]["finalizers"] = {"example.com/keep"};
  auto a = bench.attributes(Operation::Create, "", "persistentvolumeclaims", &pvc);
  REQUIRE_FALSE(chain->admit(a));
  CHECK(pvc["metadata"]["finalizers"] ==
        json({"example.com/keep", "kubernetes.io/pvc-protection"}));
  REQUIRE_FALSE(chain->admit(a));  // once
  CHECK(pvc["metadata"]["finalizers"].size() == 2);

  json pv = {{"apiVersion", "v1"},
             {"kind", "PersistentVolume"},
             {"metadata", {{"name", "v"}}},
             {"spec", {{"capacity", {{"storage", "1Gi"}}}}}};
  auto b = bench.attributes(Operation::Create, "", "persistentvolumes", &pv);
  REQUIRE_FALSE(chain->admit(b));
  CHECK(pv["metadata"]["finalizers"] == json({"kubernetes.io/pv-protection"}));

  json plain = claim("d");
  auto without = bench.chain({});
  auto c = bench.attributes(Operation::Create, "", "persistentvolumeclaims", &plain);
  REQUIRE_FALSE(without->admit(c));
  CHECK_FALSE(plain["metadata"].contains("finalizers"));
}

TEST_CASE("PersistentVolumeClaimResize lets a claim grow only where its class allows it",
          "[admission]") {
  AdmissionBench bench;
  bench.put("storage.k8s.io", "storageclasses", storage_class("rigid", false));
  bench.put("storage.k8s.io", "storageclasses",
            storage_class("elastic", false, "", {{"allowVolumeExpansion", true}}));
  auto chain = bench.chain({"PersistentVolumeClaimResize"});
  // The refusal's message for growing `old` (of class `cls`, in `phase`) to `size`; "" admitted.
  auto grow = [&](const std::string& cls, const std::string& phase, const std::string& size,
                  const std::string& new_class = "same") {
    json old = claim("c", {{"storageClassName", cls}});
    old["status"] = {{"phase", phase}};
    json pvc = old;
    pvc["spec"]["resources"]["requests"]["storage"] = size;
    if (new_class != "same") {
      pvc["spec"]["storageClassName"] = new_class;
    }
    auto a = bench.attributes(Operation::Update, "", "persistentvolumeclaims", &pvc, &old);
    auto refused = chain->validate(a);
    return refused ? refused->message : std::string();
  };
  const std::string kNoResize =
      "persistentvolumeclaims \"c\" is forbidden: only dynamically provisioned pvc can be resized "
      "and the storageclass that provisions the pvc must support resize";
  CHECK(grow("elastic", "Bound", "2Gi") == "");
  CHECK(grow("rigid", "Bound", "2Gi") == kNoResize);
  CHECK(grow("missing", "Bound", "2Gi") == kNoResize);
  CHECK(grow("", "Bound", "2Gi") == kNoResize);
  CHECK(grow("elastic", "Bound", "2Gi", "rigid") == kNoResize);
  CHECK(grow("elastic", "Pending", "2Gi") ==
        "persistentvolumeclaims \"c\" is forbidden: Only bound persistent volume claims can be "
        "expanded");
  // Not growing: the same size in other words, or smaller (validation's to refuse).
  CHECK(grow("rigid", "Bound", "1024Mi") == "");
  CHECK(grow("rigid", "Pending", "512Mi") == "");
  auto without = bench.chain({});
  json old = claim("c", {{"storageClassName", "rigid"}});
  json pvc = claim(
      "c", {{"storageClassName", "rigid"}, {"resources", {{"requests", {{"storage", "5Gi"}}}}}});
  auto a = bench.attributes(Operation::Update, "", "persistentvolumeclaims", &pvc, &old);
  CHECK_FALSE(without->validate(a));
}

TEST_CASE("the storage plugins act on claims written through the API", "[admission]") {
  Cluster cluster;
  REQUIRE(cluster.admin("POST", kClasses, storage_class("standard", true)).status == 201);
  auto created = cluster.admin("POST", kClaims, claim("data"));
  REQUIRE(created.status == 201);
  CHECK(created.body["spec"]["storageClassName"] == "standard");
  CHECK(created.body["metadata"]["finalizers"] == json({"kubernetes.io/pvc-protection"}));

  auto admission =
      cluster.admin("GET", "/debug/requests?verb=create&resource=persistentvolumeclaims")
          .body["items"];
  REQUIRE(admission.is_array());
  REQUIRE_FALSE(admission.empty());
  std::vector<std::string> texts;
  for (const auto& n : admission.back()["notes"]) {
    if (n["layer"] == "admission") {
      texts.push_back(n["text"]);
    }
  }
  INFO(json(texts).dump());
  CHECK(std::find(texts.begin(), texts.end(),
                  "DefaultStorageClass: set spec.storageClassName; the default StorageClass is "
                  "\"standard\"") != texts.end());

  // Grown while Pending, then (as the binder would) Bound: the class does not allow it.
  json grown = created.body;
  grown["spec"]["resources"]["requests"]["storage"] = "2Gi";
  auto pending = cluster.admin("PUT", std::string(kClaims) + "/data", grown);
  CHECK(pending.status == 403);
  CHECK(pending.body["message"] ==
        "persistentvolumeclaims \"data\" is forbidden: Only bound persistent volume claims can be "
        "expanded");
  json bound = created.body;
  bound["status"] = {{"phase", "Bound"}};
  auto status = cluster.admin("PUT", std::string(kClaims) + "/data/status", bound);
  REQUIRE(status.status == 200);
  grown["metadata"]["resourceVersion"] = status.body["metadata"]["resourceVersion"];
  auto refused = cluster.admin("PUT", std::string(kClaims) + "/data", grown);
  CHECK(refused.status == 403);
  CHECK(refused.body["reason"] == "Forbidden");
  CHECK(refused.body["message"] ==
        "persistentvolumeclaims \"data\" is forbidden: only dynamically provisioned pvc can be "
        "resized and the storageclass that provisions the pvc must support resize");

  SECTION("turned off, a claim gets neither class nor finalizer") {
    Cluster off([](apiserver::ApiServerConfig& c) {
      c.disable_admission_plugins = {"DefaultStorageClass", "StorageObjectInUseProtection"};
    });
    REQUIRE(off.admin("POST", kClasses, storage_class("standard", true)).status == 201);
    auto plain = off.admin("POST", kClaims, claim("data"));
    REQUIRE(plain.status == 201);
    CHECK_FALSE(plain.body["spec"].contains("storageClassName"));
    CHECK_FALSE(plain.body["metadata"].contains("finalizers"));
  }
}
