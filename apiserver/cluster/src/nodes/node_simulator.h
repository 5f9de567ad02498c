// The simulated nodes: one kubelet per Node object, all served by this one controller. Each
// kubelet registers its Node (node-1 ... node-N at start), renews its Lease in kube-node-lease
// every 10 s and reports its status, and runs its pods through pod_lifecycle: status written
// through pods/status, the pod removed once a deletion's containers stopped. A Node created
// through the API is simulated too. Each kubelet writes as its node's user (system:node:<name>,
// group system:nodes), as real kubelets do with their client certificates.
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

namespace cluster {

class NodeSimulator final : public Controller {
 public:
  NodeSimulator(const Handler& handler, const Client& reader, int initial_nodes, PodTiming timing,
                const common::Clock& clock);
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
  };
  Kubelet& kubelet(const std::string& node);
  std::optional<std::string> sync_node(const std::string& name);
  std::optional<std::string> sync_pod(const std::string& key);
  // The pod's address on its node: the one it has, else the lowest free one of the node's CIDR.
  std::string pod_ip(const json& pod, const json& node, int index);

  const Handler handler_;
  const int initial_nodes_;
  const PodTiming timing_;
  Informer nodes_;
  Informer pods_;
  std::mutex mu_;  // protects kubelets_, next_index_
  std::map<std::string, Kubelet> kubelets_;
  int next_index_ = 1;
};

}  // namespace cluster
