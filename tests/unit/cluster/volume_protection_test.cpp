// The PVC protection controller's reading of pods: which claims a pod names, and when it keeps
// one in use.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "volumes/pvc_protection_controller.h"

using nlohmann::json;

TEST_CASE("a pod names its claims and ephemeral volumes' claims", "[pvc-protection]") {
  json p = json::parse(R"({"metadata":{"name":"web"},"spec":{"volumes":[
    {"name":"data","persistentVolumeClaim":{"claimName":"data-claim"}},
    {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{}}}},
    {"name":"cfg","configMap":{"name":"c"}}]}})");
  CHECK(cluster::claims_of_pod(p) == std::vector<std::string>{"data-claim", "web-scratch"});
}

TEST_CASE("only a scheduled pod that has not finished keeps a claim in use", "[pvc-protection]") {
  json p = json::parse(R"({"metadata":{"name":"web"},"spec":{"volumes":[
    {"name":"data","persistentVolumeClaim":{"claimName":"data-claim"}}]},"status":{}})");
  CHECK_FALSE(cluster::pod_uses_claim(p, "data-claim"));  // not scheduled
  p["spec"]["nodeName"] = "node-1";
  p["status"]["phase"] = "Running";
  CHECK(cluster::pod_uses_claim(p, "data-claim"));
  CHECK_FALSE(cluster::pod_uses_claim(p, "other"));
  for (const char* done : {"Succeeded", "Failed"}) {
    p["status"]["phase"] = done;
    CHECK_FALSE(cluster::pod_uses_claim(p, "data-claim"));
  }
}
