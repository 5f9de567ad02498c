// The taint eviction controller, as kube-controller-manager's: a pod on a node with a NoExecute
// taint it does not tolerate is deleted at once; one that tolerates it for tolerationSeconds is
// deleted that long after the taint was added (its timeAdded, else when this controller first
// saw that the pod must go, as upstream's eviction queue keeps it). Before deleting, the pod gets
// the DisruptionTarget condition (DeletionByTaintManager) and a TaintManagerEviction event. With
// the node lifecycle controller's unreachable and not-ready taints (and the API server's default
// 300 s tolerations) this is how pods leave a node that stopped heartbeating.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"

namespace cluster {

class TaintEvictionController final : public Controller {
 public:
  TaintEvictionController(const Client& client, Informer& pods, Informer& nodes,
                          const common::Clock& clock);
  ~TaintEvictionController() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  const Client& client_;
  EventRecorder events_;
  Informer& pods_;
  Informer& nodes_;
  std::mutex mu_;
  std::map<std::string, std::chrono::system_clock::time_point> first_seen_;  // pod key -> time
};

// How long `pod` may stay on a node with `taint` (NoExecute): nullopt when it tolerates it for
// ever, zero when not at all, else its tolerationSeconds (at least 0).
std::optional<std::chrono::seconds> toleration_time(const json& pod, const json& taint);

}  // namespace cluster
