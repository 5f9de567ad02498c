// A create body per kind: decoded, defaulted and validated as a POST with dryRun=All (nothing is
// stored). Input: one letter choosing the kind (kKinds, 'a' = the first), one byte choosing the
// encoding ('y': application/yaml, anything else: application/json), then the body.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "support/api_harness.h"
#include "support/framed_request.h"

namespace {

// Collections, one per letter a..z.
constexpr std::array<std::string_view, 26> kKinds = {
    "/api/v1/namespaces/default/configmaps",                               // a
    "/api/v1/namespaces/default/secrets",                                  // b
    "/api/v1/namespaces/default/pods",                                     // c
    "/api/v1/namespaces/default/services",                                 // d
    "/api/v1/namespaces",                                                  // e
    "/apis/apps/v1/namespaces/default/deployments",                        // f
    "/apis/apps/v1/namespaces/default/statefulsets",                       // g
    "/apis/apps/v1/namespaces/default/daemonsets",                         // h
    "/apis/apps/v1/namespaces/default/replicasets",                        // i
    "/apis/batch/v1/namespaces/default/jobs",                              // j
    "/apis/batch/v1/namespaces/default/cronjobs",                          // k
    "/apis/networking.k8s.io/v1/namespaces/default/ingresses",             // l
    "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",       // m
    "/api/v1/namespaces/default/persistentvolumeclaims",                   // n
    "/api/v1/persistentvolumes",                                           // o
    "/api/v1/namespaces/default/serviceaccounts",                          // p
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",         // q
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",  // r
    "/apis/rbac.authorization.k8s.io/v1/clusterroles",                     // s
    "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",    // t
    "/apis/policy/v1/namespaces/default/poddisruptionbudgets",             // u
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",             // v
    "/api/v1/namespaces/default/events",                                   // w
    "/api/v1/nodes",                                                       // x
    "/api/v1/namespaces/default/limitranges",                              // y
    "/api/v1/namespaces/default/resourcequotas",                           // z
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) {
    return 0;
  }
  const std::string_view collection = kKinds[static_cast<uint8_t>(data[0] - 'a') % kKinds.size()];
  apiserver::http::Request request;
  request.method = "POST";
  fuzz::set_target(request, std::string(collection) + "?dryRun=All");
  request.headers["Content-Type"] = data[1] == 'y' ? "application/yaml" : "application/json";
  request.body.assign(reinterpret_cast<const char*>(data) + 2, size - 2);
  request.remote_address = "127.0.0.1";
  fuzz::ApiHarness::get().send(request);
  return 0;
}
