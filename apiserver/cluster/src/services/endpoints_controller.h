// The Endpoints controller, as kube-controller-manager's: for each Service with a selector it
// keeps the v1 Endpoints of the same name (endpoint_subsets.h says what they hold), with the
// service's labels, service.kubernetes.io/headless for a headless service and the
// endpoints.kubernetes.io/last-change-trigger-time annotation, written only when they change.
// When a service goes, so do its Endpoints; at start, Endpoints without a service are looked
// at (and deleted). Services without a selector, such as `kubernetes` in default (whose
// Endpoints the API server keeps), are left alone. Events: FailedToCreateEndpoint,
// FailedToUpdateEndpoint.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "services/service_pods.h"

namespace cluster {

class EndpointsController final : public Controller {
 public:
  // `services` and `pods`: shared informers, started by their owner.
  EndpointsController(const Client& client, Informer& services, Informer& pods,
                      const common::Clock& clock);
  ~EndpointsController() override;

  // Starts the Endpoints' informer and queues every Endpoints object it lists.
  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  const Client& client_;
  EventRecorder events_;
  Informer endpoints_;
  Informer& services_;
  Informer& pods_;
  TriggerTimes trigger_times_;
  std::mutex mu_;  // protects stale_
  // By key: the resourceVersion an update replaced; the informer showing it is behind.
  std::map<std::string, std::string> stale_;
};

}  // namespace cluster
