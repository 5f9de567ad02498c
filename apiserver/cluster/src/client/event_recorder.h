// Events, as client-go's event recorder writes them for kube-controller-manager's controllers
// and the kubelets: core/v1 Events in the object's namespace, named <object>.<unique suffix>,
// with the component as their source. A repeat of the same event (same object, type, reason and
// message) updates the first one's count and lastTimestamp instead of adding another, as the
// recorder's correlator does.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <string>

#include "client/api_client.h"
#include "common/clock.h"

namespace cluster {

class EventRecorder {
 public:
  // `component`: "replicaset-controller", "default-scheduler", "kubelet"; `host` the node, for
  // kubelets.
  EventRecorder(const Client& client, std::string component, std::string host,
                const common::Clock& clock);

  // `type`: "Normal" or "Warning". Failures are logged, never returned: an event is best effort.
  void record(const json& object, const std::string& type, const std::string& reason,
              const std::string& message);

 private:
  struct Seen {
    std::string namespace_;
    std::string name;
    int64_t count = 1;
    std::list<std::string>::iterator order;
  };

  const Client& client_;
  const std::string component_;
  const std::string host_;
  const common::Clock& clock_;
  std::mutex mu_;
  std::map<std::string, Seen> seen_;  // by object uid, type, reason, message; the newest 4096
  std::list<std::string> order_;      // oldest first
};

}  // namespace cluster
