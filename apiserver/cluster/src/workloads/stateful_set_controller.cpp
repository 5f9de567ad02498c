#include "workloads/stateful_set_controller.h"

#include <set>

#include "client/objects.h"
#include "workloads/controller_history.h"
#include "workloads/controller_ref_manager.h"
#include "workloads/stateful_set_retention.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

const ResourceRef kPods{"", "v1", "pods", true};
const ResourceRef kClaims{"", "v1", "persistentvolumeclaims", true};
const ResourceRef kStatefulSets{"apps", "v1", "statefulsets", true};
constexpr int64_t kDefaultHistoryLimit = 10;

std::string title(const std::string& verb) {
  std::string out = verb;
  if (!out.empty()) {
    out[0] = static_cast<char>(out[0] - 'a' + 'A');
  }
  return out;
}

}  // namespace

StatefulSetController::StatefulSetController(const Client& client, Informer& pods,
                                             const common::Clock& clock)
    : Controller("statefulset-controller", clock),
      client_(client),
      events_(client, "statefulset-controller", "", clock),
      sets_(client, kStatefulSets, {}, clock),
      revisions_(client, kControllerRevisions, {}, clock),
      claims_(client, kClaims, {}, clock),
      pods_(pods) {
  auto set_changed = [this](const json& s) { queue().add(Informer::key_of(s)); };
  sets_.add_handlers({.added = set_changed,
                      .updated = [set_changed](const json&, const json& s) { set_changed(s); },
                      .deleted = set_changed});
  pods_.add_handlers(owner_handlers(owner_kind("StatefulSet", sets_), queue()));
  // A stale claim holds its pod back until the garbage collector deletes it: look again then.
  claims_.add_handlers({.added = nullptr, .updated = nullptr, .deleted = [this](const json& c) {
                          claim_deleted(c);
                        }});
}

StatefulSetController::~StatefulSetController() {
  stop();
  sets_.stop();
  revisions_.stop();
  claims_.stop();
}

void StatefulSetController::start() {
  revisions_.start();
  claims_.start();
  sets_.start();
}

void StatefulSetController::claim_deleted(const json& claim) {
  const json* labels = at(claim, {"metadata", "labels"});
  if (labels == nullptr) {
    return;
  }
  for (const ObjectPtr& set : sets_.list(namespace_of(claim))) {
    const json* selector = at(*set, {"spec", "selector"});
    if (selector != nullptr && selector_matches(*selector, *labels)) {
      queue().add(Informer::key_of(*set));
    }
  }
}

std::optional<std::string> StatefulSetController::adopt_orphan_revisions(
    ControllerRefManager& refs, const json& set, std::vector<ObjectPtr>& history) {
  if (being_deleted(set)) {
    return std::nullopt;
  }
  const auto matches = selector_matcher(spec_selector(set));
  for (const ObjectPtr& r : revisions_.list(namespace_of(set))) {
    if (controller_ref(*r) != nullptr || !matches(*r)) {
      continue;
    }
    auto adopted = refs.adopt(kControllerRevisions, *r);
    if (!adopted) {
      if (adopted.error().not_found()) {
        continue;
      }
      return "adopting the orphan revisions of " + Informer::key_of(set) + ": " +
             adopted.error().message;
    }
    history.push_back(std::make_shared<const json>(std::move(*adopted)));
  }
  return std::nullopt;
}

Result<StatefulSetController::Revisions> StatefulSetController::revisions_of(
    const json& set, const std::vector<ObjectPtr>& history) {
  Revisions out;
  out.collision_count = int_at(set, {"status", "collisionCount"}, 0);
  const json data = template_patch(set);
  json candidate = new_revision(set, data, next_revision_number(history), out.collision_count);
  if (const json* annotations = at(set, {"metadata", "annotations"}); annotations != nullptr) {
    candidate["metadata"]["annotations"] = *annotations;
  }
  ObjectPtr equal;
  for (const ObjectPtr& r : history) {
    if (const json* d = at(*r, {"data"}); d != nullptr && *d == data) {
      equal = r;
    }
  }
  if (equal != nullptr && equal == history.back()) {
    out.update = *equal;
  } else if (equal != nullptr) {
    // A rollback to an older template: that revision becomes the newest.
    json bumped = *equal;
    bumped["revision"] = candidate["revision"];
    auto written =
        client_.update(kControllerRevisions.object(namespace_of(set), name_of(bumped)), bumped);
    if (!written) {
      return Result<Revisions>::failure(written.error());
    }
    out.update = std::move(*written);
  } else {
    auto created = create_revision(client_, set, std::move(candidate), out.collision_count);
    if (!created) {
      return Result<Revisions>::failure(created.error());
    }
    out.update = std::move(*created);
  }
  const std::string current = string_at(set, {"status", "currentRevision"});
  out.current = out.update;
  for (const ObjectPtr& r : history) {
    if (name_of(*r) == current) {
      out.current = *r;
    }
  }
  return out;
}

std::optional<std::string> StatefulSetController::sync(const std::string& key) {
  ObjectPtr set = object_for_key(sets_, key);
  if (set == nullptr) {
    return std::nullopt;
  }
  const std::string ns = namespace_of(*set);
  ControllerRefManager refs(
      client_, *set, kStatefulSets,
      [matches = selector_matcher(spec_selector(*set)), name = name_of(*set)](const json& pod) {
        return matches(pod) && stateful_ordinal(name_of(pod), name).has_value();
      });
  std::vector<ObjectPtr> history = owned_revisions(revisions_, *set);
  if (auto failed = adopt_orphan_revisions(refs, *set, history)) {
    return failed;
  }
  history = by_revision_number(std::move(history));
  Claimed claimed = refs.claim(kPods, pods_.list(ns));
  if (claimed.error) {
    return "claiming the pods of " + key + ": " + *claimed.error;
  }
  const std::vector<ObjectPtr>& pods = claimed.objects;
  auto revisions = revisions_of(*set, history);
  if (!revisions) {
    return "revisions of " + key + ": " + revisions.error().message;
  }
  const auto now = clock().system_now();
  std::optional<std::string> failure;
  for (const StatefulAction& action :
       plan_stateful_set(*set, pods, name_of(revisions->current), name_of(revisions->update), now,
                         claims_.list(ns))) {
    failure = apply(*set, action, *revisions);
    if (failure) {
      break;
    }
  }
  json status = stateful_status(*set, pods, name_of(revisions->current), name_of(revisions->update),
                                revisions->collision_count, now);
  if (auto written = update_status(*set, status)) {
    return written;
  }
  const int64_t min_ready = int_at(*set, {"spec", "minReadySeconds"}, 0);
  if (min_ready > 0 && int_at(status, {"availableReplicas"}, 0) != wanted_replicas(*set)) {
    requeue_after(key, std::chrono::seconds(min_ready));
  }
  prune_history(*set, *revisions, history, pods);
  return failure;
}

std::optional<std::string> StatefulSetController::apply(const json& set,
                                                        const StatefulAction& action,
                                                        const Revisions& revisions) {
  using Kind = StatefulAction::Kind;
  auto new_pod = [&] {
    const json& revision =
        action.revision == name_of(revisions.current) ? revisions.current : revisions.update;
    return new_stateful_pod(set, revision_template(revision), action.revision, action.ordinal);
  };
  switch (action.kind) {
    case Kind::Create:
      return create_pod(set, new_pod());
    case Kind::Recreate: {
      ObjectPtr old = pods_.get(namespace_of(set), action.pod);
      const bool failed = old != nullptr && string_at(*old, {"status", "phase"}) == "Failed";
      events_.record(set, failed ? "Warning" : "Normal",
                     failed ? "RecreatingFailedPod" : "RecreatingTerminatedPod",
                     "StatefulSet " + namespace_of(set) + "/" + name_of(set) + " is recreating " +
                         (failed ? "failed" : "terminated") + " Pod " + action.pod);
      if (auto error = delete_pod(set, action.pod)) {
        return error;
      }
      return create_pod(set, new_pod());
    }
    case Kind::CreateClaims: {
      if (auto error = create_claims(set, action.pod, action.ordinal)) {
        return error;
      }
      ObjectPtr pod = pods_.get(namespace_of(set), action.pod);
      return pod != nullptr ? retain_claims(set, *pod, true) : std::nullopt;
    }
    case Kind::Update: {
      ObjectPtr pod = pods_.get(namespace_of(set), action.pod);
      if (pod == nullptr) {
        return std::nullopt;
      }
      if (!stateful_storage_matches(set, *pod)) {
        if (auto error = create_claims(set, action.pod, action.ordinal)) {
          record(set, "update", action.pod, ApiError{0, "", *error});
          return error;
        }
      }
      if (auto error = retain_claims(set, *pod, true)) {
        return error;
      }
      auto updated = client_.update(kPods.object(namespace_of(set), action.pod),
                                    with_stateful_identity(set, *pod));
      record(set, "update", action.pod,
             updated ? std::nullopt : std::optional<ApiError>(updated.error()));
      return updated ? std::nullopt : std::optional<std::string>(updated.error().message);
    }
    case Kind::FixClaims: {
      ObjectPtr pod = pods_.get(namespace_of(set), action.pod);
      return pod != nullptr ? retain_claims(set, *pod, false) : std::nullopt;
    }
    case Kind::Delete:
      return delete_pod(set, action.pod);
  }
  return std::nullopt;
}

void StatefulSetController::record(const json& set, const std::string& verb, const std::string& pod,
                                   const std::optional<ApiError>& error) {
  if (!error) {
    events_.record(set, "Normal", "Successful" + title(verb),
                   verb + " Pod " + pod + " in StatefulSet " + name_of(set) + " successful");
  } else {
    events_.record(set, "Warning", "Failed" + title(verb),
                   verb + " Pod " + pod + " in StatefulSet " + name_of(set) +
                       " failed error: " + error->message);
  }
}

std::optional<std::string> StatefulSetController::create_claims(const json& set,
                                                                const std::string& pod,
                                                                int64_t ordinal) {
  const std::string ns = namespace_of(set);
  std::optional<std::string> failure;
  auto failed = [&failure](const std::string& why) {
    failure = failure ? *failure + "; " + why : why;
  };
  for (const json& claim : stateful_claims(set, ordinal)) {
    const std::string name = name_of(claim);
    if (ObjectPtr existing = claims_.get(ns, name)) {
      if (being_deleted(*existing)) {
        failed("pvc " + name + " is being deleted");
      }
      continue;
    }
    auto created = client_.create(kClaims.collection(ns), claim);
    if (!created && created.error().already_exists()) {
      continue;  // the informer has not seen it yet
    }
    if (created) {
      events_.record(
          set, "Normal", "SuccessfulCreate",
          "create Claim " + name + " Pod " + pod + " in StatefulSet " + name_of(set) + " success");
    } else {
      failed("failed to create PVC " + name + ": " + created.error().message);
      events_.record(set, "Warning", "FailedCreate",
                     "create Claim " + name + " for Pod " + pod + " in StatefulSet " +
                         name_of(set) + " failed error: " + created.error().message);
    }
  }
  return failure;
}

std::optional<std::string> StatefulSetController::retain_claims(const json& set, const json& pod,
                                                                bool record_failure) {
  const auto ordinal = stateful_ordinal(name_of(pod), name_of(set));
  if (!ordinal) {
    return std::nullopt;
  }
  const std::string ns = namespace_of(set);
  for (const json& wanted : stateful_claims(set, *ordinal)) {
    const std::string name = name_of(wanted);
    ObjectPtr claim = claims_.get(ns, name);
    if (claim == nullptr) {
      continue;  // not seen yet: the next sync sees to it
    }
    if (claim_has_unexpected_controller(*claim, set, pod)) {
      events_.record(set, "Warning", "ConflictingController",
                     "PersistentVolumeClaim " + name +
                         " has a conflicting OwnerReference that acts as a manging controller, "
                         "the retention policy is ignored for this claim");
    }
    if (claim_owners_up_to_date(*claim, set, pod)) {
      continue;
    }
    auto written =
        client_.update(kClaims.object(ns, name), with_retention_owners(*claim, set, pod));
    if (!written) {
      const std::string why = "could not update claim " + name +
                              " for delete policy ownerRefs: " + written.error().message;
      if (record_failure) {
        record(set, "update", name_of(pod), ApiError{0, "", why});
      }
      return why;
    }
  }
  return std::nullopt;
}

std::optional<std::string> StatefulSetController::create_pod(const json& set, const json& pod) {
  const std::string name = name_of(pod);
  auto ordinal = stateful_ordinal(name, name_of(set));
  if (auto failure = create_claims(set, name, ordinal.value_or(0))) {
    record(set, "create", name, ApiError{0, "", *failure});
    return failure;
  }
  auto created = client_.create(kPods.collection(namespace_of(set)), pod);
  if (!created && created.error().already_exists()) {
    return "pod " + name + " already exists";  // seen soon; look again then
  }
  if (created) {
    // The claims' references, as far as they can be set now.
    if (auto error = retain_claims(set, *created, true)) {
      return error;
    }
  }
  record(set, "create", name, created ? std::nullopt : std::optional<ApiError>(created.error()));
  return created ? std::nullopt : std::optional<std::string>(created.error().message);
}

std::optional<std::string> StatefulSetController::delete_pod(const json& set,
                                                             const std::string& pod) {
  auto removed = client_.remove(kPods.object(namespace_of(set), pod));
  if (!removed && removed.error().not_found()) {
    return std::nullopt;
  }
  record(set, "delete", pod, removed ? std::nullopt : std::optional<ApiError>(removed.error()));
  return removed ? std::nullopt : std::optional<std::string>(removed.error().message);
}

std::optional<std::string> StatefulSetController::update_status(const json& set,
                                                                const json& status) {
  const json* old = at(set, {"status"});
  if (old != nullptr && *old == status) {
    return std::nullopt;
  }
  json body = set;
  body["status"] = status;
  auto written =
      client_.update(kStatefulSets.object(namespace_of(set), name_of(set), "status"), body);
  if (!written && !written.error().not_found()) {
    return "updating the status of " + Informer::key_of(set) + ": " + written.error().message;
  }
  return std::nullopt;
}

void StatefulSetController::prune_history(const json& set, const Revisions& revisions,
                                          const std::vector<ObjectPtr>& history,
                                          const std::vector<ObjectPtr>& pods) {
  std::set<std::string> live = {name_of(revisions.current), name_of(revisions.update)};
  for (const ObjectPtr& pod : pods) {
    live.insert(string_at(*pod, {"metadata", "labels", kRevisionHashLabel}));
  }
  const int64_t limit = int_at(set, {"spec", "revisionHistoryLimit"}, kDefaultHistoryLimit);
  for (const std::string& name : revisions_to_prune(history, live, limit)) {
    (void)client_.remove(kControllerRevisions.object(namespace_of(set), name));
  }
}

}  // namespace cluster
