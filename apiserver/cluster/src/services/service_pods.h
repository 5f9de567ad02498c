// What the Endpoints and EndpointSlice controllers both read from a Service and its pods, as
// kube-controller-manager's endpoint utilities do: which pods a service selects, which of them
// belong in its endpoints, the container port a service port resolves to on one pod, and the
// last-change trigger time each controller writes as
// endpoints.kubernetes.io/last-change-trigger-time. Pure functions of the objects, except
// TriggerTimes, which remembers what the last sync saw.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/informer.h"
#include "common/work_queue.h"

namespace cluster {

using nlohmann::json;

inline constexpr const char* kLastChangeTriggerTime =
    "endpoints.kubernetes.io/last-change-trigger-time";
inline constexpr const char* kHeadlessLabel = "service.kubernetes.io/headless";

// The service's spec.selector when it selects pods; nullopt for a service without one (absent,
// null or empty: an empty map does not survive the API's encoding), or an ExternalName service.
// Such services get no endpoints from the controllers.
std::optional<json> service_selector(const json& service);
// Whether `pod` carries every label of `selector` (a map of strings).
bool selects(const json& selector, const json& pod);
// The keys ("ns/name") of the services among `services` whose selector takes `pod`.
std::vector<std::string> services_selecting(const std::vector<ObjectPtr>& services,
                                            const json& pod);
// Queues a service's key when it changes, and those of the services selecting a pod (before or
// after) when the pod changes. Before the informers start; `queue` outlives their handlers.
void watch_services(Informer& services, Informer& pods, common::WorkQueue& queue);
// The pods of `ns` that `selector` takes.
std::vector<ObjectPtr> selected_pods(const Informer& pods, const std::string& ns,
                                     const json& selector);
// spec.clusterIP is set and not "None".
bool service_ip_set(const json& service);

// Whether a pod belongs in a service's endpoints at all: not terminal (Succeeded, Failed), has an
// IP, and not being deleted unless `include_terminating`.
bool pod_in_endpoints(const json& pod, bool include_terminating);
// The container port `service_port` reaches on `pod`: a numeric targetPort as it is (the port
// when none), a named one looked up among the containers' (and restartable init containers')
// ports of the same protocol; nullopt when no port has that name.
std::optional<int64_t> find_port(const json& pod, const json& service_port);
// The pod's spec.hostname when the service publishes it: the pod's subdomain is the service's
// name in the same namespace.
std::optional<std::string> published_hostname(const json& pod, const json& service);

// The last-change trigger time of a service's endpoints, as upstream's TriggerTimeTracker
// computes it: the service's creationTimestamp the first time a service is synced, afterwards
// the earliest of the pods' Ready lastTransitionTimes that moved since the previous sync (none:
// no time, and the annotation is cleared). Thread-safe; one sync per service at a time.
class TriggerTimes {
 public:
  std::optional<std::chrono::system_clock::time_point> compute(
      const json& service, const std::vector<const json*>& pods);
  void forget(const std::string& key);

 private:
  struct Seen {
    std::map<std::string, std::chrono::system_clock::time_point> pods;  // by pod name
    std::optional<std::chrono::system_clock::time_point> service;
  };
  std::mutex mu_;                     // protects seen_
  std::map<std::string, Seen> seen_;  // by "ns/name" of the service
};

}  // namespace cluster
