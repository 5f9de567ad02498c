// The deprecated core/v1 ComponentStatus API (`kubectl get componentstatuses`): computed on each
// request, never stored. kube-apiserver probes the scheduler's and the controller manager's
// /healthz and checks each etcd server; each answer becomes one ComponentStatus with a Healthy
// condition.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace apiserver {

// One component's Healthy condition.
struct ComponentHealth {
  std::string name;     // scheduler, controller-manager, etcd-0 ...
  std::string status;   // True (the probe succeeded), False (it failed) or Unknown
  std::string message;  // the probe's answer ("ok"), or a failed HTTP probe's error text
  std::string error;    // why the check itself could not be made
};

// The components, in the order listed. Called on the request's thread, once per request.
using ComponentStatusSource = std::function<std::vector<ComponentHealth>()>;

}  // namespace apiserver
