#include "nodes/node_simulator.h"

#include <charconv>

#include "apiserver/log.h"
#include "client/objects.h"
#include "common/rfc3339.h"
#include "nodes/simulated_node.h"

namespace cluster {
namespace {

const ResourceRef kNodes{"", "v1", "nodes", false};
const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};
constexpr const char* kLeaseNamespace = "kube-node-lease";

// The kubelet's defaults: a lease renewed every 10 s that lasts 40 s, and a status reported at
// least every 5 minutes (more often when it changes).
constexpr auto kLeaseRenewal = std::chrono::seconds(10);
constexpr int kLeaseDurationSeconds = 40;
constexpr auto kStatusReport = std::chrono::minutes(5);

std::string micro_time(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  return common::format_rfc3339_micro(micros / 1000000, static_cast<int32_t>(micros % 1000000))
      .value_or("1970-01-01T00:00:00.000000Z");
}

// node-7 -> 7; other names -> 0.
int index_in_name(const std::string& name) {
  if (!name.starts_with("node-")) {
    return 0;
  }
  int value = 0;
  auto [end, ec] = std::from_chars(name.data() + 5, name.data() + name.size(), value);
  return ec == std::errc() && end == name.data() + name.size() && value > 0 && value < 250 ? value
                                                                                           : 0;
}

}  // namespace

NodeSimulator::NodeSimulator(const Handler& handler, const Client& reader, int initial_nodes,
                             PodTiming timing, const common::Clock& clock)
    : Controller("node-simulator", clock),
      handler_(handler),
      initial_nodes_(initial_nodes),
      timing_(timing),
      nodes_(reader, kNodes, {}, clock),
      pods_(reader, kPods, {{"fieldSelector", "spec.nodeName!="}}, clock) {
  nodes_.add_handlers({.added = [this](const json& n) { queue().add("node/" + name_of(n)); },
                       .updated = {},
                       .deleted = {}});
  auto pod_changed = [this](const json& p) { queue().add("pod/" + Informer::key_of(p)); };
  pods_.add_handlers({.added = pod_changed,
                      .updated = [pod_changed](const json&, const json& p) { pod_changed(p); },
                      .deleted = {}});
}

NodeSimulator::~NodeSimulator() {
  stop();
  pods_.stop();
  nodes_.stop();
}

NodeSimulator::Kubelet& NodeSimulator::kubelet(const std::string& node) {
  std::lock_guard lock(mu_);
  auto it = kubelets_.find(node);
  if (it != kubelets_.end()) {
    return it->second;
  }
  Kubelet& k = kubelets_[node];
  k.client = std::make_unique<Client>(
      handler_, Identity{"system:node:" + node, {"system:nodes", "system:authenticated"}},
      "kubelet/v1.32.0 (linux/amd64) kube-sandbox");
  k.events = std::make_unique<EventRecorder>(*k.client, "kubelet", node, clock());
  k.index = index_in_name(node);
  if (k.index == 0) {
    // A node named otherwise gets an index past the ones in use.
    int highest = std::max(initial_nodes_, 0);
    for (const auto& [name, other] : kubelets_) {
      highest = std::max(highest, other.index);
    }
    k.index = highest + 1;
  }
  return k;
}

void NodeSimulator::start() {
  for (int i = 1; i <= initial_nodes_; ++i) {
    const std::string name = "node-" + std::to_string(i);
    Kubelet& k = kubelet(name);
    auto created = k.client->create(kNodes.collection(),
                                    registered_node(name, i, rfc3339(clock().system_now())));
    if (!created && !created.error().already_exists()) {
      apiserver::log::error("kubelet " + name +
                            ": registering the node failed: " + created.error().message);
    } else if (created) {
      k.events->record(*created, "Normal", "Starting", "Starting kubelet.");
      k.events->record(*created, "Normal", "NodeReady",
                       "Node " + name + " status is now: NodeReady");
    }
  }
  nodes_.start();
  pods_.start();
}

std::optional<std::string> NodeSimulator::sync(const std::string& key) {
  if (key.starts_with("node/")) {
    return sync_node(key.substr(5));
  }
  if (key.starts_with("pod/")) {
    return sync_pod(key.substr(4));
  }
  return std::nullopt;
}

std::optional<std::string> NodeSimulator::sync_node(const std::string& name) {
  ObjectPtr node = nodes_.get("", name);
  if (node == nullptr) {
    return std::nullopt;  // deleted: its kubelet stops
  }
  Kubelet& k = kubelet(name);
  const auto wall = clock().system_now();
  // Status: when something the kubelet reports is missing or changed, or every 5 minutes.
  const json* ready = condition(*node, "Ready");
  const auto heartbeat =
      ready != nullptr ? parse_time(string_at(*ready, {"lastHeartbeatTime"})) : std::nullopt;
  const json status = reported_status(*node, k.index, rfc3339(wall));
  if (ready == nullptr || !heartbeat || wall - *heartbeat >= kStatusReport ||
      string_at(*ready, {"status"}) != "True" || at(*node, {"status", "nodeInfo"}) == nullptr) {
    auto patched = k.client->patch(kNodes.object("", name, "status"),
                                   "application/merge-patch+json", {{"status", status}});
    if (!patched) {
      return "reporting the status of node " + name + ": " + patched.error().message;
    }
  }
  // The lease: renewed now, created when missing.
  const std::string lease_path = kLeases.object(kLeaseNamespace, name);
  auto renewed = k.client->patch(lease_path, "application/merge-patch+json",
                                 {{"spec", {{"renewTime", micro_time(wall)}}}});
  if (!renewed && renewed.error().not_found()) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata",
                   {{"name", name},
                    {"namespace", kLeaseNamespace},
                    {"ownerReferences", json::array({{{"apiVersion", "v1"},
                                                      {"kind", "Node"},
                                                      {"name", name},
                                                      {"uid", uid_of(*node)}}})}}},
                  {"spec",
                   {{"holderIdentity", name},
                    {"leaseDurationSeconds", kLeaseDurationSeconds},
                    {"renewTime", micro_time(wall)}}}};
    auto created = k.client->create(kLeases.collection(kLeaseNamespace), lease);
    if (!created && !created.error().already_exists()) {
      return "creating the lease of node " + name + ": " + created.error().message;
    }
  } else if (!renewed) {
    return "renewing the lease of node " + name + ": " + renewed.error().message;
  }
  requeue_after("node/" + name, kLeaseRenewal);
  return std::nullopt;
}

std::string NodeSimulator::pod_ip(const json& pod, const json& node, int index) {
  if (std::string ip = string_at(pod, {"status", "podIP"}); !ip.empty()) {
    return ip;
  }
  const std::string prefix = pod_ip_prefix(node, index);
  std::set<std::string> used;
  for (const ObjectPtr& other : pods_.list()) {
    if (string_at(*other, {"spec", "nodeName"}) == name_of(node) && !pod_terminal(*other)) {
      used.insert(string_at(*other, {"status", "podIP"}));
    }
  }
  for (int host = 2; host < 255; ++host) {
    std::string ip = prefix + std::to_string(host);
    if (used.count(ip) == 0) {
      return ip;
    }
  }
  return prefix + "254";  // more than 252 pods on one node: addresses repeat
}

std::optional<std::string> NodeSimulator::sync_pod(const std::string& key) {
  const size_t slash = key.find('/');
  ObjectPtr pod = pods_.get(key.substr(0, slash), key.substr(slash + 1));
  if (pod == nullptr) {
    return std::nullopt;
  }
  const std::string node_name = string_at(*pod, {"spec", "nodeName"});
  ObjectPtr node = nodes_.get("", node_name);
  if (node == nullptr) {
    return std::nullopt;  // not a node of this cluster: nobody runs it
  }
  Kubelet& k = kubelet(node_name);
  std::string host_ip;
  if (const json* addresses = at(*node, {"status", "addresses"});
      addresses && addresses->is_array()) {
    for (const json& a : *addresses) {
      if (string_at(a, {"type"}) == "InternalIP")
        host_ip = string_at(a, {"address"});
    }
  }
  KubeletStep step =
      next_step(*pod, pod_ip(*pod, *node, k.index), host_ip, clock().system_now(), timing_);
  if (step.remove) {
    json options = {{"apiVersion", "v1"},
                    {"kind", "DeleteOptions"},
                    {"gracePeriodSeconds", 0},
                    {"preconditions", {{"uid", uid_of(*pod)}}}};
    auto removed = k.client->remove(kPods.object(namespace_of(*pod), name_of(*pod)), options);
    if (!removed && !removed.error().not_found() && removed.error().code != 409) {
      return "removing pod " + key + ": " + removed.error().message;
    }
    return std::nullopt;
  }
  if (step.status) {
    auto patched = k.client->patch(kPods.object(namespace_of(*pod), name_of(*pod), "status"),
                                   "application/merge-patch+json", {{"status", *step.status}});
    if (!patched) {
      if (patched.error().not_found()) {
        return std::nullopt;
      }
      return "updating the status of pod " + key + ": " + patched.error().message;
    }
    for (const PodEvent& e : step.events) {
      k.events->record(*pod, e.type, e.reason, e.message);
    }
  }
  if (step.recheck) {
    requeue_after("pod/" + key, *step.recheck);
  }
  return std::nullopt;
}

}  // namespace cluster
