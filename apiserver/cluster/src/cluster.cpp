#include "cluster/cluster.h"

#include <algorithm>

#include "apiserver/log.h"
#include "autoscaling/horizontal_pod_autoscaler_controller.h"
#include "certificates/csr_signing_controller.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "gc/garbage_collector.h"
#include "nodes/node_lifecycle_controller.h"
#include "nodes/node_simulator.h"
#include "nodes/taint_eviction_controller.h"
#include "scheduler/scheduler.h"
#include "services/endpoint_slice_controller.h"
#include "services/endpoints_controller.h"
#include "volumes/pv_protection_controller.h"
#include "volumes/pvc_protection_controller.h"
#include "workloads/cron_job_controller.h"
#include "workloads/daemon_set_controller.h"
#include "workloads/deployment_controller.h"
#include "workloads/disruption_controller.h"
#include "workloads/job_controller.h"
#include "workloads/replica_set_controller.h"
#include "workloads/resource_quota_controller.h"
#include "workloads/stateful_set_controller.h"
#include "workloads/ttl_after_finished_controller.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kServices{"", "v1", "services", true};
const ResourceRef kNodes{"", "v1", "nodes", false};

// The informers kube-controller-manager's controllers share, started when one uses them.
enum SharedInformer : unsigned { kSharedPods = 1, kSharedServices = 2, kSharedNodes = 4 };

// What every controller may use besides its own client.
struct Shared {
  const Handler& handler;
  Informer& pods;
  Informer& services;
  Informer& nodes;
  const ClusterOptions& options;
  const common::Clock& clock;
};

// A controller the cluster can run: its --controllers names, who it acts as, how it is made.
struct Kind {
  ControllerName name;
  Identity identity;
  std::string agent;
  unsigned shared = 0;  // SharedInformer bits
  std::unique_ptr<Controller> (*make)(const Client& client, const Shared& shared);
};

// A controller's client: kube-controller-manager's --use-service-account-credentials, one
// service account per controller in kube-system.
Identity service_account(const std::string& name) {
  return {"system:serviceaccount:kube-system:" + name,
          {"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}};
}

std::string agent(const std::string& component) {
  return "kube-controller-manager/v1.32.0 (linux/amd64) kube-sandbox/" + component;
}

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all = {
      {{"statefulset-controller", "statefulset", true},
       service_account("statefulset-controller"),
       agent("statefulset-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<StatefulSetController>(c, s.pods, s.clock);
       }},
      {{"daemonset-controller", "daemonset", true},
       service_account("daemon-set-controller"),
       agent("daemonset-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<DaemonSetController>(c, s.pods, s.clock);
       }},
      {{"cronjob-controller", "cronjob", true},
       service_account("cronjob-controller"),
       agent("cronjob-controller"),
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<CronJobController>(c, s.options.cron_clock_speed, s.clock);
       }},
      {{"endpointslice-controller", "endpointslice", true},
       service_account("endpointslice-controller"),
       agent("endpointslice-controller"),
       kSharedPods | kSharedServices | kSharedNodes,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<EndpointSliceController>(c, s.services, s.pods, s.nodes, s.clock);
       }},
      {{"endpoints-controller", "endpoint", true},
       service_account("endpoint-controller"),
       agent("endpoints-controller"),
       kSharedPods | kSharedServices,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<EndpointsController>(c, s.services, s.pods, s.clock);
       }},
      {{"deployment-controller", "deployment", true},
       service_account("deployment-controller"),
       agent("deployment-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<DeploymentController>(c, s.pods, s.clock);
       }},
      {{"replicaset-controller", "replicaset", true},
       service_account("replicaset-controller"),
       agent("replicaset-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<ReplicaSetController>(
             c, ResourceRef{"apps", "v1", "replicasets", true}, s.pods, s.clock);
       }},
      {{"replicationcontroller-controller", "replicationcontroller", true},
       service_account("replication-controller"),
       agent("replicationcontroller-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<ReplicaSetController>(
             c, ResourceRef{"", "v1", "replicationcontrollers", true}, s.pods, s.clock);
       }},
      {{"job-controller", "job", true},
       service_account("job-controller"),
       agent("job-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<JobController>(c, s.pods, s.clock);
       }},
      {{"disruption-controller", "disruption", true},
       service_account("disruption-controller"),
       agent("disruption-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<DisruptionController>(c, s.pods, s.clock);
       }},
      {{"resourcequota-controller", "resourcequota", true},
       service_account("resourcequota-controller"),
       agent("resourcequota-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<ResourceQuotaController>(c, s.pods, s.clock);
       }},
      {{"ttl-after-finished-controller", "ttl-after-finished", true},
       service_account("ttl-after-finished-controller"),
       agent("ttl-after-finished-controller"),
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<TtlAfterFinishedController>(c, s.clock);
       }},
      {{"persistentvolumeclaim-protection-controller", "pvc-protection", true},
       service_account("pvc-protection-controller"),
       agent("persistentvolumeclaim-protection-controller"),
       kSharedPods,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<PvcProtectionController>(c, s.pods, s.clock);
       }},
      {{"persistentvolume-protection-controller", "pv-protection", true},
       service_account("pv-protection-controller"),
       agent("persistentvolume-protection-controller"),
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<PvProtectionController>(c, s.clock);
       }},
      {{"garbage-collector-controller", "garbagecollector", true},
       service_account("generic-garbage-collector"),
       agent("garbage-collector-controller"),
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<gc::GarbageCollector>(c, s.clock);
       }},
      // Upstream's taint eviction controller uses the node controller's account and role.
      {{"taint-eviction-controller", "", true},
       service_account("node-controller"),
       agent("taint-eviction-controller"),
       kSharedPods | kSharedNodes,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<TaintEvictionController>(c, s.pods, s.nodes, s.clock);
       }},
      {{"node-lifecycle-controller", "nodelifecycle", true},
       service_account("node-controller"),
       agent("node-lifecycle-controller"),
       kSharedPods | kSharedNodes,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         NodeMonitorTiming timing;
         timing.grace_period = s.options.node_monitor_grace_period;
         timing.monitor_period = s.options.node_monitor_period;
         return std::make_unique<NodeLifecycleController>(c, s.pods, s.nodes, timing, s.clock);
       }},
      {{"certificatesigningrequest-signing-controller", "csrsigning", true},
       service_account("certificate-controller"),
       agent("certificatesigningrequest-signing-controller"),
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<CsrSigningController>(c, s.options.sign_certificate,
                                                       s.options.cluster_signing_duration, s.clock);
       }},
      {{"horizontal-pod-autoscaler-controller", "horizontalpodautoscaling", true},
       service_account("horizontal-pod-autoscaler"),
       agent("horizontal-pod-autoscaler-controller"),
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<HorizontalPodAutoscalerController>(
             c, s.options.horizontal_pod_autoscaler_sync_period,
             s.options.horizontal_pod_autoscaler_downscale_stabilization, s.clock);
       }},
      {{"scheduler", "", true},
       {"system:kube-scheduler", {"system:authenticated"}},
       "kube-scheduler/v1.32.0 (linux/amd64) kube-sandbox/scheduler",
       0,
       [](const Client& c, const Shared& s) -> std::unique_ptr<Controller> {
         return std::make_unique<Scheduler>(c, s.clock);
       }},
  };
  return all;
}

}  // namespace

const std::vector<ControllerName>& api_server_hosted() {
  static const std::vector<ControllerName> names = {
      {"namespace-controller", "namespace", true},
      {"serviceaccount-controller", "serviceaccount", true},
      {"root-ca-certificate-publisher-controller", "root-ca-cert-publisher", true},
      {"serviceaccount-token-controller", "serviceaccount-token", true},
      {"clusterrole-aggregation-controller", "clusterrole-aggregation", true},
  };
  return names;
}

const std::vector<ControllerName>& known_controllers() {
  static const std::vector<ControllerName> names = [] {
    std::vector<ControllerName> out;
    for (const Kind& k : kinds())
      out.push_back(k.name);
    for (const ControllerName& c : api_server_hosted())
      out.push_back(c);
    return out;
  }();
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
  struct Running {
    std::unique_ptr<Client> client;
    std::unique_ptr<Controller> controller;
  };

  Handler handler;
  ClusterOptions options;
  const common::Clock& clock;
  Client informers_client;  // kube-controller-manager's shared informers
  Client nodes_client;      // the kubelets' informers
  Informer pods;            // the shared informers (SharedInformer)
  Informer services;
  Informer nodes_informer;
  unsigned shared = 0;           // the shared informers some controller uses
  std::vector<Running> running;  // in kinds() order
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
        pods(informers_client, kPods, {}, clock),
        services(informers_client, kServices, {}, clock),
        nodes_informer(informers_client, kNodes, {}, clock) {
    const Shared everything{handler, pods, services, nodes_informer, options, clock};
    for (const Kind& kind : kinds()) {
      if (options.controllers.count(kind.name.name) == 0)
        continue;
      Running r;
      r.client = std::make_unique<Client>(handler, kind.identity, kind.agent);
      r.controller = kind.make(*r.client, everything);
      shared |= kind.shared;
      running.push_back(std::move(r));
    }
    if (options.controllers.count("node-lifecycle-controller") != 0 &&
        options.node_monitor_grace_period < options.node_lease_duration / 2) {
      // Fewer than two lease renewals (a quarter of the duration each) fit in the grace period.
      apiserver::log::warning(
          "node monitor grace period shorter than half the kubelets' lease duration: healthy "
          "nodes will turn Unknown between two lease renewals");
    }
    if (options.nodes > 0) {
      nodes = std::make_unique<NodeSimulator>(
          handler, nodes_client, options.nodes,
          PodTiming{options.container_start_delay, options.container_stop_delay},
          options.node_lease_duration, clock);
    }
  }

  std::vector<Controller*> controllers() const {
    std::vector<Controller*> all;
    if (nodes)
      all.push_back(nodes.get());
    for (const Running& r : running)
      all.push_back(r.controller.get());
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
  for (Controller* c : p.controllers()) {
    c->start();  // the nodes first: registered before anything schedules
  }
  if (p.shared & kSharedPods)
    p.pods.start();
  if (p.shared & kSharedServices)
    p.services.start();
  if (p.shared & kSharedNodes)
    p.nodes_informer.start();
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
    c->stop_informers();
  }
  for (Controller* c : p.controllers()) {
    c->stop();
  }
  p.pods.stop();
  p.services.stop();
  p.nodes_informer.stop();
  p.running.clear();
  p.nodes.reset();
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
