#include "services/endpoints_controller.h"

#include "client/objects.h"
#include "services/endpoint_subsets.h"

namespace cluster {
namespace {

const ResourceRef kEndpoints{"", "v1", "endpoints", true};
// Leader election records kept in Endpoints: they have no service and must stay.
constexpr const char* kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";

}  // namespace

EndpointsController::EndpointsController(const Client& client, Informer& services, Informer& pods,
                                         const common::Clock& clock)
    : Controller("endpoints-controller", clock),
      client_(client),
      events_(client, "endpoint-controller", "", clock),
      endpoints_(client, kEndpoints, {}, clock),
      services_(services),
      pods_(pods) {
  watch_services(services_, pods_, queue());
  // A deleted Endpoints object of a service that still selects pods is written again.
  endpoints_.add_handlers({.added = nullptr, .updated = nullptr, .deleted = [this](const json& e) {
                             queue().add(Informer::key_of(e));
                           }});
}

EndpointsController::~EndpointsController() {
  stop();
  endpoints_.stop();
}

void EndpointsController::start() {
  endpoints_.start();
  for (const ObjectPtr& e : endpoints_.list()) {
    if (at(*e, {"metadata", "annotations", kLeaderAnnotation}) == nullptr) {
      queue().add(Informer::key_of(*e));
    }
  }
}

std::optional<std::string> EndpointsController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr service = services_.get(ns, name);
  if (service == nullptr) {
    auto removed = client_.remove(kEndpoints.object(ns, name));
    if (!removed && !removed.error().not_found()) {
      return "deleting Endpoints " + key + ": " + removed.error().message;
    }
    trigger_times_.forget(key);
    std::lock_guard lock(mu_);
    stale_.erase(key);
    return std::nullopt;
  }
  auto selector = service_selector(*service);
  if (!selector) {
    return std::nullopt;
  }
  std::vector<ObjectPtr> held;
  std::vector<const json*> pods;
  for (ObjectPtr& pod : selected_pods(pods_, ns, *selector)) {
    pods.push_back(pod.get());
    held.push_back(std::move(pod));
  }
  // Computed on every sync, so the next one sees what changed since this one.
  const auto trigger_time = trigger_times_.compute(*service, pods);
  const json subsets = endpoint_subsets(*service, pods);
  ObjectPtr current = endpoints_.get(ns, name);
  if (current != nullptr) {
    std::lock_guard lock(mu_);
    auto it = stale_.find(key);
    if (it != stale_.end() && it->second == resource_version_of(*current)) {
      return "endpoints informer cache is out of date, resource version " + it->second +
             " already processed for endpoints " + key;
    }
  }
  auto wanted = endpoints_to_write(*service, current.get(), subsets, trigger_time);
  if (!wanted) {
    return std::nullopt;
  }
  if (current == nullptr) {
    auto created = client_.create(kEndpoints.collection(ns), *wanted);
    if (!created) {
      // A terminating namespace takes no new objects: drop the key.
      if (created.error().code == 403 &&
          created.error().message.find("being terminated") != std::string::npos) {
        return std::nullopt;
      }
      events_.record(
          *wanted, "Warning", "FailedToCreateEndpoint",
          "Failed to create endpoint for service " + key + ": " + created.error().message);
      return "creating Endpoints " + key + ": " + created.error().message;
    }
    return std::nullopt;
  }
  auto updated = client_.update(kEndpoints.object(ns, name), *wanted);
  if (!updated) {
    events_.record(*wanted, "Warning", "FailedToUpdateEndpoint",
                   "Failed to update endpoint " + key + ": " + updated.error().message);
    return "updating Endpoints " + key + ": " + updated.error().message;
  }
  if (resource_version_of(*updated) != resource_version_of(*current)) {
    std::lock_guard lock(mu_);
    stale_[key] = resource_version_of(*current);
  }
  return std::nullopt;
}

}  // namespace cluster
