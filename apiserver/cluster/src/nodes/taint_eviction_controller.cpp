#include "nodes/taint_eviction_controller.h"

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "scheduler/fit.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};

}  // namespace

std::optional<std::chrono::seconds> toleration_time(const json& pod, const json& taint) {
  const json* tolerations = at(pod, {"spec", "tolerations"});
  std::optional<std::chrono::seconds> shortest;
  bool tolerated = false;
  if (tolerations != nullptr && tolerations->is_array()) {
    for (const json& t : *tolerations) {
      if (!toleration_matches(t, taint))
        continue;
      tolerated = true;
      const json* seconds = at(t, {"tolerationSeconds"});
      if (seconds == nullptr || !seconds->is_number_integer()) {
        return std::nullopt;  // for ever
      }
      const auto s = std::chrono::seconds(std::max<int64_t>(seconds->get<int64_t>(), 0));
      shortest = shortest ? std::min(*shortest, s) : s;
    }
  }
  return tolerated ? shortest : std::chrono::seconds(0);
}

TaintEvictionController::TaintEvictionController(const Client& client, Informer& pods,
                                                 Informer& nodes, const common::Clock& clock)
    : Controller("taint-eviction-controller", clock),
      client_(client),
      events_(client, "taint-eviction-controller", "", clock),
      pods_(pods),
      nodes_(nodes) {
  auto pod_changed = [this](const json& p) {
    if (!string_at(p, {"spec", "nodeName"}).empty())
      queue().add(Informer::key_of(p));
  };
  pods_.add_handlers({.added = pod_changed,
                      .updated = [pod_changed](const json&, const json& p) { pod_changed(p); },
                      .deleted = {}});
  auto node_changed = [this](const json& n) {
    const json* taints = at(n, {"spec", "taints"});
    if (taints == nullptr || !taints->is_array())
      return;
    bool no_execute = false;
    for (const json& t : *taints)
      no_execute = no_execute || string_at(t, {"effect"}) == "NoExecute";
    if (!no_execute)
      return;
    for (const ObjectPtr& p : pods_.list()) {
      if (string_at(*p, {"spec", "nodeName"}) == name_of(n))
        queue().add(Informer::key_of(*p));
    }
  };
  nodes_.add_handlers({.added = node_changed,
                       .updated = [node_changed](const json&, const json& n) { node_changed(n); },
                       .deleted = {}});
}

TaintEvictionController::~TaintEvictionController() {
  stop();
}

std::optional<std::string> TaintEvictionController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const auto wall = clock().system_now();
  auto forget = [&] {
    std::lock_guard lock(mu_);
    first_seen_.erase(key);
    return std::nullopt;
  };
  ObjectPtr pod = pods_.get(ns, key.substr(slash + 1));
  if (pod == nullptr || being_deleted(*pod) || pod_terminal(*pod))
    return forget();
  ObjectPtr node = nodes_.get("", string_at(*pod, {"spec", "nodeName"}));
  if (node == nullptr)
    return forget();
  const json* taints = at(*node, {"spec", "taints"});
  if (taints == nullptr || !taints->is_array())
    return forget();
  std::chrono::system_clock::time_point seen;
  {
    std::lock_guard lock(mu_);
    seen = first_seen_.emplace(key, wall).first->second;
  }
  std::optional<std::chrono::system_clock::time_point> evict_at;
  for (const json& taint : *taints) {
    if (string_at(taint, {"effect"}) != "NoExecute")
      continue;
    auto allowed = toleration_time(*pod, taint);
    if (!allowed)
      continue;  // tolerated for ever
    const auto added = parse_time(string_at(taint, {"timeAdded"})).value_or(seen);
    const auto when = added + *allowed;
    evict_at = evict_at ? std::min(*evict_at, when) : when;
  }
  if (!evict_at)
    return forget();
  if (wall < *evict_at) {
    requeue_after(key, std::chrono::duration_cast<common::Clock::duration>(*evict_at - wall) +
                           std::chrono::milliseconds(10));
    return std::nullopt;
  }
  events_.record(*pod, "Normal", "TaintManagerEviction", "Marking for deletion Pod " + key);
  json conditions = at(*pod, {"status", "conditions"}) != nullptr
                        ? *at(*pod, {"status", "conditions"})
                        : json::array();
  set_condition(conditions, "DisruptionTarget", "True", "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint", rfc3339(wall));
  auto marked =
      client_.patch(kPods.object(ns, name_of(*pod), "status"), "application/merge-patch+json",
                    {{"status", {{"conditions", conditions}}}});
  if (!marked && !marked.error().not_found()) {
    return "marking pod " + key + " for eviction: " + marked.error().message;
  }
  auto removed = client_.remove(kPods.object(ns, name_of(*pod)));
  if (!removed && !removed.error().not_found()) {
    return "deleting pod " + key + ": " + removed.error().message;
  }
  return forget();
}

}  // namespace cluster
