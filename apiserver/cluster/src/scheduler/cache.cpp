#include "scheduler/cache.h"

#include <utility>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"

namespace cluster {
namespace {

void add(Resources& sum, const Resources& r, double sign) {
  sum.cpu += sign * r.cpu;
  sum.memory += sign * r.memory;
  sum.pods += sign * r.pods;
}

bool has_terms(const json& pod, const char* kind, const char* which) {
  const json* terms = at(pod, {"spec", "affinity", kind, which});
  return terms != nullptr && terms->is_array() && !terms->empty();
}

PodInfo info_of(std::shared_ptr<const json> pod) {
  PodInfo info;
  static const json kNoLabels = json::object();
  info.key = pod_key(*pod);
  info.namespace_ = namespace_of(*pod);
  const json* labels = at(*pod, {"metadata", "labels"});
  info.labels = labels != nullptr && labels->is_object() ? labels : &kNoLabels;
  info.requested = pod_requests(*pod);
  info.non_zero = pod_requests_non_zero(*pod);
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    for (const char* which : {"requiredDuringSchedulingIgnoredDuringExecution",
                              "preferredDuringSchedulingIgnoredDuringExecution"}) {
      info.with_affinity = info.with_affinity || has_terms(*pod, kind, which);
    }
  }
  info.required_anti =
      has_terms(*pod, "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution");
  info.terminating = being_deleted(*pod);
  info.pod = std::move(pod);
  return info;
}

}  // namespace

std::string pod_key(const json& pod) {
  return namespace_of(pod) + "/" + name_of(pod);
}

void SchedulerCache::set_node(std::shared_ptr<const json> node) {
  const std::string name = name_of(*node);
  NodeInfo& info = nodes_[name];
  info.name = name;
  info.node = std::move(node);
}

void SchedulerCache::remove_node(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    return;
  }
  if (it->second.pods.empty()) {
    nodes_.erase(it);
  } else {
    it->second.node = nullptr;  // its pods still count until they go
  }
}

void SchedulerCache::set_pod(std::shared_ptr<const json> pod) {
  const std::string key = pod_key(*pod);
  const std::string bound_to = string_at(*pod, {"spec", "nodeName"});
  if (bound_to.empty()) {
    if (auto it = where_.find(key); it != where_.end()) {
      if (const NodeInfo* at_node = node(it->second); at_node != nullptr) {
        auto placed = at_node->pods.find(key);
        if (placed != at_node->pods.end() && placed->second.assumed) {
          return;  // bound by the scheduler; the informer has not shown it yet
        }
      }
    }
    unplace(key);
    return;
  }
  unplace(key);
  if (!pod_terminal(*pod)) {
    place(bound_to, info_of(std::move(pod)));
  }
}

void SchedulerCache::remove_pod(const std::string& key) {
  unplace(key);
}

void SchedulerCache::assume(const std::shared_ptr<const json>& pod, const std::string& node) {
  const std::string key = pod_key(*pod);
  if (where_.count(key) != 0) {
    return;  // the informer was faster
  }
  auto bound = std::make_shared<json>(*pod);
  (*bound)["spec"]["nodeName"] = node;
  PodInfo info = info_of(std::move(bound));
  info.assumed = true;
  place(node, std::move(info));
}

std::vector<const NodeInfo*> SchedulerCache::nodes() const {
  std::vector<const NodeInfo*> out;
  out.reserve(nodes_.size());
  for (const auto& entry : nodes_) {
    if (entry.second.node != nullptr) {
      out.push_back(&entry.second);
    }
  }
  return out;
}

const NodeInfo* SchedulerCache::node(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::string SchedulerCache::node_of(const std::string& key) const {
  auto it = where_.find(key);
  return it == where_.end() ? std::string() : it->second;
}

void SchedulerCache::place(const std::string& node, PodInfo info) {
  NodeInfo& n = nodes_[node];
  n.name = node;
  add(n.requested, info.requested, 1);
  add(n.non_zero, info.non_zero, 1);
  n.with_affinity += info.with_affinity ? 1 : 0;
  n.required_anti += info.required_anti ? 1 : 0;
  where_[info.key] = node;
  const std::string key = info.key;
  n.pods[key] = std::move(info);
}

void SchedulerCache::unplace(const std::string& key) {
  auto at_node = where_.find(key);
  if (at_node == where_.end()) {
    return;
  }
  auto node = nodes_.find(at_node->second);
  where_.erase(at_node);
  if (node == nodes_.end()) {
    return;
  }
  NodeInfo& n = node->second;
  auto it = n.pods.find(key);
  if (it != n.pods.end()) {
    add(n.requested, it->second.requested, -1);
    add(n.non_zero, it->second.non_zero, -1);
    n.with_affinity -= it->second.with_affinity ? 1 : 0;
    n.required_anti -= it->second.required_anti ? 1 : 0;
    n.pods.erase(it);
  }
  if (n.pods.empty()) {
    n.requested = {};  // no rounding left over from the sums
    n.non_zero = {};
  }
  if (n.pods.empty() && n.node == nullptr) {
    nodes_.erase(node);
  }
}

}  // namespace cluster
