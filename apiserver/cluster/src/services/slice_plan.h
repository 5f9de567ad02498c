// What the EndpointSlice controller writes for one Service, as a pure function of the service,
// the pods it selects and the slices it already has: upstream's reconciler.
//
// For each address type the service has (spec.ipFamilies), each pod that belongs in endpoints
// (terminating ones included) becomes an endpoint, grouped by the ports the service's ports
// resolve to on that pod; each group fills slices of at most `max_endpoints`. Existing slices
// keep the endpoints still wanted (updated when their conditions, node or zone changed) and
// lose the others; leftover endpoints go first into slices already being updated, then into
// the unchanged slice they fill closest to full, then into new slices. A service with no
// endpoints keeps one empty "placeholder" slice. A slice about to be deleted is reused for one
// about to be created (an update instead of a delete and a create).
//
// Example: service web (ports http→"http"), pods a (Ready, port http=8080) and b (not Ready,
// no port "http"): two groups, {http:8080}: [a] and {}: [b], so two slices,
// web-xxxxx {ports [http 8080], endpoints [a ready]} and web-yyyyy {ports [], endpoints [b]}.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

inline constexpr const char* kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr const char* kManagedByLabel = "endpointslice.kubernetes.io/managed-by";
inline constexpr const char* kSliceManager = "endpointslice-controller.k8s.io";
inline constexpr const char* kZoneLabel = "topology.kubernetes.io/zone";
// kube-controller-manager's --max-endpoints-per-slice default.
inline constexpr size_t kMaxEndpointsPerSlice = 100;

// The zone of the named node ("" when it has no zone label), nullopt when there is no such node.
using NodeZone = std::function<std::optional<std::string>(const std::string& node)>;

struct SliceInputs {
  const json& service;
  std::vector<const json*> pods;    // the pods the service selects
  std::vector<const json*> slices;  // the service's slices managed by the controller, live ones
  NodeZone node_zone;
  std::optional<std::chrono::system_clock::time_point> trigger_time;
  size_t max_endpoints = kMaxEndpointsPerSlice;
};

struct SlicePlan {
  std::vector<json> create;  // new slices, named by generateName
  std::vector<json> update;  // whole slices, with the resourceVersion they were read at
  std::vector<json> remove;  // the slices to delete, as read
  // Pods left out for now (their node is unknown): the service is synced again later.
  std::vector<std::string> errors;
};

SlicePlan plan_slices(const SliceInputs& in);

// The building blocks, for tests.
// "IPv4", "IPv6": from spec.ipFamilies, else the clusterIP's family, else both.
std::vector<std::string> address_types(const json& service);
// The slice ports of `pod` for `service`: each service port whose target the pod has.
json endpoint_ports(const json& service, const json& pod);
// The endpoint of `pod` for addresses of `address_type`; `zone` its node's zone.
json pod_endpoint(const json& pod, const std::optional<std::string>& zone, const json& service,
                  const std::string& address_type);
// The labels a slice of `service` carries: the service's own (but the reserved ones), the
// service name, the manager, and service.kubernetes.io/headless for a headless service.
// `changed`: the slice's non-reserved labels differ from the service's.
json slice_labels(const json& slice, const json& service, bool* changed = nullptr);

}  // namespace cluster
