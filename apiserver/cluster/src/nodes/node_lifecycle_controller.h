// The node lifecycle controller, as kube-controller-manager's (user node-controller, events from
// "node-controller"). Three loops on one worker:
//
// - Monitor ("monitor", every --node-monitor-period): a node's kubelet is alive while its Lease in
//   kube-node-lease is renewed or its Ready heartbeat changes, as this controller sees it happen
//   on its own clock. After --node-monitor-grace-period of silence (60 s for a node that never
//   reported Ready) Ready, MemoryPressure, DiskPressure and PIDPressure turn Unknown
//   (NodeStatusUnknown, "Kubelet stopped posting node status."), the node gets a NodeNotReady
//   event and its pods Ready=False with a NodeNotReady event each. A node not Ready (as the pass
//   found it) is queued in its zone for the NoExecute taint: not-ready for Ready False,
//   unreachable for Unknown; a Ready node loses both. New nodes get a RegisteredNode event,
//   removed ones RemovingNode.
// - Tainting ("taint"): the zones' queues let one node through every 10 s each
//   (--node-eviction-rate 0.1); none in a zone that is partially disrupted (small cluster), and
//   none anywhere while every zone is fully disrupted: then the NoExecute taints come off, as
//   evicting everything would not help.
// - NoSchedule taints ("node/<name>", on every change of a node): the taints that mirror its
//   conditions (not-ready, unreachable, memory-, disk-, pid-pressure, network-unavailable).
//   A pod bound to a node that is not Ready ("pod/<ns>/<name>") is marked Ready=False too.
//
// The taint eviction controller then deletes the pods that do not tolerate the NoExecute taints
// (by default for 300 s, tolerations the API server adds to every pod).
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "nodes/node_health.h"
#include "nodes/zone_tainter.h"

namespace cluster {

// kube-controller-manager's node lifecycle settings.
struct NodeMonitorTiming {
  std::chrono::milliseconds grace_period{std::chrono::seconds(50)};   // --node-monitor-grace-period
  std::chrono::milliseconds monitor_period{std::chrono::seconds(5)};  // --node-monitor-period
  std::chrono::milliseconds startup_grace_period{std::chrono::seconds(60)};
};

class NodeLifecycleController final : public Controller {
 public:
  // `pods`, `nodes`: kube-controller-manager's shared informers, started by the caller.
  NodeLifecycleController(const Client& client, Informer& pods, Informer& nodes,
                          NodeMonitorTiming timing, const common::Clock& clock);
  ~NodeLifecycleController() override;

  void start() override;
  void stop_informers() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  // What the controller last saw of a node's kubelet, and when (its own wall clock).
  struct Health {
    std::chrono::system_clock::time_point probe;  // the last sign of life
    std::string heartbeat;                        // Ready's lastHeartbeatTime then
    std::string renew_time;                       // the lease's renewTime then
  };
  // Ready as the pass found it ("" when the node has none) and after the pass.
  struct Readiness {
    std::string observed;
    std::string current;
    bool written = true;  // false: writing Unknown failed, the node waits for the next pass
  };

  std::optional<std::string> monitor();
  std::optional<std::string> taint_pass();
  std::optional<std::string> sync_no_schedule(const std::string& name);
  std::optional<std::string> sync_pod(const std::string& key);

  void see_new_and_removed_nodes(const std::vector<ObjectPtr>& nodes);
  Readiness update_health(const json& node, std::chrono::system_clock::time_point wall);
  void taint_by_readiness(const json& node, const std::string& observed);
  void queue_for_taint(const json& node, const std::string& status);
  // Removes both NoExecute taints and takes the node out of its zone's queue.
  void mark_reachable(const json& node);
  // The pods get Ready=False (MarkPodsNotReady), each with an event; false when a write failed.
  bool mark_pods_not_ready(const std::vector<ObjectPtr>& pods);
  void handle_disruption(const std::map<std::string, std::vector<std::string>>& zones,
                         const std::vector<ObjectPtr>& nodes);
  void set_zone_rate(const std::string& zone, double rate);
  ZoneTainter& tainter(const json& node);
  // Reads the node afresh, changes its taints and writes them with its resourceVersion as a
  // precondition, again on a conflict (kube-controller-manager's SwapNodeControllerTaint).
  std::optional<std::string> swap_taints(const std::string& name, const std::vector<json>& add,
                                         const std::vector<json>& remove);

  const Client& client_;
  const NodeMonitorTiming timing_;
  EventRecorder events_;
  Informer& pods_;
  Informer& nodes_;
  Informer leases_;
  // The worker's alone (the informers' handlers only queue keys), so no lock.
  std::map<std::string, ObjectPtr> known_;       // nodes seen, by name (RegisteredNode sent)
  std::map<std::string, Health> health_;         // by node name
  std::set<std::string> retry_not_ready_;        // nodes whose pods still need Ready=False
  std::map<std::string, ZoneTainter> tainters_;  // by zone
  std::map<std::string, ZoneState> zone_states_;
};

}  // namespace cluster
