// The simulated nodes: one kubelet per Node object, all served by this one controller. Each
// kubelet registers its Node (node-1 ... node-N at start), renews its Lease in kube-node-lease
// every quarter of the lease's duration (10 s of 40 s by default) and reports its status, and runs
// its pods through pod_lifecycle: status written through pods/status, the pod removed once a
// deletion's containers stopped. A Node created through the API is simulated too. Each kubelet
// writes as its node's user (system:node:<name>, group system:nodes), as real kubelets do with
// their client certificates.
//
// A Node annotated kube-sandbox.io/kubelet=stopped has its kubelet stopped (kubelet_stopped): no
// lease renewal, no status, no pod work, so the node lifecycle controller sees it go quiet. When
// the annotation goes, the kubelet starts again: "Starting kubelet.", its status (Ready again) and
// every pod of the node looked at anew (a pod deleted meanwhile is removed then).
//
// Tokens: as the kubelet's token manager, each kubelet asks, as its node, for a service-account
// token bound to each pod it runs whose projected volumes have a serviceAccountToken source
// (pod_tokens), before the pod's containers start, and asks anew when one is due for a refresh.
// The tokens live in this memory only; they are dropped when the pod finishes or goes, and when
// the kubelet starts again (as a restarted kubelet has none). A pod whose first token cannot be
// had stays in ContainerCreating with a FailedMount event, retried with backoff.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "controller.h"
#include "nodes/pod_lifecycle.h"
#include "nodes/pod_tokens.h"

namespace cluster {

class NodeSimulator final : public Controller {
 public:
  // `lease_duration`: the kubelets' nodeLeaseDurationSeconds (at least 1 s).
  NodeSimulator(const Handler& handler, const Client& reader, int initial_nodes, PodTiming timing,
                std::chrono::seconds lease_duration, const common::Clock& clock);
  ~NodeSimulator() override;

  // Registers the initial nodes, then starts the informers (call before run()).
  void start() override;

 protected:
  std::optional<std::string> sync(const std::string& key) override;

 private:
  struct Kubelet {
    std::unique_ptr<Client> client;
    std::unique_ptr<EventRecorder> events;
    int index = 0;
    bool stopped = false;  // as its last sync saw it (the worker's alone)
  };
  Kubelet& kubelet(const std::string& node);
  // The events of a kubelet starting, and those of the conditions its report changed.
  void record_start(Kubelet& k, const json& node);
  void record_status(Kubelet& k, const json& before, const json& after);
  std::optional<std::string> sync_node(const std::string& name);
  std::optional<std::string> sync_pod(const std::string& key);
  // Requests the pod's tokens that are missing or due (see the file's comment) and requeues the
  // pod for the next refresh. Returns the error of a token that could not be had, and sets
  // `mounted` false when the pod lacks one it never had.
  std::optional<std::string> refresh_tokens(Kubelet& k, const json& pod, const std::string& key,
                                            bool& mounted);
  // The pod's address on its node: the one it has, else the lowest free one of the node's CIDR.
  std::string pod_ip(const json& pod, const json& node, int index);

  const Handler handler_;
  const int initial_nodes_;
  const PodTiming timing_;
  const std::chrono::seconds lease_duration_;
  Informer nodes_;
  Informer pods_;
  std::mutex mu_;  // protects kubelets_, next_index_
  std::map<std::string, Kubelet> kubelets_;
  int next_index_ = 1;

  struct PodTokens {
    std::string node;
    std::string uid;                        // the pod's: another pod of the name starts over
    std::map<std::string, HeldToken> held;  // by TokenSource::key()
  };
  std::map<std::string, PodTokens> tokens_;  // by pod key; the worker's alone
};

}  // namespace cluster
