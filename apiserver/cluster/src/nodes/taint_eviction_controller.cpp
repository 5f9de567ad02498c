#include "nodes/taint_eviction_controller.h"

#include <algorithm>

#include "client/objects.h"
#include "nodes/node_pods.h"
#include "scheduler/fit.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
constexpr int kConflictRetries = 5;
// A toleration longer than this is as good as for ever (and keeps time points in range).
constexpr int64_t kLongestSeconds = int64_t{100} * 365 * 24 * 3600;

// The node's NoExecute taints (an array).
json no_execute_taints(const json& node) {
  json out = json::array();
  if (const json* taints = at(node, {"spec", "taints"}); taints && taints->is_array()) {
    for (const json& t : *taints) {
      if (string_at(t, {"effect"}) == "NoExecute") {
        out.push_back(t);
      }
    }
  }
  return out;
}

json field(const json& object, std::initializer_list<const char*> path) {
  const json* value = at(object, path);
  return value != nullptr ? *value : json(nullptr);
}

// What upstream's events about evictions point at: the pod by namespace and name alone.
json pod_ref(const std::string& key) {
  const size_t slash = key.find('/');
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"namespace", key.substr(0, slash)}, {"name", key.substr(slash + 1)}}}};
}

}  // namespace

TaintTolerance taint_tolerance(const json& pod, const json& taints) {
  TaintTolerance result;
  if (!taints.is_array() || taints.empty()) {
    return result;
  }
  const json* tolerations = at(pod, {"spec", "tolerations"});
  std::vector<const json*> used;
  for (const json& taint : taints) {
    const json* match = nullptr;
    if (tolerations != nullptr && tolerations->is_array()) {
      for (const json& t : *tolerations) {
        if (toleration_matches(t, taint)) {
          match = &t;
          break;
        }
      }
    }
    if (match == nullptr) {
      return {false, std::chrono::seconds(0)};
    }
    used.push_back(match);
  }
  for (const json* t : used) {
    const json* seconds = at(*t, {"tolerationSeconds"});
    if (seconds == nullptr || !seconds->is_number_integer()) {
      continue;
    }
    const int64_t value =
        seconds->is_number_unsigned()
            ? static_cast<int64_t>(std::min<uint64_t>(seconds->get<uint64_t>(),
                                                      static_cast<uint64_t>(kLongestSeconds)))
            : seconds->get<int64_t>();
    if (value <= 0) {
      return {true, std::chrono::seconds(0)};
    }
    const auto s = std::chrono::seconds(std::min(value, kLongestSeconds));
    result.seconds = result.seconds ? std::min(*result.seconds, s) : s;
  }
  return result;
}

std::optional<std::chrono::seconds> toleration_time(const json& pod, const json& taint) {
  const TaintTolerance t = taint_tolerance(pod, json::array({taint}));
  if (!t.tolerated) {
    return std::chrono::seconds(0);
  }
  return t.seconds;
}

TaintEvictionController::TaintEvictionController(const Client& client, Informer& pods,
                                                 Informer& nodes, const common::Clock& clock)
    : Controller("taint-eviction-controller", clock),
      client_(client),
      events_(client, "taint-eviction-controller", "", clock),
      pods_(pods),
      nodes_(nodes) {
  pods_.add_handlers(
      {.added =
           [this](const json& p) {
             if (!string_at(p, {"spec", "nodeName"}).empty())
               queue().add("pod/" + Informer::key_of(p));
           },
       .updated =
           [this](const json& old, const json& p) {
             // Only what changes the decision: the node, the tolerations.
             if (string_at(old, {"spec", "nodeName"}) != string_at(p, {"spec", "nodeName"}) ||
                 field(old, {"spec", "tolerations"}) != field(p, {"spec", "tolerations"}))
               queue().add("pod/" + Informer::key_of(p));
           },
       .deleted = [this](const json& p) { queue().add("pod/" + Informer::key_of(p)); }});
  nodes_.add_handlers({.added =
                           [this](const json& n) {
                             if (!no_execute_taints(n).empty())
                               queue().add("node/" + name_of(n));
                           },
                       .updated =
                           [this](const json& old, const json& n) {
                             if (no_execute_taints(old) != no_execute_taints(n))
                               queue().add("node/" + name_of(n));
                           },
                       .deleted = {}});
}

TaintEvictionController::~TaintEvictionController() {
  stop();
}

std::optional<std::string> TaintEvictionController::sync(const std::string& key) {
  if (key.starts_with("pod/")) {
    return sync_pod(key.substr(4));
  }
  if (key.starts_with("node/")) {
    return sync_node(key.substr(5));
  }
  if (key.starts_with("evict/")) {
    return fire(key.substr(6));
  }
  return std::nullopt;
}

std::optional<std::string> TaintEvictionController::sync_pod(const std::string& key) {
  ObjectPtr pod = pod_by_key(pods_, key);
  if (pod == nullptr) {
    cancel(key);
    return std::nullopt;
  }
  const std::string node_name = string_at(*pod, {"spec", "nodeName"});
  ObjectPtr node = node_name.empty() ? nullptr : nodes_.get("", node_name);
  if (node == nullptr) {
    return std::nullopt;
  }
  const json taints = no_execute_taints(*node);
  if (taints.empty()) {
    return std::nullopt;
  }
  return decide(key, *pod, taints, clock().system_now());
}

std::optional<std::string> TaintEvictionController::sync_node(const std::string& name) {
  ObjectPtr node = nodes_.get("", name);
  if (node == nullptr) {
    return std::nullopt;
  }
  const json taints = no_execute_taints(*node);
  const auto now = clock().system_now();
  std::optional<std::string> failed;
  for (const ObjectPtr& pod : pods_on_node(pods_, name)) {
    const std::string key = Informer::key_of(*pod);
    if (taints.empty()) {
      cancel(key);  // every taint gone: every pending deletion called off
      continue;
    }
    if (auto error = decide(key, *pod, taints, now); error && !failed) {
      failed = std::move(error);
    }
  }
  return failed;
}

std::optional<std::string> TaintEvictionController::decide(const std::string& key, const json& pod,
                                                           const json& taints, TimePoint now) {
  const TaintTolerance tolerance = taint_tolerance(pod, taints);
  if (!tolerance.tolerated) {
    cancel(key);
    return evict(key);
  }
  if (!tolerance.seconds) {
    cancel(key);  // tolerated for ever
    return std::nullopt;
  }
  TimePoint start = now;
  if (auto it = pending_.find(key); it != pending_.end()) {
    if (it->second.created < now) {
      return std::nullopt;  // already pending: it keeps its time
    }
    start = it->second.created;
    cancel(key);
  }
  const TimePoint due = start + *tolerance.seconds;
  if (due <= now) {
    return evict(key);
  }
  pending_[key] = {start, due};
  requeue_after("evict/" + key, std::chrono::duration_cast<common::Clock::duration>(due - now) +
                                    std::chrono::milliseconds(10));
  return std::nullopt;
}

std::optional<std::string> TaintEvictionController::fire(const std::string& key) {
  auto it = pending_.find(key);
  if (it == pending_.end()) {
    return std::nullopt;  // called off
  }
  const auto now = clock().system_now();
  if (now < it->second.due) {
    requeue_after("evict/" + key,
                  std::chrono::duration_cast<common::Clock::duration>(it->second.due - now) +
                      std::chrono::milliseconds(10));
    return std::nullopt;
  }
  auto failed = evict(key);
  if (!failed) {
    pending_.erase(key);
  }
  return failed;
}

void TaintEvictionController::cancel(const std::string& key) {
  if (pending_.erase(key) != 0) {
    events_.record(pod_ref(key), "Normal", "TaintManagerEviction",
                   "Cancelling deletion of Pod " + key);
  }
}

std::optional<std::string> TaintEvictionController::evict(const std::string& key) {
  events_.record(pod_ref(key), "Normal", "TaintManagerEviction", "Marking for deletion Pod " + key);
  const size_t slash = key.find('/');
  const std::string path = kPods.object(key.substr(0, slash), key.substr(slash + 1));
  for (int attempt = 0;; ++attempt) {
    auto pod = client_.get(path);
    if (!pod) {
      return pod.error().not_found()
                 ? std::nullopt
                 : std::optional<std::string>("reading pod " + key + ": " + pod.error().message);
    }
    json conditions = field(*pod, {"status", "conditions"});
    const json before = conditions;
    set_condition(conditions, "DisruptionTarget", "True", "DeletionByTaintManager",
                  "Taint manager: deleting due to NoExecute taint", rfc3339(clock().system_now()));
    if (conditions == before) {
      break;
    }
    auto marked = client_.patch(path + "/status", "application/merge-patch+json",
                                {{"metadata", {{"resourceVersion", resource_version_of(*pod)}}},
                                 {"status", {{"conditions", conditions}}}});
    if (marked || marked.error().not_found()) {
      break;
    }
    if (!marked.error().conflict() || attempt + 1 == kConflictRetries) {
      return "marking pod " + key + " for eviction: " + marked.error().message;
    }
  }
  auto removed = client_.remove(path);
  if (!removed && !removed.error().not_found()) {
    return "deleting pod " + key + ": " + removed.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
