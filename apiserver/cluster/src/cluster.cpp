#include "cluster/cluster.h"

#include <algorithm>

#include "client/api_client.h"
#include "client/informer.h"
#include "nodes/node_lifecycle_controller.h"
#include "nodes/node_simulator.h"
#include "scheduler/scheduler.h"
#include "workloads/daemon_set_controller.h"
#include "workloads/replica_set_controller.h"
#include "workloads/stateful_set_controller.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};

// A controller's client: kube-controller-manager's --use-service-account-credentials, one
// service account per controller in kube-system.
Identity service_account(const std::string& name) {
  return {"system:serviceaccount:kube-system:" + name,
          {"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}};
}

std::string agent(const std::string& component) {
  return "kube-controller-manager/v1.32.0 (linux/amd64) kube-sandbox/" + component;
}

}  // namespace

const std::vector<ControllerName>& known_controllers() {
  static const std::vector<ControllerName> names = {
      {"replicaset-controller", "replicaset", true},
      {"replicationcontroller-controller", "replicationcontroller", true},
      {"statefulset-controller", "statefulset", true},
      {"daemonset-controller", "daemonset", true},
      {"node-lifecycle-controller", "nodelifecycle", true},
      {"scheduler", "", true},
  };
  return names;
}

common::Result<std::set<std::string>> parse_controllers(const std::string& spec) {
  std::set<std::string> on;
  std::set<std::string> off;
  bool star = false;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos)
      end = spec.size();
    std::string item = spec.substr(start, end - start);
    start = end + 1;
    if (item.empty())
      continue;
    if (item == "*") {
      star = true;
      continue;
    }
    const bool disable = item.front() == '-';
    if (disable)
      item.erase(0, 1);
    const auto& known = known_controllers();
    auto it = std::find_if(known.begin(), known.end(), [&](const ControllerName& c) {
      return c.name == item || (!c.alias.empty() && c.alias == item);
    });
    if (it == known.end()) {
      return common::Result<std::set<std::string>>::failure(
          "\"" + item + "\" is not in the list of known controllers");
    }
    (disable ? off : on).insert(it->name);
  }
  std::set<std::string> result;
  for (const ControllerName& c : known_controllers()) {
    if (off.count(c.name) != 0)
      continue;
    if (on.count(c.name) != 0 || (star && c.on_by_default))
      result.insert(c.name);
  }
  return result;
}

struct Cluster::Parts {
  Handler handler;
  ClusterOptions options;
  const common::Clock& clock;
  // Clients first: the informers and controllers below refer to them.
  Client informers_client;  // kube-controller-manager's shared informers
  Client nodes_client;      // the kubelets' informers
  Client replicaset_client;
  Client replication_client;
  Client statefulset_client;
  Client daemonset_client;
  Client scheduler_client;
  Client node_lifecycle_client;
  Informer pods;  // shared by the workload controllers
  std::unique_ptr<ReplicaSetController> replicasets;
  std::unique_ptr<ReplicaSetController> replication;
  std::unique_ptr<StatefulSetController> statefulsets;
  std::unique_ptr<DaemonSetController> daemonsets;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<NodeLifecycleController> node_lifecycle;
  std::unique_ptr<NodeSimulator> nodes;
  bool started = false;

  Parts(Handler h, ClusterOptions o)
      : handler(std::move(h)),
        options(std::move(o)),
        clock(options.clock != nullptr ? *options.clock : common::Clock::real()),
        informers_client(handler, {"system:kube-controller-manager", {"system:authenticated"}},
                         agent("shared-informers")),
        nodes_client(
            handler,
            {"system:kube-sandbox:node-simulator", {"system:nodes", "system:authenticated"}},
            "kubelet/v1.32.0 (linux/amd64) kube-sandbox"),
        replicaset_client(handler, service_account("replicaset-controller"),
                          agent("replicaset-controller")),
        replication_client(handler, service_account("replication-controller"),
                           agent("replicationcontroller-controller")),
        statefulset_client(handler, service_account("statefulset-controller"),
                           agent("statefulset-controller")),
        daemonset_client(handler, service_account("daemon-set-controller"),
                         agent("daemonset-controller")),
        scheduler_client(handler, {"system:kube-scheduler", {"system:authenticated"}},
                         "kube-scheduler/v1.32.0 (linux/amd64) kube-sandbox/scheduler"),
        node_lifecycle_client(handler, service_account("node-controller"),
                              agent("node-lifecycle-controller")),
        pods(informers_client, kPods, {}, clock) {
    auto on = [&](const char* name) { return options.controllers.count(name) != 0; };
    if (on("replicaset-controller")) {
      replicasets = std::make_unique<ReplicaSetController>(
          replicaset_client, ResourceRef{"apps", "v1", "replicasets", true}, pods, clock);
    }
    if (on("replicationcontroller-controller")) {
      replication = std::make_unique<ReplicaSetController>(
          replication_client, ResourceRef{"", "v1", "replicationcontrollers", true}, pods, clock);
    }
    if (on("statefulset-controller")) {
      statefulsets = std::make_unique<StatefulSetController>(statefulset_client, pods, clock);
    }
    if (on("daemonset-controller")) {
      daemonsets = std::make_unique<DaemonSetController>(daemonset_client, pods, clock);
    }
    if (on("node-lifecycle-controller")) {
      node_lifecycle = std::make_unique<NodeLifecycleController>(node_lifecycle_client, clock);
    }
    if (on("scheduler")) {
      scheduler = std::make_unique<Scheduler>(scheduler_client, clock);
    }
    if (options.nodes > 0) {
      nodes = std::make_unique<NodeSimulator>(
          handler, nodes_client, options.nodes,
          PodTiming{options.container_start_delay, options.container_stop_delay}, clock);
    }
  }

  std::vector<Controller*> controllers() const {
    std::vector<Controller*> all;
    for (Controller* c : std::initializer_list<Controller*>{
             replicasets.get(), replication.get(), statefulsets.get(), daemonsets.get(),
             scheduler.get(), node_lifecycle.get(), nodes.get()}) {
      if (c != nullptr)
        all.push_back(c);
    }
    return all;
  }
};

Cluster::Cluster(Handler handler, ClusterOptions options)
    : parts_(std::make_unique<Parts>(std::move(handler), std::move(options))) {}

Cluster::~Cluster() {
  stop();
}

void Cluster::start() {
  Parts& p = *parts_;
  if (p.started) {
    return;
  }
  p.started = true;
  if (p.nodes)
    p.nodes->start();
  if (p.node_lifecycle)
    p.node_lifecycle->start();
  if (p.scheduler)
    p.scheduler->start();
  if (p.replicasets)
    p.replicasets->start();
  if (p.replication)
    p.replication->start();
  if (p.statefulsets)
    p.statefulsets->start();
  if (p.daemonsets)
    p.daemonsets->start();
  if (p.replicasets || p.replication || p.statefulsets || p.daemonsets)
    p.pods.start();
  for (Controller* c : p.controllers()) {
    c->run();
  }
}

void Cluster::stop() {
  if (!parts_) {
    return;
  }
  Parts& p = *parts_;
  for (Controller* c : p.controllers()) {
    c->stop();
  }
  p.pods.stop();
  p.nodes.reset();
  p.scheduler.reset();
  p.node_lifecycle.reset();
  p.daemonsets.reset();
  p.statefulsets.reset();
  p.replication.reset();
  p.replicasets.reset();
}

bool Cluster::idle(std::chrono::milliseconds horizon) const {
  const auto until = parts_->clock.now() + horizon;
  for (Controller* c : parts_->controllers()) {
    if (!c->queue().idle(until))
      return false;
  }
  return true;
}

}  // namespace cluster
