#include "scheduler/scheduler.h"

#include <algorithm>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "scheduler/inter_pod.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kNodes{"", "v1", "nodes", false};
constexpr const char* kName = "default-scheduler";

}  // namespace

Scheduler::Scheduler(const Client& client, const common::Clock& clock)
    : Controller("scheduler", clock),
      client_(client),
      events_(client, kName, "", clock),
      pods_(client, kPods, {}, clock),
      nodes_(client, kNodes, {}, clock) {
  pods_.add_handlers({.added =
                          [this](const json& p) {
                            if (wants(p))
                              queue().add(Informer::key_of(p));
                          },
                      .updated =
                          [this](const json& old, const json& p) {
                            if (wants(p)) {
                              queue().add(Informer::key_of(p));
                            } else if (!pod_terminal(old) && pod_terminal(p)) {
                              retry_unschedulable();  // its room is free
                            }
                          },
                      .deleted =
                          [this](const json& p) {
                            {
                              std::lock_guard lock(mu_);
                              assumed_.erase(Informer::key_of(p));
                              unschedulable_.erase(Informer::key_of(p));
                            }
                            retry_unschedulable();
                          }});
  nodes_.add_handlers({.added = [this](const json&) { retry_unschedulable(); },
                       .updated = [this](const json&, const json&) { retry_unschedulable(); },
                       .deleted = {}});
}

Scheduler::~Scheduler() {
  stop();
  nodes_.stop();
  pods_.stop();
}

void Scheduler::start() {
  nodes_.start();
  pods_.start();
}

bool Scheduler::wants(const json& pod) const {
  std::string scheduler = string_at(pod, {"spec", "schedulerName"});
  return string_at(pod, {"spec", "nodeName"}).empty() && !being_deleted(pod) &&
         !pod_terminal(pod) && (scheduler.empty() || scheduler == kName);
}

void Scheduler::retry_unschedulable() {
  std::set<std::string> keys;
  {
    std::lock_guard lock(mu_);
    keys.swap(unschedulable_);
  }
  for (const std::string& key : keys) {
    queue().add(key);
  }
}

std::optional<std::string> Scheduler::unschedulable(const json& pod, const std::string& message) {
  {
    std::lock_guard lock(mu_);
    unschedulable_.insert(Informer::key_of(pod));
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
  events_.record(pod, "Warning", "FailedScheduling", message);
  return std::nullopt;
}

std::optional<std::string> Scheduler::sync(const std::string& key) {
  const size_t slash = key.find('/');
  ObjectPtr pod = pods_.get(key.substr(0, slash), key.substr(slash + 1));
  if (pod == nullptr || !wants(*pod)) {
    return std::nullopt;
  }
  // What each node already runs: the pods bound there and not done, and the ones this scheduler
  // bound that the informer has not shown bound yet.
  std::map<std::string, Resources> used;
  const std::vector<ObjectPtr> all_pods = pods_.list();
  Placement placement;
  {
    std::lock_guard lock(mu_);
    for (const ObjectPtr& other : all_pods) {
      const std::string other_key = Informer::key_of(*other);
      std::string node = string_at(*other, {"spec", "nodeName"});
      if (node.empty()) {
        auto it = assumed_.find(other_key);
        if (it == assumed_.end())
          continue;
        node = it->second;
      } else {
        assumed_.erase(other_key);
      }
      if (pod_terminal(*other))
        continue;
      placement.place(node, other.get());
      const Resources r = pod_requests(*other);
      Resources& u = used[node];
      u.cpu += r.cpu;
      u.memory += r.memory;
      u.pods += 1;
    }
  }
  const std::vector<ObjectPtr> nodes = nodes_.list();
  for (const ObjectPtr& node : nodes)
    placement.nodes.push_back(node.get());
  std::map<std::string, int> reasons;
  std::map<std::string, std::vector<std::string>> why_not;  // by node
  const json* best = nullptr;
  double best_score = 0;
  for (const ObjectPtr& node : nodes) {
    const Resources& u = used[name_of(*node)];
    std::vector<std::string> why = misfits(*pod, *node, u);
    for (std::string& reason : inter_pod_misfits(*pod, *node, placement)) {
      why.push_back(std::move(reason));
    }
    why_not[name_of(*node)] = why;
    for (const std::string& reason : why) {
      ++reasons[reason];
    }
    if (!why.empty())
      continue;
    // LeastAllocated: the share of cpu and memory left after this pod, averaged; then fewest pods.
    const Resources want = pod_requests(*pod);
    const Resources have = node_allocatable(*node);
    auto left = [](double used_now, double wanted, double total) {
      return total <= 0 ? 0.0 : std::max(0.0, (total - used_now - wanted) / total);
    };
    const double score =
        (left(u.cpu, want.cpu, have.cpu) + left(u.memory, want.memory, have.memory)) / 2 -
        u.pods * 1e-4;
    if (best == nullptr || score > best_score) {
      best = node.get();
      best_score = score;
    }
  }
  if (best == nullptr) {
    const size_t total = nodes.size();
    std::vector<std::string> parts;
    size_t helpable = 0;
    for (const auto& [reason, count] : reasons) {
      parts.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(parts.begin(), parts.end());
    for (const ObjectPtr& node : nodes) {
      const auto& why = why_not[name_of(*node)];
      if (!why.empty() && std::all_of(why.begin(), why.end(), preemption_might_help))
        ++helpable;
    }
    std::string message = "0/" + std::to_string(total) + " nodes are available";
    if (!parts.empty()) {
      message += ": ";
      for (size_t i = 0; i < parts.size(); ++i)
        message += (i ? ", " : "") + parts[i];
    }
    message += ". preemption: 0/" + std::to_string(total) + " nodes are available";
    if (total > 0) {
      std::string detail;
      if (helpable > 0)
        detail = std::to_string(helpable) + " No preemption victims found for incoming pod";
      if (total - helpable > 0) {
        detail += (detail.empty() ? "" : ", ") + std::to_string(total - helpable) +
                  " Preemption is not helpful for scheduling";
      }
      message += ": " + detail;
    }
    message += ".";
    return unschedulable(*pod, message);
  }
  const std::string node = name_of(*best);
  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata",
       {{"name", name_of(*pod)}, {"namespace", namespace_of(*pod)}, {"uid", uid_of(*pod)}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  auto bound = client_.create(kPods.object(namespace_of(*pod), name_of(*pod), "binding"), binding);
  if (!bound) {
    if (bound.error().not_found() || bound.error().code == 409) {
      return std::nullopt;  // gone, or bound meanwhile
    }
    return "binding pod " + key + " to " + node + ": " + bound.error().message;
  }
  {
    std::lock_guard lock(mu_);
    assumed_[key] = node;
    unschedulable_.erase(key);
  }
  events_.record(*pod, "Normal", "Scheduled", "Successfully assigned " + key + " to " + node);
  return std::nullopt;
}

}  // namespace cluster
