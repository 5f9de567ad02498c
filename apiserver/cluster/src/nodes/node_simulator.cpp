#include "nodes/node_simulator.h"

#include <algorithm>
#include <charconv>

#include "apiserver/log.h"
#include "client/objects.h"
#include "common/rfc3339.h"
#include "nodes/node_pods.h"
#include "nodes/simulated_node.h"

namespace cluster {
namespace {

const ResourceRef kNodes{"", "v1", "nodes", false};
const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};
const ResourceRef kServiceAccounts{"", "v1", "serviceaccounts", true};
constexpr const char* kLeaseNamespace = "kube-node-lease";

// The kubelet's: its lease renewed every quarter of its duration (nodeLeaseDurationSeconds, 40 s
// by default: every 10 s), and a status reported at least every 5 minutes (more often when it
// changes).
constexpr int kLeaseRenewalFraction = 4;
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
                             PodTiming timing, std::chrono::seconds lease_duration,
                             const common::Clock& clock)
    : Controller("node-simulator", clock),
      handler_(handler),
      initial_nodes_(initial_nodes),
      timing_(timing),
      lease_duration_(std::max(lease_duration, std::chrono::seconds(1))),
      nodes_(reader, kNodes, {}, clock),
      pods_(reader, kPods, {{"fieldSelector", "spec.nodeName!="}}, clock) {
  nodes_.add_handlers({.added = [this](const json& n) { queue().add("node/" + name_of(n)); },
                       .updated =
                           [this](const json& old, const json& n) {
                             // Stopped or started: its kubelet has something to do.
                             if (kubelet_stopped(old) != kubelet_stopped(n))
                               queue().add("node/" + name_of(n));
                           },
                       .deleted = {}});
  auto pod_changed = [this](const json& p) { queue().add("pod/" + Informer::key_of(p)); };
  pods_.add_handlers({.added = pod_changed,
                      .updated = [pod_changed](const json&, const json& p) { pod_changed(p); },
                      .deleted = pod_changed});  // its tokens are dropped
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
      record_start(k, *created);
      record_status(k, json::object(), *created);
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
  if (kubelet_stopped(*node)) {
    if (!k.stopped) {
      k.stopped = true;
      apiserver::log::info(
          2, "kubelet " + name + ": stopped (annotation " + std::string(kKubeletAnnotation) + ")");
    }
    return std::nullopt;  // no lease, no status, no requeue: the annotation's removal wakes it
  }
  if (k.stopped) {
    // Started again: as a kubelet process starting, then every pod of the node looked at anew.
    k.stopped = false;
    apiserver::log::info(2, "kubelet " + name + ": started");
    std::erase_if(tokens_, [&name](const auto& entry) { return entry.second.node == name; });
    record_start(k, *node);
    for (const ObjectPtr& pod : pods_on_node(pods_, name)) {
      queue().add("pod/" + Informer::key_of(*pod));
    }
  }
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
    record_status(k, *node, *patched);
  }
  // The lease: renewed now, created when missing.
  const std::string lease_path = kLeases.object(kLeaseNamespace, name);
  auto renewed = k.client->patch(
      lease_path, "application/merge-patch+json",
      {{"spec",
        {{"renewTime", micro_time(wall)}, {"leaseDurationSeconds", lease_duration_.count()}}}});
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
                    {"leaseDurationSeconds", lease_duration_.count()},
                    {"renewTime", micro_time(wall)}}}};
    auto created = k.client->create(kLeases.collection(kLeaseNamespace), lease);
    if (!created && !created.error().already_exists()) {
      return "creating the lease of node " + name + ": " + created.error().message;
    }
  } else if (!renewed) {
    return "renewing the lease of node " + name + ": " + renewed.error().message;
  }
  requeue_after("node/" + name,
                std::chrono::duration_cast<std::chrono::milliseconds>(lease_duration_) /
                    kLeaseRenewalFraction);
  return std::nullopt;
}

void NodeSimulator::record_start(Kubelet& k, const json& node) {
  k.events->record(node, "Normal", "Starting", "Starting kubelet.");
  k.events->record(node, "Normal", "NodeAllocatableEnforced",
                   "Updated Node Allocatable limit across pods");
}

void NodeSimulator::record_status(Kubelet& k, const json& before, const json& after) {
  for (const std::string& reason : condition_events(
           before, at(after, {"status"}) != nullptr ? *at(after, {"status"}) : json::object())) {
    k.events->record(after, "Normal", reason,
                     "Node " + name_of(after) + " status is now: " + reason);
  }
}

std::string NodeSimulator::pod_ip(const json& pod, const json& node, int index) {
  if (std::string ip = string_at(pod, {"status", "podIP"}); !ip.empty()) {
    return ip;
  }
  const std::string prefix = pod_ip_prefix(node, index);
  std::set<std::string> used;
  for (const ObjectPtr& other : pods_on_node(pods_, name_of(node))) {
    if (!pod_terminal(*other)) {
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
  ObjectPtr pod = pod_by_key(pods_, key);
  const std::string node_name = pod ? string_at(*pod, {"spec", "nodeName"}) : std::string();
  ObjectPtr node = pod ? nodes_.get("", node_name) : nullptr;
  if (node == nullptr) {
    tokens_.erase(key);
    return std::nullopt;  // gone, or not on a node of this cluster: nobody runs it
  }
  if (kubelet_stopped(*node)) {
    return std::nullopt;  // its kubelet does nothing; started again, it looks at every pod
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
  bool mounted = true;
  std::optional<std::string> token_error;
  if (being_deleted(*pod) || pod_terminal(*pod)) {
    if (pod_terminal(*pod)) {
      tokens_.erase(key);  // no container left to read them
    }
  } else {
    token_error = refresh_tokens(k, *pod, key, mounted);
  }
  KubeletStep step =
      next_step(*pod, pod_ip(*pod, *node, k.index), host_ip, clock().system_now(), timing_);
  if (!mounted && !string_at(*pod, {"status", "startTime"}).empty()) {
    // A token volume cannot be set up: the containers do not start (retried with backoff).
    return token_error;
  }
  if (step.remove) {
    json options = {{"apiVersion", "v1"},
                    {"kind", "DeleteOptions"},
                    {"gracePeriodSeconds", 0},
                    {"preconditions", {{"uid", uid_of(*pod)}}}};
    auto removed = k.client->remove(kPods.object(namespace_of(*pod), name_of(*pod)), options);
    if (!removed && !removed.error().not_found() && removed.error().code != 409) {
      return "removing pod " + key + ": " + removed.error().message;
    }
    tokens_.erase(key);
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
  return token_error;
}

std::optional<std::string> NodeSimulator::refresh_tokens(Kubelet& k, const json& pod,
                                                         const std::string& key, bool& mounted) {
  const std::vector<TokenSource> sources = token_sources(pod);
  if (sources.empty()) {
    tokens_.erase(key);
    return std::nullopt;
  }
  PodTokens& tokens = tokens_[key];
  if (tokens.uid != uid_of(pod)) {
    tokens = PodTokens{string_at(pod, {"spec", "nodeName"}), uid_of(pod), {}};
  }
  std::string account = string_at(pod, {"spec", "serviceAccountName"});
  if (account.empty()) {
    account = "default";
  }
  const auto now = clock().system_now();
  std::optional<std::string> failure;
  std::optional<std::chrono::system_clock::time_point> next;
  for (const TokenSource& source : sources) {
    auto held = tokens.held.find(source.key());
    if (held == tokens.held.end() || now >= held->second.refresh_due()) {
      auto answer = k.client->create(kServiceAccounts.object(namespace_of(pod), account, "token"),
                                     token_request(pod, source));
      std::optional<HeldToken> got = answer ? held_token(*answer) : std::nullopt;
      if (got) {
        held = tokens.held.insert_or_assign(source.key(), std::move(*got)).first;
      } else {
        const std::string error =
            answer ? std::string("the answer carries no token") : answer.error().message;
        k.events->record(pod, "Warning", "FailedMount", failed_mount_message(source, error));
        failure = "token for pod " + key + ": " + error;
        mounted = mounted && held != tokens.held.end();
        continue;  // retried with the sync's backoff
      }
    }
    const auto due = held->second.refresh_due();
    next = next ? std::min(*next, due) : due;
  }
  if (next) {
    requeue_after("pod/" + key,
                  std::max<common::Clock::duration>(*next - now, std::chrono::seconds(1)));
  }
  return failure;
}

}  // namespace cluster
