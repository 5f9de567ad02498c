// What the Endpoints controller writes for one Service, as a pure function of the service and
// the pods it selects: upstream's syncService without the API calls.
//
// Each pod that belongs in endpoints (terminating ones only with publishNotReadyAddresses) gives
// one address (its IP of the service's family, its node, a targetRef to it) per service port it
// has a target for: ready when the pod is Ready or the service publishes unready addresses,
// not ready otherwise. The addresses are then repacked: each subset holds the ports that reach
// exactly the same addresses (a not ready address stays not ready for a port), addresses sorted
// by IP, then pod uid. Upstream orders ports and subsets by a hash of their contents; here they
// are ordered by their contents, which is as stable and as meaningless.
//
// Example: ports http (8080 on both pods) and metrics (9090 on pod a only), a Ready and b not:
//   [{addresses [a], notReadyAddresses [b], ports [http 8080]},
//    {addresses [a], ports [metrics 9090]}]
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

inline constexpr const char* kOverCapacity = "endpoints.kubernetes.io/over-capacity";
// Upstream's maxCapacity: an Endpoints object keeps at most this many addresses.
inline constexpr size_t kMaxEndpointsAddresses = 1000;

json endpoint_subsets(const json& service, const std::vector<const json*>& pods);

// Cuts `subsets` down to kMaxEndpointsAddresses addresses, ready ones first, each subset keeping
// its share; false when they fit already.
bool truncate_subsets(json& subsets);

// The Endpoints object to create or update for `service` (`current`: the one there is, or null),
// or nullopt when `current` already holds these subsets and the service's labels.
std::optional<json> endpoints_to_write(
    const json& service, const json* current, const json& subsets,
    const std::optional<std::chrono::system_clock::time_point>& trigger_time);

}  // namespace cluster
