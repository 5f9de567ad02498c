#include "workloads/daemon_set_controller.h"

#include <set>

#include "client/objects.h"
#include "workloads/controller_history.h"
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
  pods_.add_handlers({.added = [this](const json& p) { pod_changed(p); },
                      .updated = [this](const json&, const json& p) { pod_changed(p); },
                      .deleted = [this](const json& p) { pod_changed(p); }});
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

void DaemonSetController::pod_changed(const json& pod) {
  const json* ref = controller_ref(pod);
  if (ref != nullptr && string_at(*ref, {"kind"}) == "DaemonSet") {
    queue().add(namespace_of(pod) + "/" + string_at(*ref, {"name"}));
  }
}

void DaemonSetController::enqueue_all() {
  for (const ObjectPtr& d : daemon_sets_.list()) {
    queue().add(Informer::key_of(*d));
  }
}

Result<json> DaemonSetController::current_revision(const json& daemon_set,
                                                   int64_t& collision_count) {
  const std::vector<ObjectPtr> history = owned_revisions(revisions_, daemon_set);
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
  const std::vector<ObjectPtr> pods = controlled_pods(pods_, *daemon_set);
  const std::vector<ObjectPtr> nodes = nodes_.list();
  int64_t collision_count = int_at(*daemon_set, {"status", "collisionCount"}, 0);
  auto current = current_revision(*daemon_set, collision_count);
  if (!current) {
    return "revisions of " + key + ": " + current.error().message;
  }
  const std::string hash = string_at(*current, {"metadata", "labels", kRevisionHashLabel});
  std::optional<std::string> failure;
  if (!being_deleted(*daemon_set) && expectations_.satisfied(key)) {
    const DaemonPlan plan = plan_daemon_set(*daemon_set, nodes, pods);
    for (const ObjectPtr& pod : plan.failed) {
      events_.record(*daemon_set, "Warning", "FailedDaemonPod",
                     "Found failed daemon pod " + ns + "/" + name_of(*pod) + " on node " +
                         daemon_pod_node(*pod) + ", will try to kill it");
    }
    std::vector<std::string> deletions = plan.delete_pods;
    if (plan.create_on.empty() && plan.delete_pods.empty() &&
        string_at(*daemon_set, {"spec", "updateStrategy", "type"}) != "OnDelete") {
      deletions = rolling_update_deletions(*daemon_set, nodes, pods, hash, clock().system_now());
    }
    std::set<std::string> created, deleted;
    failure = delete_pods(*daemon_set, deletions, deleted);
    if (!failure) {
      failure =
          create_pods(*daemon_set, daemon_pod_template(*daemon_set, hash), plan.create_on, created);
    }
    expectations_.expect(key, std::move(created), std::move(deleted));
  }
  prune_history(*daemon_set, *current, pods);
  const json status =
      daemon_status(*daemon_set, nodes, pods, hash, collision_count, clock().system_now());
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
                                        const std::vector<ObjectPtr>& pods) {
  std::set<std::string> hashes;
  for (const ObjectPtr& pod : pods) {
    hashes.insert(string_at(*pod, {"metadata", "labels", kRevisionHashLabel}));
  }
  const std::vector<ObjectPtr> history = owned_revisions(revisions_, daemon_set);
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
