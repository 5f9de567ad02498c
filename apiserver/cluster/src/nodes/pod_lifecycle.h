// What a simulated kubelet does next with one of its pods, as a pure function of the pod and the
// time: no containers run, the pod's status walks the path a real kubelet reports.
//
//   bound to the node        -> Pending, containers waiting (ContainerCreating), startTime set
//   start delay later        -> Running, podIP, containers running; Ready once every container
//                               is ready (at once without a readinessProbe, else after its
//                               initialDelaySeconds)
//   restartPolicy Never or OnFailure, or the annotation kube-sandbox.io/run-seconds (default
//   3 s) set, and the run time over
//                            -> the containers exit with kube-sandbox.io/exit-code (default 0):
//                               Succeeded or Failed (Never; OnFailure after a success), or
//                               restarted in place (OnFailure after a failure, Always after
//                               any exit: such a pod stays Running), with a BackOff event
//   deletionTimestamp set    -> the containers stop (the stop delay, at most the grace
//                               period), then the pod is removed with grace period 0
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cluster {

using nlohmann::json;

struct PodTiming {
  std::chrono::milliseconds start_delay{1000};
  std::chrono::milliseconds stop_delay{1000};
};

struct PodEvent {
  std::string type;  // Normal, Warning
  std::string reason;
  std::string message;
};

struct KubeletStep {
  std::optional<json> status;  // the pod's new status, to write through pods/status
  bool remove = false;         // delete the pod now (grace period 0, the pod's uid as precondition)
  std::optional<std::chrono::milliseconds> recheck;  // look at the pod again after this
  std::vector<PodEvent> events;
};

// `pod_ip`: the address the node gives the pod; `host_ip`: the node's.
KubeletStep next_step(const json& pod, const std::string& pod_ip, const std::string& host_ip,
                      std::chrono::system_clock::time_point now, const PodTiming& timing);

// True when the pod is done (Succeeded or Failed): it holds no address, no resources.
bool pod_terminal(const json& pod);

}  // namespace cluster
