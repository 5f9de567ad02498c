#include "workloads/daemon_set_utils.h"

#include <algorithm>
#include <cmath>

#include "client/objects.h"
#include "scheduler/fit.h"
#include "workloads/controller_history.h"
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

int64_t scaled(const json* value, int64_t total, int64_t fallback) {
  if (value == nullptr || value->is_null()) {
    return fallback;
  }
  if (value->is_number_integer()) {
    return value->get<int64_t>();
  }
  if (value->is_string()) {
    std::string text = value->get<std::string>();
    if (!text.empty() && text.back() == '%') {
      text.pop_back();
      const double percent = std::strtod(text.c_str(), nullptr);
      return static_cast<int64_t>(std::ceil(percent * static_cast<double>(total) / 100.0));
    }
    return std::strtoll(text.c_str(), nullptr, 10);
  }
  return fallback;
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
    if (being_deleted(*pod)) {
      continue;
    }
    if (std::string node = daemon_pod_node(*pod); !node.empty()) {
      by_node[node].push_back(pod);
    }
  }
  return by_node;
}

DaemonPlan plan_daemon_set(const json& daemon_set, const std::vector<ObjectPtr>& nodes,
                           const std::vector<ObjectPtr>& pods) {
  DaemonPlan plan;
  auto by_node = daemon_pods_by_node(pods);
  for (const ObjectPtr& node : nodes) {
    const DaemonNodeFit fit = daemon_node_fit(daemon_set, *node);
    auto it = by_node.find(name_of(*node));
    const bool exists = it != by_node.end() && !it->second.empty();
    if (fit.should_run && !exists) {
      plan.create_on.push_back(name_of(*node));
    } else if (fit.may_keep_running && exists) {
      std::vector<ObjectPtr> running;
      for (const ObjectPtr& pod : it->second) {
        if (string_at(*pod, {"status", "phase"}) == "Failed") {
          plan.failed.push_back(pod);
          plan.delete_pods.push_back(name_of(*pod));
        } else {
          running.push_back(pod);
        }
      }
      // One daemon pod per node: the oldest stays.
      oldest_first(running);
      for (size_t i = 1; i < running.size(); ++i) {
        plan.delete_pods.push_back(name_of(*running[i]));
      }
    } else if (!fit.may_keep_running && exists) {
      for (const ObjectPtr& pod : it->second) {
        plan.delete_pods.push_back(name_of(*pod));
      }
    }
  }
  return plan;
}

int64_t daemon_max_unavailable(const json& daemon_set, int64_t desired) {
  const json* rolling = at(daemon_set, {"spec", "updateStrategy", "rollingUpdate"});
  const json* unavailable = rolling != nullptr ? at(*rolling, {"maxUnavailable"}) : nullptr;
  const json* surge = rolling != nullptr ? at(*rolling, {"maxSurge"}) : nullptr;
  const int64_t max_unavailable = scaled(unavailable, desired, 1);
  if (max_unavailable == 0 && scaled(surge, desired, 0) == 0) {
    return 1;
  }
  return max_unavailable;
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

std::vector<std::string> rolling_update_deletions(const json& daemon_set,
                                                  const std::vector<ObjectPtr>& nodes,
                                                  const std::vector<ObjectPtr>& pods,
                                                  const std::string& hash,
                                                  std::chrono::system_clock::time_point now) {
  int64_t desired = 0;
  for (const ObjectPtr& node : nodes) {
    desired += daemon_node_fit(daemon_set, *node).should_run ? 1 : 0;
  }
  const int64_t max_unavailable = daemon_max_unavailable(daemon_set, desired);
  const int64_t min_ready = int_at(daemon_set, {"spec", "minReadySeconds"}, 0);
  int64_t unavailable = 0;
  std::vector<std::string> replace, candidates;
  for (const auto& [node, on_node] : daemon_pods_by_node(pods)) {
    const json* fresh = nullptr;
    const json* old = nullptr;
    bool ok = true;
    for (const ObjectPtr& pod : on_node) {
      const json*& slot = daemon_pod_updated(daemon_set, *pod, hash) ? fresh : old;
      ok = ok && slot == nullptr;
      slot = pod.get();
    }
    if (!ok || (fresh == nullptr) == (old == nullptr)) {
      ++unavailable;  // the manage pass sorts this node out first
    } else if (fresh != nullptr) {
      unavailable += pod_available(*fresh, min_ready, now) ? 0 : 1;
    } else if (!pod_available(*old, min_ready, now)) {
      replace.push_back(name_of(*old));
    } else if (unavailable < max_unavailable) {
      candidates.push_back(name_of(*old));
    }
  }
  const int64_t room = std::clamp<int64_t>(max_unavailable - unavailable, 0,
                                           static_cast<int64_t>(candidates.size()));
  replace.insert(replace.end(), candidates.begin(), candidates.begin() + room);
  return replace;
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
