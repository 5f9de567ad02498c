// The scheduler, as kube-scheduler's default profile: it takes each pending pod whose
// schedulerName is default-scheduler, filters the nodes (scheduler/fit.h, then topology spread
// and pod affinity: spread.h, inter_pod.h), scores the feasible ones with the default plugins
// and weights (scores.h), and binds the pod to the best through pods/binding. A pod no node fits
// gets PodScheduled=False (Unschedulable) and a FailedScheduling event in kube-scheduler's
// words, and is tried again when something that could make room changes: a node's scheduling
// properties (labels, taints, allocatable, cordon, conditions), a pod leaving, or (for a pod
// held back by pod affinity or topology spread) a pod placed or relabelled. It writes as
// system:kube-scheduler, its events through events.k8s.io/v1 (reportingController
// default-scheduler; actions Scheduling and Binding).
//
// What each node runs is kept per node from the pods informer (scheduler/cache.h), so an attempt
// does not recount the cluster. As upstream, with 100 nodes or more only a share of them is
// looked at per attempt (percentageOfNodesToScore's adaptive default: 50% minus 1% per 125
// nodes, at least 5% and 100 nodes), starting where the last attempt stopped.
#pragma once

#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "scheduler/cache.h"

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
  // Queues again the pods that fit nowhere when last tried (`placed_pods_only`: only those
  // that other pods' placement could help: pod affinity and topology spread).
  void retry_unschedulable(bool placed_pods_only);
  std::optional<std::string> unschedulable(const json& pod, const std::string& message,
                                           bool placed_pods_matter);
  // upstream's DefaultSelector for the system default spread constraints.
  json default_selector(const json& pod) const;

  const Client& client_;
  EventSeriesRecorder events_;
  Informer pods_;
  Informer nodes_;
  Informer namespaces_;
  Informer services_;
  Informer replication_controllers_;
  Informer replica_sets_;
  Informer stateful_sets_;
  std::mutex mu_;  // protects cache_, unschedulable_, next_start_, random_
  SchedulerCache cache_;
  // Pods that fit nowhere when last tried, and whether placed pods held them back.
  std::map<std::string, bool> unschedulable_;
  size_t next_start_ = 0;  // the node the next attempt starts filtering at
  std::mt19937 random_;    // breaks ties between the best nodes
};

// How many feasible nodes an attempt looks for among `nodes` (percentageOfNodesToScore's
// adaptive default): all of them below 100 nodes.
size_t feasible_nodes_to_find(size_t nodes);

}  // namespace cluster
