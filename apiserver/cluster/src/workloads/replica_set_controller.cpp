#include "workloads/replica_set_controller.h"

#include <algorithm>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
// At most this many pods are created or deleted in one sync (kube-controller-manager's burst).
constexpr int64_t kBurst = 500;

// The deletion order of kube-controller-manager's ActivePods ranking: unscheduled before
// scheduled, pending before unknown before running, not ready before ready, newer before older.
int rank(const json& pod) {
  if (string_at(pod, {"spec", "nodeName"}).empty())
    return 0;
  const std::string phase = string_at(pod, {"status", "phase"});
  if (phase == "Pending")
    return 1;
  if (phase != "Running")
    return 2;
  return pod_ready(pod) ? 4 : 3;
}

}  // namespace

ReplicaSetController::ReplicaSetController(const Client& client, ResourceRef owners, Informer& pods,
                                           const common::Clock& clock)
    : Controller(owners.resource == "replicasets" ? "replicaset-controller"
                                                  : "replicationcontroller-controller",
                 clock),
      client_(client),
      owners_(owners),
      kind_(owners.resource == "replicasets" ? "ReplicaSet" : "ReplicationController"),
      events_(client,
              owners.resource == "replicasets" ? "replicaset-controller" : "replication-controller",
              "", clock),
      owner_informer_(client, owners, {}, clock),
      pods_(pods),
      expectations_(pods) {
  auto owner_changed = [this](const json& o) { queue().add(Informer::key_of(o)); };
  owner_informer_.add_handlers(
      {.added = owner_changed,
       .updated = [owner_changed](const json&, const json& o) { owner_changed(o); },
       .deleted = [this](const json& o) { expectations_.forget(Informer::key_of(o)); }});
  pods_.add_handlers(owner_handlers(
      owner_kind(kind_, owner_informer_, [this](const json& o) { return selector_of(o); }),
      queue()));
}

ReplicaSetController::~ReplicaSetController() {
  stop();
  owner_informer_.stop();
}

void ReplicaSetController::start() {
  owner_informer_.start();
}

json ReplicaSetController::selector_of(const json& owner) const {
  const json* selector = at(owner, {"spec", "selector"});
  if (selector == nullptr) {
    return nullptr;
  }
  if (kind_ == "ReplicationController") {
    return {{"matchLabels", *selector}};
  }
  return *selector;
}

std::optional<std::string> ReplicaSetController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  ObjectPtr owner = owner_informer_.get(ns, key.substr(slash + 1));
  if (owner == nullptr) {
    return std::nullopt;
  }
  // The active pods (not finished, not being deleted) it controls, adopting and releasing.
  std::vector<ObjectPtr> candidates;
  for (const ObjectPtr& pod : pods_.list(ns)) {
    if (!pod_terminal(*pod) && !being_deleted(*pod)) {
      candidates.push_back(pod);
    }
  }
  ControllerRefManager refs(client_, *owner, owners_, selector_matcher(selector_of(*owner)));
  Claimed claimed = refs.claim(kPods, candidates);
  if (claimed.error) {
    return "claiming the pods of " + key + ": " + *claimed.error;
  }
  const std::vector<ObjectPtr>& active = claimed.objects;
  std::optional<std::string> failure;
  if (!being_deleted(*owner) && expectations_.satisfied(key)) {
    const int64_t want = int_at(*owner, {"spec", "replicas"}, 1);
    const int64_t diff = static_cast<int64_t>(active.size()) - want;
    std::set<std::string> creating, deleting;
    if (diff < 0) {
      const json* tmpl = at(*owner, {"spec", "template"});
      const int64_t count = std::min(-diff, kBurst);
      for (int64_t i = 0; i < count; ++i) {
        json pod = pod_from_template(*owner, tmpl != nullptr ? *tmpl : json::object());
        pod["metadata"]["generateName"] = name_of(*owner) + "-";
        auto created = client_.create(kPods.collection(ns), pod);
        if (!created) {
          failure = created.error().message;
          events_.record(*owner, "Warning", "FailedCreate", "Error creating: " + failure.value());
          break;
        }
        creating.insert(name_of(*created));
        events_.record(*owner, "Normal", "SuccessfulCreate", "Created pod: " + name_of(*created));
      }
    } else if (diff > 0) {
      std::vector<ObjectPtr> order = active;
      std::stable_sort(order.begin(), order.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
        const int ra = rank(*a), rb = rank(*b);
        if (ra != rb)
          return ra < rb;
        return string_at(*a, {"metadata", "creationTimestamp"}) >
               string_at(*b, {"metadata", "creationTimestamp"});
      });
      for (int64_t i = 0; i < std::min(diff, kBurst); ++i) {
        const json& pod = *order[static_cast<size_t>(i)];
        auto removed = client_.remove(kPods.object(ns, name_of(pod)));
        if (!removed && !removed.error().not_found()) {
          failure = removed.error().message;
          events_.record(*owner, "Warning", "FailedDelete", "Error deleting: " + failure.value());
          break;
        }
        deleting.insert(name_of(pod));
        events_.record(*owner, "Normal", "SuccessfulDelete", "Deleted pod: " + name_of(pod));
      }
    }
    expectations_.expect(key, std::move(creating), std::move(deleting));
  }
  return update_status(*owner, active, failure);
}

std::optional<std::string> ReplicaSetController::update_status(
    const json& owner, const std::vector<ObjectPtr>& pods,
    const std::optional<std::string>& failure) {
  const auto now = clock().system_now();
  const int64_t min_ready = int_at(owner, {"spec", "minReadySeconds"}, 0);
  const json* tmpl_labels = at(owner, {"spec", "template", "metadata", "labels"});
  int64_t labeled = 0, ready = 0, available = 0;
  std::optional<std::chrono::system_clock::duration> next_available;
  for (const ObjectPtr& pod : pods) {
    const json* labels = at(*pod, {"metadata", "labels"});
    bool all = true;
    if (tmpl_labels != nullptr && tmpl_labels->is_object()) {
      for (const auto& [k, v] : tmpl_labels->items()) {
        if (labels == nullptr || !labels->contains(k) || (*labels)[k] != v)
          all = false;
      }
    }
    labeled += all ? 1 : 0;
    if (pod_ready(*pod)) {
      ++ready;
      if (pod_available(*pod, min_ready, now)) {
        ++available;
      } else if (auto since =
                     parse_time(string_at(*condition(*pod, "Ready"), {"lastTransitionTime"}))) {
        const auto wait = *since + std::chrono::seconds(min_ready) - now;
        next_available = next_available ? std::min(*next_available, wait) : wait;
      }
    }
  }
  json status = at(owner, {"status"}) != nullptr ? *at(owner, {"status"}) : json::object();
  json updated = status;
  updated["replicas"] = static_cast<int64_t>(pods.size());
  updated["fullyLabeledReplicas"] = labeled;
  updated["readyReplicas"] = ready;
  updated["availableReplicas"] = available;
  updated["observedGeneration"] = int_at(owner, {"metadata", "generation"}, 0);
  json conditions = updated.contains("conditions") ? updated["conditions"] : json::array();
  if (failure) {
    set_condition(conditions, "ReplicaFailure", "True", "FailedCreate", *failure, rfc3339(now));
  } else {
    json kept = json::array();
    for (const json& c : conditions) {
      if (string_at(c, {"type"}) != "ReplicaFailure")
        kept.push_back(c);
    }
    conditions = std::move(kept);
  }
  if (conditions.empty()) {
    updated.erase("conditions");
  } else {
    updated["conditions"] = conditions;
  }
  // Zero counts are left out, as Go's omitempty writes them.
  for (const char* field : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    if (updated[field] == 0)
      updated.erase(field);
  }
  if (next_available) {
    requeue_after(Informer::key_of(owner),
                  std::chrono::duration_cast<common::Clock::duration>(*next_available) +
                      std::chrono::milliseconds(10));
  }
  if (updated == status) {
    return failure ? std::optional<std::string>("creating pods: " + *failure) : std::nullopt;
  }
  json body = owner;
  body["status"] = updated;
  auto written =
      client_.update(owners_.object(namespace_of(owner), name_of(owner), "status"), body);
  if (!written && !written.error().not_found()) {
    return "updating the status of " + Informer::key_of(owner) + ": " + written.error().message;
  }
  return failure ? std::optional<std::string>("creating pods: " + *failure) : std::nullopt;
}

}  // namespace cluster
