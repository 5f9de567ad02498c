// The scheduler, as kube-scheduler's default profile in miniature: it takes each pending pod
// whose schedulerName is default-scheduler, filters the nodes (scheduler/fit.h), picks the one
// with the most room left (NodeResourcesFit's LeastAllocated score, then the fewest pods), and
// binds the pod there through pods/binding. A pod no node fits gets PodScheduled=False
// (Unschedulable) and a FailedScheduling event in kube-scheduler's words, and is tried again when
// a node or a pod changes. It writes as system:kube-scheduler.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "scheduler/fit.h"

namespace cluster {

class Scheduler final : public Controller {
 public:
  Scheduler(const Client& client, const common::Clock& clock);
  ~Scheduler() override;

  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  bool wants(const json& pod) const;
  void retry_unschedulable();
  std::optional<std::string> unschedulable(const json& pod, const std::string& message);

  const Client& client_;
  EventRecorder events_;
  Informer pods_;
  Informer nodes_;
  std::mutex mu_;
  std::set<std::string> unschedulable_;         // pods that fit nowhere when last tried
  std::map<std::string, std::string> assumed_;  // pods bound but not yet seen bound: pod -> node
};

}  // namespace cluster
