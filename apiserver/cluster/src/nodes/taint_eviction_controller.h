// The taint eviction controller, as kube-controller-manager's (user taint-eviction-controller):
// a pod on a node with NoExecute taints it does not all tolerate is deleted at once; one that
// tolerates them for a while is deleted that long (the shortest tolerationSeconds of the
// tolerations used) after this controller first saw that it must go. Before deleting, the pod
// gets the DisruptionTarget condition (DeletionByTaintManager, "Taint manager: deleting due to
// NoExecute taint") and a TaintManagerEviction event "Marking for deletion Pod <ns>/<name>"; a
// pending deletion that is called off (the taints went, the pod went, its tolerations changed)
// gets "Cancelling deletion of Pod <ns>/<name>". With the node lifecycle controller's
// unreachable and not-ready taints (and the API server's default 300 s tolerations) this is how
// pods leave a node that stopped heartbeating.
//
// Keys: "pod/<ns>/<name>" when a pod is bound, moved or its tolerations change (or it goes),
// "node/<name>" when a node's NoExecute taints change, "evict/<ns>/<name>" when a pending
// deletion is due.
#pragma once

#include <chrono>
#include <map>
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
  using TimePoint = std::chrono::system_clock::time_point;
  struct Pending {
    TimePoint created;  // when this controller decided the pod must go
    TimePoint due;
  };

  std::optional<std::string> sync_pod(const std::string& key);
  std::optional<std::string> sync_node(const std::string& name);
  std::optional<std::string> fire(const std::string& key);
  // The pod `key` on a node with these NoExecute `taints`: deleted now, later, or never.
  std::optional<std::string> decide(const std::string& key, const json& pod, const json& taints,
                                    TimePoint now);
  // Calls a pending deletion off, with its event; nothing when none is pending.
  void cancel(const std::string& key);
  std::optional<std::string> evict(const std::string& key);

  const Client& client_;
  EventRecorder events_;
  Informer& pods_;
  Informer& nodes_;
  std::map<std::string, Pending> pending_;  // by pod key; the worker's alone, so no lock
};

// Whether `pod` tolerates every taint of `taints` (an array of NoExecute taints), each by its
// first matching toleration, and for how long: the shortest tolerationSeconds of those
// tolerations (zero when one is 0 or less), nullopt when none has one (for ever).
struct TaintTolerance {
  bool tolerated = true;
  std::optional<std::chrono::seconds> seconds;
};
TaintTolerance taint_tolerance(const json& pod, const json& taints);

// How long `pod` may stay on a node with `taint` (NoExecute): nullopt when it tolerates it for
// ever, zero when not at all, else its tolerationSeconds.
std::optional<std::chrono::seconds> toleration_time(const json& pod, const json& taint);

}  // namespace cluster
