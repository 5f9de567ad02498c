#include "workloads/disruption_controller.h"

#include <charconv>
#include <cmath>
#include <set>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

const ResourceRef kBudgets{"policy", "v1", "poddisruptionbudgets", true};

// The resource of a controller kind the disruption controller knows the scale of.
std::optional<ResourceRef> scalable(const json& ref) {
  const std::string kind = string_at(ref, {"kind"});
  const std::string api = string_at(ref, {"apiVersion"});
  if (kind == "ReplicaSet" && api == "apps/v1")
    return ResourceRef{"apps", "v1", "replicasets", true};
  if (kind == "StatefulSet" && api == "apps/v1")
    return ResourceRef{"apps", "v1", "statefulsets", true};
  if (kind == "Deployment" && api == "apps/v1")
    return ResourceRef{"apps", "v1", "deployments", true};
  if (kind == "ReplicationController" && api == "v1") {
    return ResourceRef{"", "v1", "replicationcontrollers", true};
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> scaled_value(const json& value, int64_t of) {
  if (value.is_number_integer()) {
    return value.get<int64_t>();
  }
  if (!value.is_string()) {
    return std::nullopt;
  }
  std::string text = value.get<std::string>();
  if (text.size() < 2 || text.back() != '%') {
    return std::nullopt;
  }
  int64_t percent = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, percent);
  if (ec != std::errc() || end != text.data() + text.size() - 1 || percent < 0) {
    return std::nullopt;
  }
  return static_cast<int64_t>(
      std::ceil(static_cast<double>(percent) * static_cast<double>(of) / 100.0));
}

DisruptionController::DisruptionController(const Client& client, Informer& pods,
                                           const common::Clock& clock)
    : Controller("disruption-controller", clock),
      client_(client),
      budgets_(client, kBudgets, {}, clock),
      pods_(pods) {
  auto changed = [this](const json& b) { queue().add(Informer::key_of(b)); };
  budgets_.add_handlers({.added = changed,
                         .updated = [changed](const json&, const json& b) { changed(b); },
                         .deleted = {}});
  pods_.add_handlers({.added = [this](const json& p) { pod_changed(p); },
                      .updated = [this](const json&, const json& p) { pod_changed(p); },
                      .deleted = [this](const json& p) { pod_changed(p); }});
}

DisruptionController::~DisruptionController() {
  stop();
  budgets_.stop();
}

void DisruptionController::start() {
  budgets_.start();
}

void DisruptionController::pod_changed(const json& pod) {
  const json* labels = at(pod, {"metadata", "labels"});
  if (labels == nullptr)
    return;
  for (const ObjectPtr& budget : budgets_.list(namespace_of(pod))) {
    const json* selector = at(*budget, {"spec", "selector"});
    if (selector != nullptr && selector_matches(*selector, *labels)) {
      queue().add(Informer::key_of(*budget));
    }
  }
}

std::optional<int64_t> DisruptionController::controller_scale(const json& pod,
                                                              const std::string& ns) {
  const json* ref = controller_ref(pod);
  if (ref == nullptr)
    return std::nullopt;
  auto resource = scalable(*ref);
  if (!resource)
    return std::nullopt;
  auto owner = client_.get(resource->object(ns, string_at(*ref, {"name"})));
  if (!owner)
    return std::nullopt;
  // A ReplicaSet of a Deployment counts as its Deployment.
  if (const json* up = controller_ref(*owner);
      up != nullptr && string_at(*up, {"kind"}) == "Deployment") {
    if (auto deployment = client_.get(
            ResourceRef{"apps", "v1", "deployments", true}.object(ns, string_at(*up, {"name"})))) {
      return int_at(*deployment, {"spec", "replicas"}, 1);
    }
  }
  return int_at(*owner, {"spec", "replicas"}, 1);
}

std::optional<std::string> DisruptionController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  ObjectPtr budget = budgets_.get(ns, key.substr(slash + 1));
  if (budget == nullptr)
    return std::nullopt;
  const json* selector = at(*budget, {"spec", "selector"});
  std::vector<ObjectPtr> pods;
  for (const ObjectPtr& pod : pods_.list(ns)) {
    const json* labels = at(*pod, {"metadata", "labels"});
    if (selector != nullptr && labels != nullptr && selector_matches(*selector, *labels) &&
        !pod_terminal(*pod)) {
      pods.push_back(pod);
    }
  }
  // Pods the API server evicted that this controller has not seen go yet: not healthy, and kept
  // in disruptedPods until they are deleted or 2 minutes passed (upstream's DeletionTimeout).
  const auto wall = clock().system_now();
  json disrupted = json::object();
  if (const json* recorded = at(*budget, {"status", "disruptedPods"});
      recorded && recorded->is_object()) {
    for (const auto& [name, when] : recorded->items()) {
      ObjectPtr pod = pods_.get(ns, name);
      const auto parsed = when.is_string() ? parse_time(when.get<std::string>()) : std::nullopt;
      if (pod == nullptr || being_deleted(*pod) || !parsed.has_value()) {
        continue;
      }
      const std::chrono::system_clock::time_point expires =
          parsed.value() + std::chrono::minutes(2);
      if (wall >= expires) {
        continue;
      }
      disrupted[name] = when;
      requeue_after(key, std::chrono::duration_cast<common::Clock::duration>(expires - wall));
    }
  }
  int64_t healthy = 0;
  for (const ObjectPtr& pod : pods) {
    if (!being_deleted(*pod) && pod_ready(*pod) && !disrupted.contains(name_of(*pod)))
      ++healthy;
  }
  const json* min_available = at(*budget, {"spec", "minAvailable"});
  const json* max_unavailable = at(*budget, {"spec", "maxUnavailable"});
  int64_t expected = static_cast<int64_t>(pods.size());
  int64_t desired = 0;
  bool computed = true;
  auto controllers_scale = [&]() -> std::optional<int64_t> {
    std::set<std::string> seen;
    int64_t total = 0;
    for (const ObjectPtr& pod : pods) {
      const json* ref = controller_ref(*pod);
      if (ref == nullptr)
        return std::nullopt;  // upstream: a pod without a controller is an error
      if (!seen.insert(string_at(*ref, {"uid"})).second)
        continue;
      auto scale = controller_scale(*pod, ns);
      if (!scale)
        return std::nullopt;
      total += *scale;
    }
    return total;
  };
  if (max_unavailable != nullptr) {
    auto scale = controllers_scale();
    if (scale) {
      expected = *scale;
      desired = expected - scaled_value(*max_unavailable, expected).value_or(0);
    } else {
      computed = false;
    }
  } else if (min_available != nullptr && min_available->is_number_integer()) {
    desired = min_available->get<int64_t>();
  } else if (min_available != nullptr) {
    auto scale = controllers_scale();
    if (scale) {
      expected = *scale;
      desired = scaled_value(*min_available, expected).value_or(0);
    } else {
      computed = false;
    }
  }
  json status = at(*budget, {"status"}) != nullptr ? *at(*budget, {"status"}) : json::object();
  json updated = status;
  const std::string now = rfc3339(wall);
  json conditions = updated.value("conditions", json::array());
  const int64_t allowed = computed ? std::max<int64_t>(healthy - desired, 0) : 0;
  updated["currentHealthy"] = healthy;
  updated["desiredHealthy"] = desired;
  updated["expectedPods"] = expected;
  updated["disruptionsAllowed"] = allowed;
  updated["observedGeneration"] = int_at(*budget, {"metadata", "generation"}, 0);
  if (disrupted.empty()) {
    updated.erase("disruptedPods");
  } else {
    updated["disruptedPods"] = disrupted;
  }
  if (!computed) {
    set_condition(conditions, "DisruptionAllowed", "False", "SyncFailed",
                  "found no controllers for pods matching the budget's selector", now);
  } else if (allowed > 0) {
    set_condition(conditions, "DisruptionAllowed", "True", "SufficientPods", "", now);
  } else {
    set_condition(conditions, "DisruptionAllowed", "False", "InsufficientPods", "", now);
  }
  // A metav1.Condition: message always written, the generation it saw too.
  for (json& c : conditions) {
    if (!c.contains("message"))
      c["message"] = "";
    c["observedGeneration"] = updated["observedGeneration"];
  }
  updated["conditions"] = conditions;
  if (updated == status)
    return std::nullopt;
  json body = *budget;
  body["status"] = updated;
  auto written = client_.update(kBudgets.object(ns, name_of(*budget), "status"), body);
  if (!written && !written.error().not_found()) {
    return "updating the status of poddisruptionbudget " + key + ": " + written.error().message;
  }
  return std::nullopt;
}

}  // namespace cluster
