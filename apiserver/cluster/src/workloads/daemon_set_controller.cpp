#include "workloads/daemon_set_controller.h"

#include <set>

#include "client/objects.h"
#include "workloads/controller_history.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/daemon_set_utils.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kNodes{"", "v1", "nodes", false};
const ResourceRef kDaemonSets{"apps", "v1", "daemonsets", true};
constexpr int64_t kDefaultHistoryLimit = 10;
// At most this many pods are created or deleted in one sync (kube-controller-manager's burst).
constexpr size_t kBurst = 250;

}  // namespace

DaemonSetController::DaemonSetController(const Client& client, Informer& pods,
                                         const common::Clock& clock)
    : Controller("daemonset-controller", clock),
      client_(client),
      events_(client, "daemonset-controller", "", clock),
      daemon_sets_(client, kDaemonSets, {}, clock),
      nodes_(client, kNodes, {}, clock),
      revisions_(client, kControllerRevisions, {}, clock),
      pods_(pods),
      expectations_(pods) {
  auto changed = [this](const json& d) { queue().add(Informer::key_of(d)); };
  daemon_sets_.add_handlers(
      {.added = changed,
       .updated = [changed](const json&, const json& d) { changed(d); },
       .deleted = [this](const json& d) { expectations_.forget(Informer::key_of(d)); }});
  nodes_.add_handlers({.added = [this](const json&) { enqueue_all(); },
                       .updated = [this](const json&, const json&) { enqueue_all(); },
                       .deleted = [this](const json&) { enqueue_all(); }});
  revisions_.add_handlers(owner_handlers(owner_kind("DaemonSet", daemon_sets_), queue()));
  pods_.add_handlers(owner_handlers(owner_kind("DaemonSet", daemon_sets_), queue()));
  pods_.add_handlers({.added = nullptr,
                      .updated = [this](const json& old, const json& p) { pod_updated(old, p); },
                      .deleted = nullptr});
}

DaemonSetController::~DaemonSetController() {
  stop();
  daemon_sets_.stop();
  nodes_.stop();
  revisions_.stop();
}

void DaemonSetController::start() {
  revisions_.start();
  nodes_.start();
  daemon_sets_.start();
}

// A pod turning ready becomes available minReadySeconds later: its DaemonSet looks again then.
void DaemonSetController::pod_updated(const json& old, const json& pod) {
  const json* ref = controller_ref(pod);
  if (ref == nullptr || string_at(*ref, {"kind"}) != "DaemonSet" || pod_ready(old) ||
      !pod_ready(pod)) {
    return;
  }
  const std::string key = namespace_of(pod) + "/" + string_at(*ref, {"name"});
  if (ObjectPtr d = object_for_key(daemon_sets_, key)) {
    if (const int64_t min_ready = int_at(*d, {"spec", "minReadySeconds"}, 0); min_ready > 0) {
      requeue_after(key, std::chrono::seconds(min_ready + 1));
    }
  }
}

void DaemonSetController::enqueue_all() {
  for (const ObjectPtr& d : daemon_sets_.list()) {
    queue().add(Informer::key_of(*d));
  }
}

Result<json> DaemonSetController::current_revision(const json& daemon_set,
                                                   const std::vector<ObjectPtr>& history,
                                                   int64_t& collision_count) {
  const json data = template_patch(daemon_set);
  ObjectPtr current;
  int64_t newest_old = 0;
  for (const ObjectPtr& r : history) {
    const json* d = at(*r, {"data"});
    if (d != nullptr && *d == data) {
      current = r;  // of duplicates, the highest revision
    } else {
      newest_old = std::max(newest_old, int_at(*r, {"revision"}, 0));
    }
  }
  if (current == nullptr) {
    const std::optional<int64_t> count = at(daemon_set, {"status", "collisionCount"}) != nullptr
                                             ? std::optional<int64_t>(collision_count)
                                             : std::nullopt;
    json revision = new_revision(daemon_set, data, newest_old + 1, count);
    if (!count) {
      // No collision count yet: the first name is hashed without one.
      auto created =
          client_.create(kControllerRevisions.collection(namespace_of(daemon_set)), revision);
      if (created || !created.error().already_exists()) {
        return created;
      }
    }
    return create_revision(client_, daemon_set, std::move(revision), collision_count);
  }
  if (int_at(*current, {"revision"}, 0) > newest_old) {
    return *current;
  }
  json bumped = *current;
  bumped["revision"] = newest_old + 1;
  return client_.update(kControllerRevisions.object(namespace_of(daemon_set), name_of(bumped)),
                        bumped);
}

std::optional<std::string> DaemonSetController::sync(const std::string& key) {
  ObjectPtr daemon_set = object_for_key(daemon_sets_, key);
  if (daemon_set == nullptr) {
    return std::nullopt;
  }
  const std::string ns = namespace_of(*daemon_set);
  // Its revisions and pods, adopting and releasing (controller_ref_manager).
  ControllerRefManager refs(client_, *daemon_set, kDaemonSets,
                            selector_matcher(spec_selector(*daemon_set)));
  Claimed claimed_history = refs.claim(kControllerRevisions, revisions_.list(ns));
  if (claimed_history.error) {
    return "claiming the revisions of " + key + ": " + *claimed_history.error;
  }
  const std::vector<ObjectPtr> history = by_revision_number(std::move(claimed_history.objects));
  Claimed claimed = refs.claim(kPods, pods_.list(ns));
  if (claimed.error) {
    return "claiming the pods of " + key + ": " + *claimed.error;
  }
  const std::vector<ObjectPtr>& pods = claimed.objects;
  const std::vector<ObjectPtr> nodes = nodes_.list();
  const auto now = clock().system_now();
  int64_t collision_count = int_at(*daemon_set, {"status", "collisionCount"}, 0);
  auto current = current_revision(*daemon_set, history, collision_count);
  if (!current) {
    return "revisions of " + key + ": " + current.error().message;
  }
  const std::string hash = string_at(*current, {"metadata", "labels", kRevisionHashLabel});
  std::optional<std::string> failure;
  if (!being_deleted(*daemon_set) && expectations_.satisfied(key)) {
    DaemonPlan plan = plan_daemon_set(*daemon_set, nodes, pods, hash, now);
    for (const ObjectPtr& pod : plan.failed) {
      events_.record(*daemon_set, "Warning", "FailedDaemonPod",
                     "Found failed daemon pod " + ns + "/" + name_of(*pod) + " on node " +
                         daemon_pod_node(*pod) + ", will try to kill it");
    }
    // The rolling update goes once the manage pass has nothing to do.
    if (plan.create_on.empty() && plan.delete_pods.empty() &&
        string_at(*daemon_set, {"spec", "updateStrategy", "type"}) == "RollingUpdate") {
      plan = daemon_rolling_update(*daemon_set, nodes, pods, hash, now);
    }
    std::set<std::string> created, deleted;
    failure = delete_pods(*daemon_set, plan.delete_pods, deleted);
    if (!failure) {
      failure =
          create_pods(*daemon_set, daemon_pod_template(*daemon_set, hash), plan.create_on, created);
    }
    expectations_.expect(key, std::move(created), std::move(deleted));
  }
  prune_history(*daemon_set, *current, history, pods);
  const json status = daemon_status(*daemon_set, nodes, pods, hash, collision_count, now);
  if (const json* old = at(*daemon_set, {"status"}); old == nullptr || *old != status) {
    json body = *daemon_set;
    body["status"] = status;
    auto written = client_.update(kDaemonSets.object(ns, name_of(*daemon_set), "status"), body);
    if (!written && !written.error().not_found()) {
      return "updating the status of " + key + ": " + written.error().message;
    }
  }
  const int64_t min_ready = int_at(*daemon_set, {"spec", "minReadySeconds"}, 0);
  if (min_ready > 0 &&
      int_at(status, {"numberReady"}, 0) != int_at(status, {"numberAvailable"}, 0)) {
    requeue_after(key, std::chrono::seconds(min_ready));
  }
  return failure;
}

std::optional<std::string> DaemonSetController::create_pods(const json& daemon_set,
                                                            const json& pod_template,
                                                            const std::vector<std::string>& nodes,
                                                            std::set<std::string>& created) {
  for (size_t i = 0; i < nodes.size() && i < kBurst; ++i) {
    auto pod = client_.create(kPods.collection(namespace_of(daemon_set)),
                              new_daemon_pod(daemon_set, pod_template, nodes[i]));
    if (!pod) {
      events_.record(daemon_set, "Warning", "FailedCreate",
                     "Error creating: " + pod.error().message);
      return "creating pods: " + pod.error().message;
    }
    created.insert(name_of(*pod));
    events_.record(daemon_set, "Normal", "SuccessfulCreate", "Created pod: " + name_of(*pod));
  }
  return std::nullopt;
}

std::optional<std::string> DaemonSetController::delete_pods(const json& daemon_set,
                                                            const std::vector<std::string>& names,
                                                            std::set<std::string>& deleted) {
  for (size_t i = 0; i < names.size() && i < kBurst; ++i) {
    auto removed = client_.remove(kPods.object(namespace_of(daemon_set), names[i]));
    if (!removed && !removed.error().not_found()) {
      events_.record(daemon_set, "Warning", "FailedDelete",
                     "Error deleting: " + removed.error().message);
      return "deleting pods: " + removed.error().message;
    }
    deleted.insert(names[i]);
    if (removed) {
      events_.record(daemon_set, "Normal", "SuccessfulDelete", "Deleted pod: " + names[i]);
    }
  }
  return std::nullopt;
}

void DaemonSetController::prune_history(const json& daemon_set, const json& current,
                                        const std::vector<ObjectPtr>& history,
                                        const std::vector<ObjectPtr>& pods) {
  std::set<std::string> hashes;
  for (const ObjectPtr& pod : pods) {
    hashes.insert(string_at(*pod, {"metadata", "labels", kRevisionHashLabel}));
  }
  std::set<std::string> live = {name_of(current)};
  for (const ObjectPtr& r : history) {
    if (hashes.count(string_at(*r, {"metadata", "labels", kRevisionHashLabel})) != 0) {
      live.insert(name_of(*r));
    }
  }
  const int64_t limit = int_at(daemon_set, {"spec", "revisionHistoryLimit"}, kDefaultHistoryLimit);
  for (const std::string& name : revisions_to_prune(history, live, limit)) {
    (void)client_.remove(kControllerRevisions.object(namespace_of(daemon_set), name));
  }
}

}  // namespace cluster
