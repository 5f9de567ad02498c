// The EndpointSlice controller, as kube-controller-manager's: for each Service with a selector it
// keeps discovery.k8s.io/v1 EndpointSlices of the pods it selects (slice_plan.h says what they
// hold), labeled kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by, owned by
// the service, and written only when they change. After writing it waits for its informer to
// show what it wrote before it plans again (upstream's endpoint slice tracker), so a stale cache
// never makes it create a slice twice. When a service goes, the garbage collector removes its
// slices (they are owned by it).
// Events: FailedToUpdateEndpointSlices.
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

class EndpointSliceController final : public Controller {
 public:
  // `services`, `pods` and `nodes`: shared informers, started by their owner.
  EndpointSliceController(const Client& client, Informer& services, Informer& pods, Informer& nodes,
                          const common::Clock& clock);
  ~EndpointSliceController() override;

  void start() override;  // starts the slices' informer

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // True when the informer shows every slice this controller last wrote for `key` (at least
  // at the resourceVersion written) and none it deleted.
  bool cache_current(const std::string& key);

  const Client& client_;
  EventRecorder events_;
  Informer slices_;
  Informer& services_;
  Informer& pods_;
  Informer& nodes_;
  TriggerTimes trigger_times_;
  std::mutex mu_;  // protects written_
  // By service key: slice name -> the resourceVersion written, "" for a deleted slice.
  std::map<std::string, std::map<std::string, std::string>> written_;
};

}  // namespace cluster
