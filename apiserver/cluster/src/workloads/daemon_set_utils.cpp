#include "workloads/daemon_set_utils.h"

#include <algorithm>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "scheduler/fit.h"
#include "workloads/controller_history.h"
#include "workloads/int_or_percent.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

constexpr const char* kTemplateGenerationAnnotation = "deprecated.daemonset.template.generation";

// Bound pods first, then the oldest (podByCreationTimestampAndPhase).
void oldest_first(std::vector<ObjectPtr>& pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    const bool bound_a = !string_at(*a, {"spec", "nodeName"}).empty();
    const bool bound_b = !string_at(*b, {"spec", "nodeName"}).empty();
    if (bound_a != bound_b) {
      return bound_a;
    }
    const std::string ta = string_at(*a, {"metadata", "creationTimestamp"});
    const std::string tb = string_at(*b, {"metadata", "creationTimestamp"});
    return ta != tb ? ta < tb : name_of(*a) < name_of(*b);
  });
}

// Whether the node has a NoExecute (or, unless `no_execute_only`, NoSchedule) taint the pod does
// not tolerate.
bool untolerated(const json& pod, const json& node, bool no_execute_only) {
  const json* taints = at(node, {"spec", "taints"});
  if (taints == nullptr || !taints->is_array()) {
    return false;
  }
  return std::any_of(taints->begin(), taints->end(), [&](const json& taint) {
    const std::string effect = string_at(taint, {"effect"});
    const bool counts = effect == "NoExecute" || (!no_execute_only && effect == "NoSchedule");
    return counts && !tolerates(pod, taint);
  });
}

// The budget at spec.updateStrategy.rollingUpdate.<field> against `desired` (rounding up); 0
// when the strategy is not RollingUpdate or the field is missing.
int64_t rolling_budget(const json& daemon_set, const char* field, int64_t desired) {
  if (string_at(daemon_set, {"spec", "updateStrategy", "type"}) != "RollingUpdate") {
    return 0;
  }
  const json* value = at(daemon_set, {"spec", "updateStrategy", "rollingUpdate", field});
  return value != nullptr ? scaled_value(*value, desired, true).value_or(0) : 0;
}

}  // namespace

void add_daemon_tolerations(json& pod_spec) {
  struct Auto {
    const char* key;
    const char* effect;
  };
  std::vector<Auto> wanted = {{"node.kubernetes.io/not-ready", "NoExecute"},
                              {"node.kubernetes.io/unreachable", "NoExecute"},
                              {"node.kubernetes.io/disk-pressure", "NoSchedule"},
                              {"node.kubernetes.io/memory-pressure", "NoSchedule"},
                              {"node.kubernetes.io/pid-pressure", "NoSchedule"},
                              {"node.kubernetes.io/unschedulable", "NoSchedule"}};
  if (bool_at(pod_spec, {"hostNetwork"}, false)) {
    wanted.push_back({"node.kubernetes.io/network-unavailable", "NoSchedule"});
  }
  if (!pod_spec.contains("tolerations") || !pod_spec["tolerations"].is_array()) {
    pod_spec["tolerations"] = json::array();
  }
  json& tolerations = pod_spec["tolerations"];
  for (const Auto& a : wanted) {
    const json toleration = {{"key", a.key}, {"operator", "Exists"}, {"effect", a.effect}};
    if (std::find(tolerations.begin(), tolerations.end(), toleration) == tolerations.end()) {
      tolerations.push_back(toleration);
    }
  }
}

json pin_to_node(json affinity, const std::string& node) {
  if (!affinity.is_object()) {
    affinity = json::object();
  }
  const json term = {{"matchFields", json::array({{{"key", "metadata.name"},
                                                   {"operator", "In"},
                                                   {"values", json::array({node})}}})}};
  affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms", json::array({term})}};
  return affinity;
}

std::string daemon_pod_node(const json& pod) {
  if (std::string node = string_at(pod, {"spec", "nodeName"}); !node.empty()) {
    return node;
  }
  const json* terms =
      at(pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
               "nodeSelectorTerms"});
  if (terms == nullptr || !terms->is_array()) {
    return "";
  }
  for (const json& term : *terms) {
    const json* fields = at(term, {"matchFields"});
    if (fields == nullptr || !fields->is_array()) {
      continue;
    }
    for (const json& req : *fields) {
      const json* values = at(req, {"values"});
      if (string_at(req, {"key"}) == "metadata.name" && string_at(req, {"operator"}) == "In" &&
          values != nullptr && values->is_array() && values->size() == 1 &&
          (*values)[0].is_string()) {
        return (*values)[0].get<std::string>();
      }
    }
  }
  return "";
}

DaemonNodeFit daemon_node_fit(const json& daemon_set, const json& node) {
  json pod = {{"spec", json::object()}};
  if (const json* spec = at(daemon_set, {"spec", "template", "spec"}); spec && spec->is_object()) {
    pod["spec"] = *spec;
  }
  add_daemon_tolerations(pod["spec"]);
  const std::string node_name = string_at(pod, {"spec", "nodeName"});
  if ((!node_name.empty() && node_name != name_of(node)) || !node_affinity_matches(pod, node)) {
    return {false, false};
  }
  if (untolerated(pod, node, false)) {
    return {false, !untolerated(pod, node, true)};
  }
  return {true, true};
}

json daemon_pod_template(const json& daemon_set, const std::string& hash) {
  const json* tmpl = at(daemon_set, {"spec", "template"});
  json out = tmpl != nullptr && tmpl->is_object() ? *tmpl : json::object();
  if (!out.contains("spec") || !out["spec"].is_object()) {
    out["spec"] = json::object();
  }
  add_daemon_tolerations(out["spec"]);
  const std::string generation =
      string_at(daemon_set, {"metadata", "annotations", kTemplateGenerationAnnotation});
  if (!generation.empty()) {
    out["metadata"]["labels"][kTemplateGenerationLabel] = generation;
  }
  out["metadata"]["labels"][kRevisionHashLabel] = hash;
  return out;
}

json new_daemon_pod(const json& daemon_set, const json& pod_template, const std::string& node) {
  json pod = pod_from_template(daemon_set, pod_template);
  pod["metadata"]["generateName"] = name_of(daemon_set) + "-";
  const json* affinity = at(pod, {"spec", "affinity"});
  pod["spec"]["affinity"] = pin_to_node(affinity != nullptr ? *affinity : json::object(), node);
  return pod;
}

std::map<std::string, std::vector<ObjectPtr>> daemon_pods_by_node(
    const std::vector<ObjectPtr>& pods) {
  std::map<std::string, std::vector<ObjectPtr>> by_node;
  for (const ObjectPtr& pod : pods) {
    if (being_deleted(*pod) && pod_terminal(*pod)) {
      continue;  // the kubelet or the pod GC finishes it; nothing left to do
    }
    if (std::string node = daemon_pod_node(*pod); !node.empty()) {
      by_node[node].push_back(pod);
    }
  }
  return by_node;
}

DaemonBudgets daemon_budgets(const json& daemon_set, int64_t desired) {
  DaemonBudgets b{rolling_budget(daemon_set, "maxSurge", desired),
                  rolling_budget(daemon_set, "maxUnavailable", desired)};
  if (desired > 0 && b.surge == 0 && b.unavailable == 0) {
    b.unavailable = 1;  // else an update could never move
  }
  return b;
}

bool daemon_allows_surge(const json& daemon_set) {
  return rolling_budget(daemon_set, "maxSurge", 1) != 0;
}

namespace {

// The pods of one node that need something, as the manage pass sees them.
void plan_node(const json& daemon_set, const DaemonNodeFit& fit, const std::string& node,
               const std::vector<ObjectPtr>* on_node, const std::string& hash,
               std::chrono::system_clock::time_point now, DaemonPlan& plan) {
  if (fit.should_run && on_node == nullptr) {
    plan.create_on.push_back(node);
    return;
  }
  if (on_node == nullptr) {
    return;
  }
  if (!fit.may_keep_running) {
    for (const ObjectPtr& pod : *on_node) {
      if (!being_deleted(*pod)) {
        plan.delete_pods.push_back(name_of(*pod));
      }
    }
    return;
  }
  std::vector<ObjectPtr> running;
  for (const ObjectPtr& pod : *on_node) {
    const std::string phase = string_at(*pod, {"status", "phase"});
    if (being_deleted(*pod)) {
      continue;
    }
    if (phase == "Failed") {
      plan.failed.push_back(pod);
      plan.delete_pods.push_back(name_of(*pod));
    } else if (phase == "Succeeded") {
      plan.delete_pods.push_back(name_of(*pod));
    } else {
      running.push_back(pod);
    }
  }
  oldest_first(running);
  if (!daemon_allows_surge(daemon_set)) {
    // One daemon pod per node: the oldest stays.
    for (size_t i = 1; i < running.size(); ++i) {
      plan.delete_pods.push_back(name_of(*running[i]));
    }
    return;
  }
  if (running.empty()) {
    if (fit.should_run) {
      plan.create_on.push_back(node);  // surging: a node always keeps a pod that is not going
    }
    return;
  }
  // Surging: the oldest new pod and the oldest old one may both stay, until the old one is not
  // ready or the new one is available. Any other goes.
  const json* oldest_new = nullptr;
  const json* oldest_old = nullptr;
  for (const ObjectPtr& pod : running) {
    const bool fresh = string_at(*pod, {"metadata", "labels", kRevisionHashLabel}) == hash;
    const json*& slot = fresh ? oldest_new : oldest_old;
    if (slot == nullptr) {
      slot = pod.get();
    } else {
      plan.delete_pods.push_back(name_of(*pod));
    }
  }
  const int64_t min_ready = int_at(daemon_set, {"spec", "minReadySeconds"}, 0);
  if (oldest_new != nullptr && oldest_old != nullptr &&
      (!pod_ready(*oldest_old) || pod_available(*oldest_new, min_ready, now))) {
    plan.delete_pods.push_back(name_of(*oldest_old));
  }
}

// The one new and the one old pod of a node (pods being deleted left out); false when it has
// several of either, which the manage pass sorts out first.
bool split_node(const json& daemon_set, const std::vector<ObjectPtr>& on_node,
                const std::string& hash, const json*& fresh, const json*& old) {
  fresh = nullptr;
  old = nullptr;
  for (const ObjectPtr& pod : on_node) {
    if (being_deleted(*pod)) {
      continue;
    }
    const json*& slot = daemon_pod_updated(daemon_set, *pod, hash) ? fresh : old;
    if (slot != nullptr) {
      return false;
    }
    slot = pod.get();
  }
  return true;
}

}  // namespace

DaemonPlan plan_daemon_set(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                           const std::vector<ObjectPtr>& pods, const std::string& hash,
                           std::chrono::system_clock::time_point now) {
  DaemonPlan plan;
  const auto by_node = daemon_pods_by_node(pods);
  for (const ObjectPtr& node : nodes) {
    auto it = by_node.find(name_of(*node));
    plan_node(daemon_set, daemon_node_fit(daemon_set, *node), name_of(*node),
              it != by_node.end() ? &it->second : nullptr, hash, now, plan);
  }
  return plan;
}

bool daemon_pod_updated(const json& daemon_set, const json& pod, const std::string& hash) {
  const std::string generation =
      string_at(daemon_set, {"metadata", "annotations", kTemplateGenerationAnnotation});
  const json* labels = at(pod, {"metadata", "labels"});
  if (labels == nullptr) {
    return false;
  }
  return (!hash.empty() && string_at(*labels, {kRevisionHashLabel}) == hash) ||
         (!generation.empty() && string_at(*labels, {kTemplateGenerationLabel}) == generation);
}

namespace {

// maxSurge 0: old pods are deleted (the manage pass then creates their replacements) while at
// most maxUnavailable nodes lack an available pod; unavailable old pods go at once.
DaemonPlan roll_without_surge(const json& daemon_set,
                              const std::map<std::string, std::vector<ObjectPtr>>& by_node,
                              const std::string& hash, int64_t max_unavailable,
                              std::chrono::system_clock::time_point now) {
  const int64_t min_ready = int_at(daemon_set, {"spec", "minReadySeconds"}, 0);
  int64_t unavailable = 0;
  std::vector<std::string> replace, candidates;
  for (const auto& entry : by_node) {
    const json* fresh = nullptr;
    const json* old = nullptr;
    if (!split_node(daemon_set, entry.second, hash, fresh, old) ||
        (fresh == nullptr) == (old == nullptr)) {
      ++unavailable;  // the manage pass sorts this node out first
    } else if (fresh != nullptr) {
      unavailable += pod_available(*fresh, min_ready, now) ? 0 : 1;
    } else if (!pod_available(*old, min_ready, now)) {
      replace.push_back(name_of(*old));
      ++unavailable;
    } else if (unavailable < max_unavailable) {
      candidates.push_back(name_of(*old));
    }
  }
  const int64_t room = std::clamp<int64_t>(max_unavailable - unavailable, 0,
                                           static_cast<int64_t>(candidates.size()));
  replace.insert(replace.end(), candidates.begin(), candidates.begin() + room);
  return {{}, replace, {}};
}

// maxSurge > 0: a new pod is created next to each old one (at once where the old one is not
// available, else on at most maxSurge nodes at a time), and the old one is deleted once the new
// one is available. Old pods on nodes that no longer want one go once as many pods are
// available elsewhere as the DaemonSet wants.
DaemonPlan roll_with_surge(const json& daemon_set,
                           const std::map<std::string, std::vector<ObjectPtr>>& by_node,
                           const std::map<std::string, DaemonNodeFit>& fits,
                           const std::string& hash, int64_t max_surge, int64_t desired,
                           std::chrono::system_clock::time_point now) {
  const int64_t min_ready = int_at(daemon_set, {"spec", "minReadySeconds"}, 0);
  DaemonPlan out;
  std::vector<std::string> unwanted, candidates;
  int64_t surging = 0, available = 0;
  for (const auto& entry : by_node) {
    const std::string& node = entry.first;
    const json* fresh = nullptr;
    const json* old = nullptr;
    if (!split_node(daemon_set, entry.second, hash, fresh, old)) {
      ++surging;  // the manage pass sorts this node out first
      continue;
    }
    if (const json* counted = old != nullptr ? old : fresh) {
      available += pod_available(*counted, min_ready, now) ? 1 : 0;
    }
    if (old == nullptr) {
      continue;  // up to date, or nothing there: the manage pass's business
    }
    auto fit = fits.find(node);
    const bool should_run = fit != fits.end() && fit->second.should_run;
    if (fresh != nullptr) {
      if (pod_available(*fresh, min_ready, now)) {
        out.delete_pods.push_back(name_of(*old));
      } else {
        ++surging;  // waiting for the new one
      }
    } else if (!pod_available(*old, min_ready, now)) {
      if (should_run) {
        out.create_on.push_back(node);  // nothing to keep available here: replace it now
      } else {
        out.delete_pods.push_back(name_of(*old));
      }
    } else if (!should_run) {
      unwanted.push_back(name_of(*old));
    } else if (surging < max_surge) {
      candidates.push_back(node);
    }
  }
  const auto deletable =
      std::clamp<int64_t>(available - desired, 0, static_cast<int64_t>(unwanted.size()));
  out.delete_pods.insert(out.delete_pods.end(), unwanted.begin(), unwanted.begin() + deletable);
  const int64_t room =
      std::clamp<int64_t>(max_surge - surging, 0, static_cast<int64_t>(candidates.size()));
  out.create_on.insert(out.create_on.end(), candidates.begin(), candidates.begin() + room);
  return out;
}

}  // namespace

DaemonPlan daemon_rolling_update(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                                 const std::vector<ObjectPtr>& pods, const std::string& hash,
                                 std::chrono::system_clock::time_point now) {
  auto by_node = daemon_pods_by_node(pods);
  std::map<std::string, DaemonNodeFit> fits;
  int64_t desired = 0;
  for (const ObjectPtr& node : nodes) {
    const DaemonNodeFit fit = daemon_node_fit(daemon_set, *node);
    fits.emplace(name_of(*node), fit);
    if (fit.should_run) {
      ++desired;
      by_node.try_emplace(name_of(*node));  // a node still without its pod counts too
    }
  }
  const DaemonBudgets budgets = daemon_budgets(daemon_set, desired);
  if (budgets.surge == 0) {
    return roll_without_surge(daemon_set, by_node, hash, budgets.unavailable, now);
  }
  return roll_with_surge(daemon_set, by_node, fits, hash, budgets.surge, desired, now);
}

json daemon_status(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                   const std::vector<ObjectPtr>& pods, const std::string& hash,
                   int64_t collision_count, std::chrono::system_clock::time_point now) {
  const int64_t min_ready = int_at(daemon_set, {"spec", "minReadySeconds"}, 0);
  auto by_node = daemon_pods_by_node(pods);
  int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  for (const ObjectPtr& node : nodes) {
    auto it = by_node.find(name_of(*node));
    const bool scheduled = it != by_node.end() && !it->second.empty();
    if (!daemon_node_fit(daemon_set, *node).should_run) {
      misscheduled += scheduled ? 1 : 0;
      continue;
    }
    ++desired;
    if (!scheduled) {
      continue;
    }
    ++current;
    oldest_first(it->second);
    const json& pod = *it->second.front();
    if (pod_ready(pod)) {
      ++ready;
      available += pod_available(pod, min_ready, now) ? 1 : 0;
    }
    updated += daemon_pod_updated(daemon_set, pod, hash) ? 1 : 0;
  }
  json status = {{"currentNumberScheduled", current},
                 {"numberMisscheduled", misscheduled},
                 {"desiredNumberScheduled", desired},
                 {"numberReady", ready},
                 {"observedGeneration", int_at(daemon_set, {"metadata", "generation"}, 0)}};
  // Zero counts of the optional fields are left out, as Go's omitempty writes them.
  for (auto [field, value] :
       {std::pair{"updatedNumberScheduled", updated}, std::pair{"numberAvailable", available},
        std::pair{"numberUnavailable", desired - available},
        std::pair{"collisionCount", collision_count}}) {
    if (value != 0) {
      status[field] = value;
    }
  }
  if (const json* conditions = at(daemon_set, {"status", "conditions"}); conditions != nullptr) {
    status["conditions"] = *conditions;
  }
  return status;
}

}  // namespace cluster
