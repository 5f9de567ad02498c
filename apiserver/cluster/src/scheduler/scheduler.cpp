#include "scheduler/scheduler.h"

#include <algorithm>
#include <vector>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "scheduler/inter_pod.h"
#include "scheduler/scores.h"
#include "scheduler/spread.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kNodes{"", "v1", "nodes", false};
const ResourceRef kNamespaces{"", "v1", "namespaces", false};
const ResourceRef kServices{"", "v1", "services", true};
const ResourceRef kReplicationControllers{"", "v1", "replicationcontrollers", true};
const ResourceRef kReplicaSets{"apps", "v1", "replicasets", true};
const ResourceRef kStatefulSets{"apps", "v1", "statefulsets", true};
constexpr const char* kName = "default-scheduler";
// The scheduler's pods informer leaves out the pods that are done, as kube-scheduler's does.
const Query kNotDone{{"fieldSelector", "status.phase!=Succeeded,status.phase!=Failed"}};
// validation.NoteLengthLimit: longer notes are cut, as kube-scheduler's truncateMessage does.
constexpr size_t kNoteLengthLimit = 1024;

std::string truncated(const std::string& message) {
  if (message.size() <= kNoteLengthLimit) {
    return message;
  }
  return message.substr(0, kNoteLengthLimit - 4) + " ...";
}

// The reasons a placed pod (rather than a node change) could lift.
bool about_placed_pods(const std::string& reason) {
  return reason.find("affinity rules") != std::string::npos ||
         reason.find("topology spread") != std::string::npos;
}

// What of a node the filters and scores read changed (upstream's nodeSchedulingPropertiesChange);
// a status heartbeat alone does not count.
bool scheduling_properties_changed(const json& old, const json& now) {
  for (const auto& path :
       std::initializer_list<std::initializer_list<const char*>>{{"spec", "unschedulable"},
                                                                 {"spec", "taints"},
                                                                 {"status", "allocatable"},
                                                                 {"metadata", "labels"},
                                                                 {"metadata", "annotations"}}) {
    const json* a = at(old, path);
    const json* b = at(now, path);
    if ((a == nullptr) != (b == nullptr) || (a != nullptr && *a != *b)) {
      return true;
    }
  }
  auto statuses = [](const json& node) {
    std::map<std::string, std::string> out;
    if (const json* conditions = at(node, {"status", "conditions"});
        conditions && conditions->is_array()) {
      for (const json& c : *conditions) {
        out[string_at(c, {"type"})] = string_at(c, {"status"});
      }
    }
    return out;
  };
  return statuses(old) != statuses(now);
}

// Whether a pod changed besides its status, resourceVersion, generation, managedFields and
// finalizers (upstream's isPodUpdated).
bool changed_beyond_status(const json& old, const json& now) {
  auto stripped = [](json pod) {
    pod.erase("status");
    if (auto meta = pod.find("metadata"); meta != pod.end() && meta->is_object()) {
      for (const char* field : {"resourceVersion", "generation", "managedFields", "finalizers"}) {
        meta->erase(field);
      }
    }
    return pod;
  };
  return stripped(old) != stripped(now);
}

// Whether a bound pod just got its node or new labels: what pod affinity and spreading read.
bool placed_or_relabelled(const json& old, const json& now) {
  if (string_at(now, {"spec", "nodeName"}).empty()) {
    return false;
  }
  if (string_at(old, {"spec", "nodeName"}).empty()) {
    return true;
  }
  const json* before = at(old, {"metadata", "labels"});
  const json* after = at(now, {"metadata", "labels"});
  return (before == nullptr) != (after == nullptr) || (before != nullptr && *before != *after);
}

// The message of a pod no node fits, in kube-scheduler's words (FitError plus the preemption
// attempt's), from each node's reasons.
std::string fit_error(const std::map<std::string, std::vector<std::string>>& why_not) {
  const size_t total = why_not.size();
  if (total == 0) {
    return "no nodes available to schedule pods";
  }
  std::map<std::string, int> reasons;
  size_t helpable = 0;
  for (const auto& entry : why_not) {
    for (const std::string& reason : entry.second) {
      ++reasons[reason];
    }
    const auto& why = entry.second;
    if (!why.empty() && std::all_of(why.begin(), why.end(), preemption_might_help)) {
      ++helpable;
    }
  }
  std::vector<std::string> parts;
  for (const auto& entry : reasons) {
    parts.push_back(std::to_string(entry.second) + " " + entry.first);
  }
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(total) + " nodes are available";
  if (!parts.empty()) {
    message += ": ";
    for (size_t i = 0; i < parts.size(); ++i)
      message += (i ? ", " : "") + parts[i];
  }
  message += ". preemption: 0/" + std::to_string(total) + " nodes are available";
  std::string detail;
  if (helpable > 0)
    detail = std::to_string(helpable) + " No preemption victims found for incoming pod";
  if (total - helpable > 0) {
    detail += (detail.empty() ? "" : ", ") + std::to_string(total - helpable) +
              " Preemption is not helpful for scheduling";
  }
  return message + ": " + detail + ".";
}

}  // namespace

size_t feasible_nodes_to_find(size_t nodes) {
  constexpr size_t kMinFeasibleNodes = 100;
  constexpr size_t kMinPercentage = 5;
  if (nodes < kMinFeasibleNodes) {
    return nodes;
  }
  const size_t decrease = nodes / 125;
  const size_t percentage = decrease >= 50 - kMinPercentage ? kMinPercentage : 50 - decrease;
  return std::max(kMinFeasibleNodes, nodes * percentage / 100);
}

Scheduler::Scheduler(const Client& client, const common::Clock& clock)
    : Controller("scheduler", clock),
      client_(client),
      events_(client, kName, std::nullopt, clock),
      pods_(client, kPods, kNotDone, clock),
      nodes_(client, kNodes, {}, clock),
      namespaces_(client, kNamespaces, {}, clock),
      services_(client, kServices, {}, clock),
      replication_controllers_(client, kReplicationControllers, {}, clock),
      replica_sets_(client, kReplicaSets, {}, clock),
      stateful_sets_(client, kStatefulSets, {}, clock),
      random_(std::random_device{}()) {
  // The informers' cached object, shared rather than copied into the scheduler's cache.
  auto current = [this](const json& p) {
    ObjectPtr now = pods_.get(namespace_of(p), name_of(p));
    return now != nullptr ? now : std::make_shared<const json>(p);
  };
  pods_.add_handlers({.added =
                          [this, current](const json& p) {
                            {
                              std::lock_guard lock(mu_);
                              cache_.set_pod(current(p));
                            }
                            if (wants(p)) {
                              queue().add(Informer::key_of(p));
                            } else if (!string_at(p, {"spec", "nodeName"}).empty()) {
                              retry_unschedulable(
                                  true);  // a placed pod can satisfy affinity or spreading
                            }
                          },
                      .updated =
                          [this, current](const json& old, const json& p) {
                            bool waiting = false;
                            {
                              std::lock_guard lock(mu_);
                              cache_.set_pod(current(p));
                              waiting = unschedulable_.count(Informer::key_of(p)) != 0;
                            }
                            if (wants(p)) {
                              // A pod that fits nowhere is tried again when it changes, not when
                              // only its status does (the scheduler's own condition, for one).
                              if (!waiting || changed_beyond_status(old, p)) {
                                queue().add(Informer::key_of(p));
                              }
                            } else if (placed_or_relabelled(old, p)) {
                              retry_unschedulable(true);
                            }
                          },
                      .deleted =
                          [this](const json& p) {
                            {
                              std::lock_guard lock(mu_);
                              cache_.remove_pod(pod_key(p));
                              unschedulable_.erase(Informer::key_of(p));
                            }
                            retry_unschedulable(false);  // its room is free
                          }});
  auto current_node = [this](const json& n) {
    ObjectPtr now = nodes_.get("", name_of(n));
    return now != nullptr ? now : std::make_shared<const json>(n);
  };
  nodes_.add_handlers({.added =
                           [this, current_node](const json& n) {
                             {
                               std::lock_guard lock(mu_);
                               cache_.set_node(current_node(n));
                             }
                             retry_unschedulable(false);
                           },
                       .updated =
                           [this, current_node](const json& old, const json& n) {
                             {
                               std::lock_guard lock(mu_);
                               cache_.set_node(current_node(n));
                             }
                             if (scheduling_properties_changed(old, n)) {
                               retry_unschedulable(false);
                             }
                           },
                       .deleted =
                           [this](const json& n) {
                             std::lock_guard lock(mu_);
                             cache_.remove_node(name_of(n));
                           }});
}

Scheduler::~Scheduler() {
  stop();
  events_.stop();
  for (Informer* informer : {&nodes_, &pods_, &namespaces_, &services_, &replication_controllers_,
                             &replica_sets_, &stateful_sets_}) {
    informer->stop();
  }
}

void Scheduler::start() {
  // What the plugins read comes first, so that the first pods find it.
  for (Informer* informer : {&namespaces_, &services_, &replication_controllers_, &replica_sets_,
                             &stateful_sets_, &nodes_, &pods_}) {
    informer->start();
  }
  events_.start();
}

bool Scheduler::wants(const json& pod) const {
  std::string scheduler = string_at(pod, {"spec", "schedulerName"});
  return string_at(pod, {"spec", "nodeName"}).empty() && !being_deleted(pod) &&
         !pod_terminal(pod) && (scheduler.empty() || scheduler == kName);
}

void Scheduler::retry_unschedulable(bool placed_pods_only) {
  std::vector<std::string> keys;
  {
    std::lock_guard lock(mu_);
    for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
      if (!placed_pods_only || it->second) {
        keys.push_back(it->first);
        it = unschedulable_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const std::string& key : keys) {
    queue().add(key);
  }
}

json Scheduler::default_selector(const json& pod) const {
  const json* own = at(pod, {"spec", "topologySpreadConstraints"});
  if (own != nullptr && own->is_array() && !own->empty()) {
    return nullptr;  // the defaults apply only to pods without constraints
  }
  const std::string ns = namespace_of(pod);
  const std::vector<ObjectPtr> services = services_.list(ns);
  std::vector<const json*> service_ptrs;
  for (const ObjectPtr& s : services) {
    service_ptrs.push_back(s.get());
  }
  ObjectPtr controller;
  if (const json* owner = controller_ref(pod)) {
    const std::string kind = string_at(*owner, {"kind"});
    const std::string api_version = string_at(*owner, {"apiVersion"});
    const std::string name = string_at(*owner, {"name"});
    if (kind == "ReplicationController" && api_version == "v1") {
      controller = replication_controllers_.get(ns, name);
    } else if (kind == "ReplicaSet" && api_version == "apps/v1") {
      controller = replica_sets_.get(ns, name);
    } else if (kind == "StatefulSet" && api_version == "apps/v1") {
      controller = stateful_sets_.get(ns, name);
    }
  }
  return default_spread_selector(pod, service_ptrs, controller.get());
}

std::optional<std::string> Scheduler::unschedulable(const json& pod, const std::string& message,
                                                    bool placed_pods_matter) {
  {
    std::lock_guard lock(mu_);
    unschedulable_[Informer::key_of(pod)] = placed_pods_matter;
  }
  const json* old = condition(pod, "PodScheduled");
  if (old == nullptr || string_at(*old, {"message"}) != message) {
    json conditions = at(pod, {"status", "conditions"}) != nullptr
                          ? *at(pod, {"status", "conditions"})
                          : json::array();
    const std::string now = rfc3339(clock().system_now());
    set_condition(conditions, "PodScheduled", "False", "Unschedulable", message, now);
    for (json& c : conditions) {
      if (string_at(c, {"type"}) == "PodScheduled")
        c["lastProbeTime"] = nullptr;
    }
    auto patched =
        client_.patch(kPods.object(namespace_of(pod), name_of(pod), "status"),
                      "application/merge-patch+json", {{"status", {{"conditions", conditions}}}});
    if (!patched && !patched.error().not_found()) {
      return "marking pod " + Informer::key_of(pod) + " unschedulable: " + patched.error().message;
    }
  }
  events_.record(pod, nullptr, "Warning", "FailedScheduling", "Scheduling", truncated(message));
  return std::nullopt;
}

std::optional<std::string> Scheduler::sync(const std::string& key) {
  const size_t slash = key.find('/');
  ObjectPtr pod = pods_.get(key.substr(0, slash), key.substr(slash + 1));
  if (pod == nullptr || !wants(*pod)) {
    return std::nullopt;
  }
  // What the plugins read besides the nodes, looked up before the cache is locked.
  ScoreInputs inputs;
  inputs.default_spread_selector = default_selector(*pod);
  std::map<std::string, ObjectPtr> namespaces;  // looked up once per attempt
  inputs.namespace_labels = [&](const std::string& ns) -> const json* {
    auto found = namespaces.find(ns);
    if (found == namespaces.end()) {
      found = namespaces.emplace(ns, namespaces_.get("", ns)).first;
    }
    return found->second != nullptr ? at(*found->second, {"metadata", "labels"}) : nullptr;
  };

  std::string chosen;
  std::string failure;
  bool placed_pods_matter = false;
  {
    std::lock_guard lock(mu_);
    const std::vector<const NodeInfo*> nodes = cache_.nodes();
    const InterPodFilter inter_pod(*pod, nodes, inputs.namespace_labels);
    const SpreadFilter spread(*pod, nodes);
    // Filter, from where the last attempt stopped, until enough nodes fit.
    const size_t wanted = feasible_nodes_to_find(nodes.size());
    std::vector<const NodeInfo*> feasible;
    std::map<std::string, std::vector<std::string>> why_not;
    size_t looked = 0;
    for (; looked < nodes.size() && feasible.size() < wanted; ++looked) {
      const NodeInfo* n = nodes[(next_start_ + looked) % nodes.size()];
      std::vector<std::string> why = misfits(*pod, *n->node, n->requested);
      if (why.empty()) {
        if (std::string reason = spread.misfit(*n->node); !reason.empty()) {
          why.push_back(std::move(reason));
        } else if (std::string r = inter_pod.misfit(*n->node); !r.empty()) {
          why.push_back(std::move(r));
        }
      }
      if (why.empty()) {
        feasible.push_back(n);
      } else {
        placed_pods_matter = placed_pods_matter || about_placed_pods(why.front());
        why_not[n->name] = std::move(why);
      }
    }
    next_start_ = nodes.empty() ? 0 : (next_start_ + looked) % nodes.size();
    if (feasible.empty()) {
      failure = fit_error(why_not);
    } else if (feasible.size() == 1) {
      chosen = feasible.front()->name;
    } else {
      const std::vector<NodeScore> scores = prioritize(*pod, nodes, feasible, inputs);
      chosen = scores[select_host(scores, random_)].node;
    }
  }
  if (chosen.empty()) {
    return unschedulable(*pod, failure, placed_pods_matter);
  }
  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata",
       {{"name", name_of(*pod)}, {"namespace", namespace_of(*pod)}, {"uid", uid_of(*pod)}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", chosen}}}};
  auto bound = client_.create(kPods.object(namespace_of(*pod), name_of(*pod), "binding"), binding);
  if (!bound) {
    if (bound.error().not_found() || bound.error().code == 409) {
      return std::nullopt;  // gone, or bound meanwhile
    }
    return "binding pod " + key + " to " + chosen + ": " + bound.error().message;
  }
  {
    std::lock_guard lock(mu_);
    cache_.assume(pod, chosen);
    unschedulable_.erase(key);
  }
  events_.record(*pod, nullptr, "Normal", "Scheduled", "Binding",
                 "Successfully assigned " + key + " to " + chosen);
  return std::nullopt;
}

}  // namespace cluster
