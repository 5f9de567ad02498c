#include "workloads/deployment_controller.h"

#include <algorithm>

#include "client/objects.h"
#include "nodes/pod_lifecycle.h"
#include "workloads/controller_ref_manager.h"

namespace cluster {
namespace {

using namespace deployment;

const ResourceRef kDeployments{"apps", "v1", "deployments", true};
const ResourceRef kReplicaSets{"apps", "v1", "replicasets", true};

bool selects_nothing_in_particular(const json* selector) {
  if (selector == nullptr || !selector->is_object()) {
    return true;
  }
  const json* labels = at(*selector, {"matchLabels"});
  const json* expressions = at(*selector, {"matchExpressions"});
  return (labels == nullptr || labels->empty()) && (expressions == nullptr || expressions->empty());
}

// A Deployment without a selector in particular matches nothing, not everything.
json selector_in_particular(const json& d) {
  const json* selector = at(d, {"spec", "selector"});
  return selects_nothing_in_particular(selector) ? json(nullptr) : *selector;
}

std::string quoted(const std::string& name) {
  return "\"" + name + "\"";
}

const json& status_of(const json& d) {
  static const json kEmpty = json::object();
  const json* status = at(d, {"status"});
  return status != nullptr ? *status : kEmpty;
}

}  // namespace

std::vector<json> DeploymentController::Sets::all() const {
  std::vector<json> all = old;
  if (new_rs) {
    all.push_back(*new_rs);
  }
  return all;
}

DeploymentController::DeploymentController(const Client& client, Informer& pods,
                                           const common::Clock& clock)
    : Controller("deployment-controller", clock),
      client_(client),
      events_(client, "deployment-controller", "", clock),
      deployments_(client, kDeployments, {}, clock),
      replica_sets_(client, kReplicaSets, {}, clock),
      pods_(pods) {
  auto deployment_changed = [this](const json& d) { queue().add(Informer::key_of(d)); };
  deployments_.add_handlers(
      {.added = deployment_changed,
       .updated = [deployment_changed](const json&, const json& d) { deployment_changed(d); },
       .deleted = deployment_changed});
  replica_sets_.add_handlers(
      owner_handlers(owner_kind("Deployment", deployments_, selector_in_particular), queue()));
  pods_.add_handlers({.added = nullptr, .updated = nullptr, .deleted = [this](const json& pod) {
                        pod_deleted(pod);
                      }});
}

DeploymentController::~DeploymentController() {
  stop();
  deployments_.stop();
  replica_sets_.stop();
}

void DeploymentController::start() {
  deployments_.start();
  replica_sets_.start();
}

// Recreate waits for the old pods to be gone: the last one going is worth a look.
void DeploymentController::pod_deleted(const json& pod) {
  const json* ref = controller_ref(pod);
  if (ref == nullptr || string_at(*ref, {"kind"}) != "ReplicaSet") {
    return;
  }
  ObjectPtr rs = replica_sets_.get(namespace_of(pod), string_at(*ref, {"name"}));
  const json* owner = rs != nullptr ? controller_ref(*rs) : nullptr;
  if (owner != nullptr && string_at(*owner, {"kind"}) == "Deployment") {
    queue().add(namespace_of(pod) + "/" + string_at(*owner, {"name"}));
  }
}

Result<std::vector<json>> DeploymentController::claim_replica_sets(const json& d) {
  ControllerRefManager refs(client_, d, kDeployments,
                            selector_matcher(*at(d, {"spec", "selector"})));
  Claimed claimed = refs.claim(kReplicaSets, replica_sets_.list(namespace_of(d)));
  if (claimed.error) {
    return ApiError{0, "", *claimed.error};
  }
  std::vector<json> owned;
  for (const ObjectPtr& rs : claimed.objects) {
    owned.push_back(*rs);
  }
  return owned;
}

std::optional<std::string> DeploymentController::write_status(json& d, const json& status) {
  if (status == status_of(d)) {
    return std::nullopt;
  }
  json body = d;
  body["status"] = status;
  auto written = client_.update(kDeployments.object(namespace_of(d), name_of(d), "status"), body);
  if (!written) {
    if (written.error().not_found()) {
      return std::nullopt;
    }
    return "updating the status of " + Informer::key_of(d) + ": " + written.error().message;
  }
  d = std::move(*written);
  return std::nullopt;
}

// The Deployment's revision annotation follows its new ReplicaSet's. The status subresource
// keeps metadata as it is, so it is written to the object itself with an update, as upstream's
// controller does (its role may update deployments, not patch them; a conflict fails this sync
// and the Deployment is synced again). No new generation: only the spec counts.
static Result<bool> set_revision(const Client& client, json& d, int64_t revision) {
  const std::string text = std::to_string(revision);
  if (string_at(d, {"metadata", "annotations", kRevision}) == text) {
    return false;
  }
  json updated = d;
  json& metadata = updated["metadata"];
  if (!metadata["annotations"].is_object()) {
    metadata["annotations"] = json::object();
  }
  metadata["annotations"][kRevision] = text;
  auto patched = client.update(kDeployments.object(namespace_of(d), name_of(d)), updated);
  if (!patched) {
    return patched.error();
  }
  json status = status_of(d);
  d = std::move(*patched);
  d["status"] = std::move(status);  // what this sync computed so far
  return true;
}

Result<json> DeploymentController::create_new_rs(json& d, const std::vector<json>& old,
                                                 int64_t revision) {
  const std::string ns = namespace_of(d);
  json tmpl = *at(d, {"spec", "template"});
  const std::string hash = pod_template_hash(tmpl, int_at(d, {"status", "collisionCount"}, 0));
  tmpl["metadata"]["labels"][kHashLabel] = hash;
  json selector = *at(d, {"spec", "selector"});
  selector["matchLabels"][kHashLabel] = hash;
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", name_of(d) + "-" + hash},
               {"namespace", ns},
               {"ownerReferences", json::array({controller_owner_ref(d)})},
               {"labels", tmpl["metadata"]["labels"]}}},
             {"spec",
              {{"replicas", 0},
               {"minReadySeconds", int_at(d, {"spec", "minReadySeconds"}, 0)},
               {"selector", selector},
               {"template", tmpl}}}};
  std::vector<json> all = old;
  all.push_back(rs);
  const int64_t replicas = new_rs_replicas(d, all, rs);
  rs["spec"]["replicas"] = replicas;
  set_new_rs_annotations(d, rs, revision, false);
  const bool deadline = progress_deadline(d).has_value();
  const std::string now = rfc3339(clock().system_now());
  bool already_exists = false;
  auto created = client_.create(kReplicaSets.collection(ns), rs);
  if (!created && created.error().already_exists()) {
    // A slow cache, or a hash collision: another template (or owner) under the same name.
    auto existing = client_.get(kReplicaSets.object(ns, name_of(rs)));
    if (!existing) {
      return existing.error();
    }
    const json* ref = controller_ref(*existing);
    const json* existing_tmpl = at(*existing, {"spec", "template"});
    if (ref != nullptr && string_at(*ref, {"uid"}) == uid_of(d) && existing_tmpl != nullptr &&
        equal_ignore_hash(*at(d, {"spec", "template"}), *existing_tmpl)) {
      created = std::move(existing);
      already_exists = true;
    } else {
      json status = status_of(d);
      status["collisionCount"] = int_at(d, {"status", "collisionCount"}, 0) + 1;
      if (auto failed = write_status(d, status)) {
        return ApiError{500, "InternalError", *failed};
      }
      return created.error();  // the next sync tries the next name
    }
  } else if (!created) {
    const std::string message =
        "Failed to create new replica set " + quoted(name_of(rs)) + ": " + created.error().message;
    if (deadline) {
      json status = status_of(d);
      set_deployment_condition(status, deployment_condition("Progressing", "False",
                                                            "ReplicaSetCreateError", message, now));
      write_status(d, status);
    }
    events_.record(d, "Warning", "ReplicaSetCreateError", message);
    return created.error();
  }
  if (!already_exists && replicas > 0) {
    events_.record(
        d, "Normal", "ScalingReplicaSet",
        "Scaled up replica set " + name_of(*created) + " from 0 to " + std::to_string(replicas));
  }
  if (auto revised = set_revision(client_, d, revision); !revised) {
    return revised.error();
  }
  if (!already_exists && deadline) {
    json status = status_of(d);
    set_deployment_condition(
        status, deployment_condition("Progressing", "True", "NewReplicaSetCreated",
                                     "Created new replica set " + quoted(name_of(*created)), now));
    if (auto failed = write_status(d, status)) {
      return ApiError{500, "InternalError", *failed};
    }
  }
  return created;
}

Result<DeploymentController::Sets> DeploymentController::sets_and_revision(
    json& d, const std::vector<json>& rs_list, bool create) {
  Sets sets;
  const std::optional<size_t> found = find_new(d, rs_list);
  int64_t max_old = 0;
  for (size_t i = 0; i < rs_list.size(); ++i) {
    if (!found || i != *found) {
      sets.old.push_back(rs_list[i]);
      max_old = std::max(max_old, revision_of(rs_list[i]));
    }
  }
  const int64_t revision = max_old + 1;
  if (found) {
    json rs = rs_list[*found];
    const bool annotations = set_new_rs_annotations(d, rs, revision, true);
    const int64_t min_ready = int_at(d, {"spec", "minReadySeconds"}, 0);
    if (annotations || int_at(rs, {"spec", "minReadySeconds"}, 0) != min_ready) {
      rs["spec"]["minReadySeconds"] = min_ready;
      auto updated = client_.update(kReplicaSets.object(namespace_of(rs), name_of(rs)), rs);
      if (!updated) {
        return updated.error();
      }
      sets.new_rs = std::move(*updated);
      return sets;  // the Deployment's revision follows on the next sync
    }
    if (auto revised = set_revision(client_, d, revision); !revised) {
      return revised.error();
    }
    if (progress_deadline(d) && deployment_condition_of(status_of(d), "Progressing") == nullptr) {
      json status = status_of(d);
      set_deployment_condition(status,
                               deployment_condition("Progressing", "True", "FoundNewReplicaSet",
                                                    "Found new replica set " + quoted(name_of(rs)),
                                                    rfc3339(clock().system_now())));
      if (auto failed = write_status(d, status)) {
        return ApiError{500, "InternalError", *failed};
      }
    }
    sets.new_rs = std::move(rs);
    return sets;
  }
  if (create) {
    auto created = create_new_rs(d, sets.old, revision);
    if (!created) {
      return created.error();
    }
    sets.new_rs = std::move(*created);
  }
  return sets;
}

Result<json> DeploymentController::scale(const json& d, const json& rs, int64_t to) {
  const int64_t from = rs_replicas(rs);
  json updated = rs;
  updated["spec"]["replicas"] = to;
  set_replicas_annotations(updated, desired_replicas(d), desired_replicas(d) + max_surge(d));
  if (updated == rs) {
    return updated;
  }
  auto written = client_.update(kReplicaSets.object(namespace_of(rs), name_of(rs)), updated);
  if (written && from != to) {
    events_.record(d, "Normal", "ScalingReplicaSet",
                   std::string("Scaled ") + (from < to ? "up" : "down") + " replica set " +
                       name_of(rs) + " from " + std::to_string(from) + " to " + std::to_string(to));
  }
  return written;
}

Result<bool> DeploymentController::apply(const json& d, const std::vector<json>& all,
                                         const std::vector<Scale>& steps) {
  bool scaled = false;
  for (const Scale& step : steps) {
    auto rs = std::find_if(all.begin(), all.end(),
                           [&](const json& r) { return name_of(r) == step.name; });
    if (rs == all.end()) {
      continue;
    }
    auto written = scale(d, *rs, step.to);
    if (!written) {
      return written.error();
    }
    scaled = scaled || step.from != step.to;
  }
  return scaled;
}

void DeploymentController::clean_up(const json& d, const std::vector<json>& old) {
  for (const std::string& name : to_clean_up(d, old)) {
    auto removed = client_.remove(kReplicaSets.object(namespace_of(d), name));
    if (!removed && !removed.error().not_found()) {
      return;  // the next sync tries again
    }
  }
}

bool DeploymentController::old_pods_running(const Sets& sets) const {
  for (const json& rs : sets.old) {
    if (int_at(rs, {"status", "replicas"}, 0) > 0) {
      return true;
    }
  }
  const std::string new_uid = sets.new_rs ? uid_of(*sets.new_rs) : std::string();
  for (const json& rs : sets.old) {
    const std::string uid = uid_of(rs);
    for (const ObjectPtr& pod : pods_.list(namespace_of(rs))) {
      const json* ref = controller_ref(*pod);
      if (ref != nullptr && string_at(*ref, {"uid"}) == uid && uid != new_uid &&
          !pod_terminal(*pod)) {
        return true;
      }
    }
  }
  return false;
}

std::optional<std::string> DeploymentController::finish_rollout(json& d, const Sets& sets) {
  const auto now = clock().system_now();
  const std::vector<json> all = sets.all();
  const json status = rollout_status(d, all, sets.new_rs ? &*sets.new_rs : nullptr, now);
  if (status == status_of(d)) {
    if (auto after = stuck_requeue(d, status, now)) {
      requeue_after(Informer::key_of(d),
                    std::chrono::duration_cast<common::Clock::duration>(*after));
    }
    return std::nullopt;
  }
  return write_status(d, status);
}

std::optional<std::string> DeploymentController::sync_paused_or_scaled(json& d, const Sets& sets_) {
  const Sets* sets = &sets_;
  const json* new_rs = sets->new_rs ? &*sets->new_rs : nullptr;
  const std::vector<json> all = sets->all();
  if (auto scaled = apply(d, all, plan_scale(d, new_rs, sets->old)); !scaled) {
    return scaled.error().message;
  }
  if (bool_at(d, {"spec", "paused"}, false)) {
    clean_up(d, sets->old);
  }
  return write_status(d, calculate_status(d, all, new_rs, clock().system_now()));
}

std::optional<std::string> DeploymentController::rollout(json& d, const std::vector<json>& rs_list,
                                                         Sets current) {
  if (rolling_update(d)) {
    Result<Sets> sets = current;
    if (!current.new_rs) {
      sets = sets_and_revision(d, rs_list, true);
      if (!sets) {
        return sets.error().message;
      }
    }
    auto scaled = apply(d, sets->all(), plan_rolling(d, *sets->new_rs, sets->old));
    if (!scaled) {
      return scaled.error().message;
    }
    if (!*scaled && complete(d, status_of(d))) {
      clean_up(d, sets->old);
    }
    return finish_rollout(d, *sets);
  }
  // Recreate: every old replica goes, then the new ones come.
  Result<Sets> sets = current;
  std::vector<Scale> down;
  for (const json& rs : sets->old) {
    if (rs_replicas(rs) > 0) {
      down.push_back({name_of(rs), rs_replicas(rs), 0});
    }
  }
  auto scaled = apply(d, sets->old, down);
  if (!scaled) {
    return scaled.error().message;
  }
  if (*scaled || old_pods_running(*sets)) {
    return finish_rollout(d, *sets);
  }
  if (!sets->new_rs) {
    sets = sets_and_revision(d, rs_list, true);
    if (!sets) {
      return sets.error().message;
    }
  }
  if (auto up = apply(d, {*sets->new_rs},
                      {{name_of(*sets->new_rs), rs_replicas(*sets->new_rs), desired_replicas(d)}});
      !up) {
    return up.error().message;
  }
  if (complete(d, status_of(d))) {
    clean_up(d, sets->old);
  }
  return finish_rollout(d, *sets);
}

std::optional<std::string> DeploymentController::sync(const std::string& key) {
  const size_t slash = key.find('/');
  ObjectPtr cached = deployments_.get(key.substr(0, slash), key.substr(slash + 1));
  if (cached == nullptr) {
    return std::nullopt;
  }
  json d = *cached;
  if (selects_nothing_in_particular(at(d, {"spec", "selector"}))) {
    events_.record(d, "Warning", "SelectingAll",
                   "This deployment is selecting all pods. A non-empty selector is required.");
    json status = status_of(d);
    const int64_t generation = int_at(d, {"metadata", "generation"}, 0);
    if (int_at(status, {"observedGeneration"}, 0) < generation) {
      status["observedGeneration"] = generation;
      return write_status(d, status);
    }
    return std::nullopt;
  }
  auto claimed = claim_replica_sets(d);
  if (!claimed) {
    return "claiming the replica sets of " + key + ": " + claimed.error().message;
  }
  const std::vector<json>& rs_list = *claimed;
  if (being_deleted(d)) {
    auto sets = sets_and_revision(d, rs_list, false);
    if (!sets) {
      return sets.error().message;
    }
    return write_status(d, calculate_status(d, sets->all(), sets->new_rs ? &*sets->new_rs : nullptr,
                                            clock().system_now()));
  }
  // A pause (and a resume) shows in Progressing, so that the paused time does not count
  // against the progress deadline; a reported timeout stays.
  const bool paused = bool_at(d, {"spec", "paused"}, false);
  if (progress_deadline(d)) {
    const json* cond = deployment_condition_of(status_of(d), "Progressing");
    const std::string reason = cond != nullptr ? string_at(*cond, {"reason"}) : "";
    if (reason != "ProgressDeadlineExceeded" && paused != (reason == "DeploymentPaused")) {
      json status = status_of(d);
      const std::string now = rfc3339(clock().system_now());
      set_deployment_condition(
          status, paused ? deployment_condition("Progressing", "Unknown", "DeploymentPaused",
                                                "Deployment is paused", now)
                         : deployment_condition("Progressing", "Unknown", "DeploymentResumed",
                                                "Deployment is resumed", now));
      if (auto failed = write_status(d, status)) {
        return failed;
      }
    }
  }
  auto sets = sets_and_revision(d, rs_list, false);
  if (!sets) {
    return sets.error().message;
  }
  if (paused || is_scaling_event(d, sets->all())) {
    return sync_paused_or_scaled(d, *sets);
  }
  return rollout(d, rs_list, std::move(*sets));
}

}  // namespace cluster
