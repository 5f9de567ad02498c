#include "workloads/deployment_rollout.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "client/objects.h"
#include "workloads/int_or_percent.h"

namespace cluster::deployment {
namespace {

// The characters of generated names: no vowels (no words) and no look-alikes (0, 1, 3).
constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr int64_t kNever = 2147483647;  // progressDeadlineSeconds / revisionHistoryLimit "off"

int64_t status_int(const json& object, const char* field) {
  return int_at(object, {"status", field}, 0);
}

bool active(const json& rs) {
  return rs_replicas(rs) > 0;
}

std::optional<int64_t> annotation_int(const json& object, const char* key) {
  const std::string text = string_at(object, {"metadata", "annotations", key});
  if (text.empty()) {
    return std::nullopt;
  }
  try {
    size_t used = 0;
    const int64_t value = std::stoll(text, &used);
    return used == text.size() ? std::optional<int64_t>(value) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Drops nulls and empty maps and lists, which Go's semantic equality does not tell from missing.
void drop_empty(json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      drop_empty(*it);
      if (it->is_null() || ((it->is_object() || it->is_array()) && it->empty())) {
        it = value.erase(it);
      } else {
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (json& item : value) {
      drop_empty(item);
    }
  }
}

std::string quoted(const std::string& name) {
  return "\"" + name + "\"";
}

bool newer(const json& a, const json& b) {
  const std::string ta = string_at(a, {"metadata", "creationTimestamp"});
  const std::string tb = string_at(b, {"metadata", "creationTimestamp"});
  return ta != tb ? ta > tb : name_of(a) > name_of(b);
}

// How many replicas to add to (or take from) `rs` of `to_add` in total, `added` of which already
// went to others: its share in proportion to its size, as the max-replicas annotation saw it.
int64_t proportion(const json& rs, const json& d, int64_t to_add, int64_t added) {
  const int64_t replicas = rs_replicas(rs);
  if (replicas == 0 || to_add == 0 || to_add == added) {
    return 0;
  }
  int64_t fraction = -replicas;
  if (desired_replicas(d) != 0) {
    const int64_t deployment_replicas = desired_replicas(d) + max_surge(d);
    const int64_t annotated =
        annotation_int(rs, kMaxReplicas).value_or(int_at(d, {"status", "replicas"}, 0));
    if (annotated == 0) {
      return 0;
    }
    const double size =
        static_cast<double>(replicas * deployment_replicas) / static_cast<double>(annotated);
    fraction = static_cast<int64_t>(std::round(size)) - replicas;
  }
  const int64_t allowed = to_add - added;
  return to_add > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

// Adds a step, or moves the target of an earlier one for the same ReplicaSet.
void add_step(std::vector<Scale>& steps, const std::string& name, int64_t from, int64_t to) {
  for (Scale& s : steps) {
    if (s.name == name) {
      s.to = to;
      return;
    }
  }
  steps.push_back({name, from, to});
}

bool timed_out(const json& d, const json& status, std::chrono::system_clock::time_point now) {
  const auto deadline = progress_deadline(d);
  const json* cond = deployment_condition_of(status, "Progressing");
  if (!deadline || cond == nullptr) {
    return false;
  }
  const std::string reason = string_at(*cond, {"reason"});
  if (reason == "NewReplicaSetAvailable") {
    return false;
  }
  if (reason == "ProgressDeadlineExceeded") {
    return true;
  }
  const auto from = parse_time(string_at(*cond, {"lastUpdateTime"}));
  return from && *from + std::chrono::seconds(*deadline) < now;
}

// Progress since the status the Deployment has: more updated, ready or available replicas, or
// fewer old ones.
bool progressing(const json& d, const json& status) {
  const json old = d.contains("status") ? d["status"] : json::object();
  auto get = [](const json& s, const char* f) { return int_at(s, {f}, 0); };
  const int64_t old_old = get(old, "replicas") - get(old, "updatedReplicas");
  const int64_t new_old = get(status, "replicas") - get(status, "updatedReplicas");
  return get(status, "updatedReplicas") > get(old, "updatedReplicas") || new_old < old_old ||
         get(status, "readyReplicas") > get(old, "readyReplicas") ||
         get(status, "availableReplicas") > get(old, "availableReplicas");
}

}  // namespace

std::string pod_template_hash(const json& pod_template, int64_t collision_count) {
  uint32_t hash = 2166136261u;
  auto mix = [&hash](unsigned char byte) {
    hash ^= byte;
    hash *= 16777619u;
  };
  for (char c : pod_template.dump()) {
    mix(static_cast<unsigned char>(c));
  }
  if (collision_count != 0) {
    const auto count = static_cast<uint32_t>(collision_count);
    for (int shift = 0; shift < 32; shift += 8) {
      mix(static_cast<unsigned char>((count >> shift) & 0xffu));
    }
  }
  std::string out;
  for (char digit : std::to_string(hash)) {
    out += kAlphabet[static_cast<size_t>(digit) % kAlphabet.size()];
  }
  return out;
}

Fenceposts resolve_fenceposts(const json* max_surge, const json* max_unavailable, int64_t desired) {
  Fenceposts f;
  if (max_surge != nullptr) {
    f.surge = scaled_value(*max_surge, desired, true).value_or(0);
  }
  if (max_unavailable != nullptr) {
    f.unavailable = scaled_value(*max_unavailable, desired, false).value_or(0);
  }
  if (f.surge == 0 && f.unavailable == 0) {
    f.unavailable = 1;  // else a rollout could never move
  }
  return f;
}

int64_t desired_replicas(const json& deployment) {
  return int_at(deployment, {"spec", "replicas"}, 1);
}

int64_t rs_replicas(const json& replica_set) {
  return int_at(replica_set, {"spec", "replicas"}, 1);
}

bool rolling_update(const json& deployment) {
  const std::string type = string_at(deployment, {"spec", "strategy", "type"});
  return type.empty() || type == "RollingUpdate";
}

static Fenceposts fenceposts_of(const json& d) {
  return resolve_fenceposts(at(d, {"spec", "strategy", "rollingUpdate", "maxSurge"}),
                            at(d, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}),
                            desired_replicas(d));
}

int64_t max_surge(const json& deployment) {
  return rolling_update(deployment) ? fenceposts_of(deployment).surge : 0;
}

int64_t max_unavailable(const json& deployment) {
  const int64_t desired = desired_replicas(deployment);
  if (!rolling_update(deployment) || desired == 0) {
    return 0;
  }
  return std::min(fenceposts_of(deployment).unavailable, desired);
}

std::optional<int64_t> progress_deadline(const json& deployment) {
  const int64_t seconds = int_at(deployment, {"spec", "progressDeadlineSeconds"}, kNever);
  return seconds == kNever ? std::nullopt : std::optional<int64_t>(seconds);
}

bool equal_ignore_hash(const json& a, const json& b) {
  json ca = a;
  json cb = b;
  for (json* t : {&ca, &cb}) {
    if (t->is_object() && (*t)["metadata"].is_object() && (*t)["metadata"]["labels"].is_object()) {
      (*t)["metadata"]["labels"].erase(kHashLabel);
    }
    drop_empty(*t);
  }
  return ca == cb;
}

void sort_by_creation(std::vector<json>& replica_sets) {
  std::stable_sort(replica_sets.begin(), replica_sets.end(),
                   [](const json& a, const json& b) { return newer(b, a); });
}

std::optional<size_t> find_new(const json& deployment, const std::vector<json>& replica_sets) {
  const json* tmpl = at(deployment, {"spec", "template"});
  std::optional<size_t> found;
  for (size_t i = 0; i < replica_sets.size(); ++i) {
    const json* rs_tmpl = at(replica_sets[i], {"spec", "template"});
    if (tmpl == nullptr || rs_tmpl == nullptr || !equal_ignore_hash(*tmpl, *rs_tmpl)) {
      continue;
    }
    if (!found || newer(replica_sets[*found], replica_sets[i])) {
      found = i;
    }
  }
  return found;
}

int64_t revision_of(const json& replica_set) {
  return annotation_int(replica_set, kRevision).value_or(0);
}

bool set_replicas_annotations(json& rs, int64_t desired, int64_t max) {
  json& annotations = rs["metadata"]["annotations"];
  bool changed = false;
  for (const auto& [key, value] :
       {std::pair{kDesiredReplicas, desired}, std::pair{kMaxReplicas, max}}) {
    const std::string text = std::to_string(value);
    if (!annotations.is_object() || string_at(annotations, {key}) != text) {
      annotations[key] = text;
      changed = true;
    }
  }
  return changed;
}

bool set_new_rs_annotations(const json& deployment, json& rs, int64_t revision, bool exists) {
  static const std::set<std::string> kSkipped = {"kubectl.kubernetes.io/last-applied-configuration",
                                                 kRevision,
                                                 kRevisionHistory,
                                                 kDesiredReplicas,
                                                 kMaxReplicas,
                                                 "deprecated.deployment.rollback.to"};
  constexpr size_t kHistoryLimit = 2000;  // characters of revision-history
  json& annotations = rs["metadata"]["annotations"];
  if (!annotations.is_object()) {
    annotations = json::object();
  }
  bool changed = false;
  if (const json* own = at(deployment, {"metadata", "annotations"});
      own != nullptr && own->is_object()) {
    for (const auto& [key, value] : own->items()) {
      if (kSkipped.count(key) != 0 || (annotations.contains(key) && annotations[key] == value)) {
        continue;
      }
      annotations[key] = value;
      changed = true;
    }
  }
  const std::string old_text = string_at(annotations, {kRevision});
  const std::optional<int64_t> old = annotation_int(rs, kRevision);
  if (!old_text.empty() && !old) {
    return changed;  // not a number: left alone
  }
  if (old.value_or(0) < revision) {
    annotations[kRevision] = std::to_string(revision);
    changed = true;
    if (!old_text.empty()) {
      std::string history = string_at(annotations, {kRevisionHistory});
      history = history.empty() ? old_text : history + "," + old_text;
      while (history.size() > kHistoryLimit && history.find(',') != std::string::npos) {
        history.erase(0, history.find(',') + 1);  // the oldest go first
      }
      if (history.size() <= kHistoryLimit) {
        annotations[kRevisionHistory] = history;
      }
    }
  }
  if (!exists && set_replicas_annotations(rs, desired_replicas(deployment),
                                          desired_replicas(deployment) + max_surge(deployment))) {
    changed = true;
  }
  return changed;
}

int64_t new_rs_replicas(const json& deployment, const std::vector<json>& all, const json& new_rs) {
  const int64_t desired = desired_replicas(deployment);
  if (!rolling_update(deployment)) {
    return desired;
  }
  int64_t current = 0;
  for (const json& rs : all) {
    current += rs_replicas(rs);
  }
  const int64_t max_total = desired + max_surge(deployment);
  const int64_t now = rs_replicas(new_rs);
  if (current >= max_total) {
    return now;
  }
  return now + std::min(max_total - current, desired - now);
}

std::vector<Scale> plan_rolling(const json& deployment, const json& new_rs,
                                const std::vector<json>& old) {
  const int64_t desired = desired_replicas(deployment);
  const int64_t new_replicas = rs_replicas(new_rs);
  if (new_replicas > desired) {
    return {{name_of(new_rs), new_replicas, desired}};
  }
  if (new_replicas < desired) {
    std::vector<json> all = old;
    all.push_back(new_rs);
    const int64_t to = new_rs_replicas(deployment, all, new_rs);
    if (to != new_replicas) {
      return {{name_of(new_rs), new_replicas, to}};
    }
  }
  std::vector<json> olds;
  for (const json& rs : old) {
    if (active(rs)) {
      olds.push_back(rs);
    }
  }
  int64_t old_pods = 0;
  for (const json& rs : olds) {
    old_pods += rs_replicas(rs);
  }
  if (old_pods == 0) {
    return {};
  }
  const int64_t min_available = desired - max_unavailable(deployment);
  const int64_t new_unavailable = new_replicas - status_int(new_rs, "availableReplicas");
  const int64_t max_scaled_down = old_pods + new_replicas - min_available - new_unavailable;
  if (max_scaled_down <= 0) {
    return {};
  }
  sort_by_creation(olds);
  std::vector<Scale> steps;
  // First the old replicas that are not available: removing them costs no availability.
  int64_t cleaned = 0;
  for (json& rs : olds) {
    const int64_t replicas = rs_replicas(rs);
    const int64_t available = status_int(rs, "availableReplicas");
    if (cleaned >= max_scaled_down) {
      break;
    }
    if (replicas == 0 || replicas == available) {
      continue;
    }
    const int64_t count = std::min(max_scaled_down - cleaned, replicas - available);
    add_step(steps, name_of(rs), replicas, replicas - count);
    rs["spec"]["replicas"] = replicas - count;
    cleaned += count;
  }
  // Then available ones, as far as maxUnavailable allows.
  int64_t available = status_int(new_rs, "availableReplicas");
  for (const json& rs : olds) {
    available += status_int(rs, "availableReplicas");
  }
  if (available <= min_available) {
    return steps;
  }
  const int64_t total = available - min_available;
  int64_t scaled = 0;
  for (const json& rs : olds) {
    const int64_t replicas = rs_replicas(rs);
    if (scaled >= total) {
      break;
    }
    if (replicas == 0) {
      continue;
    }
    const int64_t count = std::min(replicas, total - scaled);
    add_step(steps, name_of(rs), replicas, replicas - count);
    scaled += count;
  }
  return steps;
}

std::vector<Scale> plan_scale(const json& deployment, const json* new_rs,
                              const std::vector<json>& old) {
  const int64_t desired = desired_replicas(deployment);
  std::vector<json> olds = old;
  if (new_rs == nullptr && olds.empty()) {
    return {};
  }
  std::stable_sort(olds.begin(), olds.end(), newer);  // newest first
  std::vector<json> actives;
  for (const json& rs : olds) {
    if (active(rs)) {
      actives.push_back(rs);
    }
  }
  if (new_rs != nullptr && active(*new_rs)) {
    actives.push_back(*new_rs);
  }
  if (actives.size() <= 1) {
    const json& only = !actives.empty() ? actives[0] : (new_rs != nullptr ? *new_rs : olds[0]);
    const int64_t replicas = rs_replicas(only);
    if (replicas == desired) {
      return {};
    }
    return {{name_of(only), replicas, desired}};
  }
  std::vector<Scale> steps;
  if (new_rs != nullptr && rs_replicas(*new_rs) == desired &&
      annotation_int(*new_rs, kDesiredReplicas) == desired &&
      status_int(*new_rs, "availableReplicas") == desired) {
    for (const json& rs : olds) {
      if (active(rs)) {
        steps.push_back({name_of(rs), rs_replicas(rs), 0});
      }
    }
    return steps;
  }
  if (!rolling_update(deployment)) {
    return {};
  }
  int64_t total = 0;
  for (const json& rs : actives) {
    total += rs_replicas(rs);
  }
  const int64_t allowed = desired > 0 ? desired + max_surge(deployment) : 0;
  const int64_t to_add = allowed - total;
  // Adding goes to the largest first, the newest among equals; taking, from the largest, the
  // oldest among equals.
  std::stable_sort(actives.begin(), actives.end(), [to_add](const json& a, const json& b) {
    if (rs_replicas(a) != rs_replicas(b)) {
      return rs_replicas(a) > rs_replicas(b);
    }
    return to_add > 0 ? newer(a, b) : newer(b, a);
  });
  std::vector<int64_t> sizes;
  int64_t added = 0;
  for (const json& rs : actives) {
    const int64_t p = to_add != 0 ? proportion(rs, deployment, to_add, added) : 0;
    sizes.push_back(rs_replicas(rs) + p);
    added += p;
  }
  if (to_add != 0) {
    sizes[0] = std::max<int64_t>(0, sizes[0] + to_add - added);
  }
  const int64_t max_replicas = desired + max_surge(deployment);
  for (size_t i = 0; i < actives.size(); ++i) {
    const bool annotations_stale = annotation_int(actives[i], kDesiredReplicas) != desired ||
                                   annotation_int(actives[i], kMaxReplicas) != max_replicas;
    if (sizes[i] != rs_replicas(actives[i]) || annotations_stale) {
      steps.push_back({name_of(actives[i]), rs_replicas(actives[i]), sizes[i]});
    }
  }
  return steps;
}

bool is_scaling_event(const json& deployment, const std::vector<json>& all) {
  for (const json& rs : all) {
    if (!active(rs)) {
      continue;
    }
    const auto desired = annotation_int(rs, kDesiredReplicas);
    if (desired && *desired != desired_replicas(deployment)) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> to_clean_up(const json& deployment, const std::vector<json>& old) {
  const int64_t limit = int_at(deployment, {"spec", "revisionHistoryLimit"}, kNever);
  if (limit == kNever) {
    return {};
  }
  std::vector<json> alive;
  for (const json& rs : old) {
    if (!being_deleted(rs)) {
      alive.push_back(rs);
    }
  }
  const int64_t diff = static_cast<int64_t>(alive.size()) - limit;
  if (diff <= 0) {
    return {};
  }
  sort_by_creation(alive);
  std::vector<std::string> names;
  for (int64_t i = 0; i < diff; ++i) {
    const json& rs = alive[static_cast<size_t>(i)];
    if (status_int(rs, "replicas") != 0 || rs_replicas(rs) != 0 ||
        int_at(rs, {"metadata", "generation"}, 0) > status_int(rs, "observedGeneration")) {
      continue;
    }
    names.push_back(name_of(rs));
  }
  return names;
}

json deployment_condition(const std::string& type, const std::string& status,
                          const std::string& reason, const std::string& message,
                          const std::string& now) {
  return {{"type", type},          {"status", status},
          {"lastUpdateTime", now}, {"lastTransitionTime", now},
          {"reason", reason},      {"message", message}};
}

const json* deployment_condition_of(const json& status, const std::string& type) {
  const json* conditions = at(status, {"conditions"});
  return conditions != nullptr ? condition_in(*conditions, type) : nullptr;
}

void remove_deployment_condition(json& status, const std::string& type) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) {
    return;
  }
  json kept = json::array();
  for (const json& c : status["conditions"]) {
    if (string_at(c, {"type"}) != type) {
      kept.push_back(c);
    }
  }
  status["conditions"] = std::move(kept);
}

void set_deployment_condition(json& status, const json& condition) {
  const std::string type = string_at(condition, {"type"});
  json updated = condition;
  if (const json* current = deployment_condition_of(status, type)) {
    if (string_at(*current, {"status"}) == string_at(condition, {"status"})) {
      if (string_at(*current, {"reason"}) == string_at(condition, {"reason"})) {
        return;
      }
      updated["lastTransitionTime"] = string_at(*current, {"lastTransitionTime"});
    }
  }
  remove_deployment_condition(status, type);
  if (!status.contains("conditions") || !status["conditions"].is_array()) {
    status["conditions"] = json::array();
  }
  status["conditions"].push_back(std::move(updated));
}

json calculate_status(const json& deployment, const std::vector<json>& all, const json* new_rs,
                      std::chrono::system_clock::time_point now) {
  int64_t spec_total = 0, replicas = 0, ready = 0, available = 0;
  for (const json& rs : all) {
    spec_total += rs_replicas(rs);
    replicas += status_int(rs, "replicas");
    ready += status_int(rs, "readyReplicas");
    available += status_int(rs, "availableReplicas");
  }
  const json* previous = at(deployment, {"status"});
  json status = json::object();
  status["observedGeneration"] = int_at(deployment, {"metadata", "generation"}, 0);
  status["replicas"] = replicas;
  status["updatedReplicas"] = new_rs != nullptr ? status_int(*new_rs, "replicas") : 0;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = available;
  status["unavailableReplicas"] = std::max<int64_t>(0, spec_total - available);
  // Zero counts are left out, as Go's omitempty writes them.
  for (const char* field : {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
                            "availableReplicas", "unavailableReplicas"}) {
    if (status[field] == 0) {
      status.erase(field);
    }
  }
  if (previous != nullptr && previous->contains("collisionCount")) {
    status["collisionCount"] = (*previous)["collisionCount"];
  }
  if (previous != nullptr && previous->contains("conditions")) {
    status["conditions"] = (*previous)["conditions"];
  }
  const std::string t = rfc3339(now);
  if (available >= desired_replicas(deployment) - max_unavailable(deployment)) {
    set_deployment_condition(status,
                             deployment_condition("Available", "True", "MinimumReplicasAvailable",
                                                  "Deployment has minimum availability.", t));
  } else {
    set_deployment_condition(
        status, deployment_condition("Available", "False", "MinimumReplicasUnavailable",
                                     "Deployment does not have minimum availability.", t));
  }
  return status;
}

bool complete(const json& deployment, const json& status) {
  const int64_t desired = desired_replicas(deployment);
  return int_at(status, {"updatedReplicas"}, 0) == desired &&
         int_at(status, {"replicas"}, 0) == desired &&
         int_at(status, {"availableReplicas"}, 0) == desired &&
         int_at(status, {"observedGeneration"}, 0) >=
             int_at(deployment, {"metadata", "generation"}, 0);
}

json rollout_status(const json& deployment, const std::vector<json>& all, const json* new_rs,
                    std::chrono::system_clock::time_point now) {
  json status = calculate_status(deployment, all, new_rs, now);
  const bool deadline = progress_deadline(deployment).has_value();
  if (!deadline) {
    remove_deployment_condition(status, "Progressing");
  }
  const json previous = deployment.contains("status") ? deployment["status"] : json::object();
  const json* current = deployment_condition_of(previous, "Progressing");
  const bool was_complete =
      int_at(status, {"replicas"}, 0) == int_at(status, {"updatedReplicas"}, 0) &&
      current != nullptr && string_at(*current, {"reason"}) == "NewReplicaSetAvailable";
  const std::string t = rfc3339(now);
  const std::string subject = new_rs != nullptr ? "ReplicaSet " + quoted(name_of(*new_rs))
                                                : "Deployment " + quoted(name_of(deployment));
  if (deadline && !was_complete) {
    if (complete(deployment, status)) {
      set_deployment_condition(status,
                               deployment_condition("Progressing", "True", "NewReplicaSetAvailable",
                                                    subject + " has successfully progressed.", t));
    } else if (progressing(deployment, status)) {
      json cond = deployment_condition("Progressing", "True", "ReplicaSetUpdated",
                                       subject + " is progressing.", t);
      if (current != nullptr) {
        if (string_at(*current, {"status"}) == "True") {
          cond["lastTransitionTime"] = string_at(*current, {"lastTransitionTime"});
        }
        remove_deployment_condition(status, "Progressing");
      }
      set_deployment_condition(status, cond);
    } else if (timed_out(deployment, status, now)) {
      set_deployment_condition(
          status, deployment_condition("Progressing", "False", "ProgressDeadlineExceeded",
                                       subject + " has timed out progressing.", t));
    }
  }
  // A ReplicaSet's ReplicaFailure (the new one's first) shows on the Deployment.
  std::optional<json> failure;
  auto failure_of = [](const json& rs) -> std::optional<json> {
    const json* cond = condition(rs, "ReplicaFailure");
    if (cond == nullptr) {
      return std::nullopt;
    }
    json c = *cond;
    c["lastUpdateTime"] = string_at(*cond, {"lastTransitionTime"});
    return c;
  };
  if (new_rs != nullptr) {
    failure = failure_of(*new_rs);
  }
  for (size_t i = 0; !failure && i < all.size(); ++i) {
    failure = failure_of(all[i]);
  }
  if (failure) {
    set_deployment_condition(status, *failure);
  } else {
    remove_deployment_condition(status, "ReplicaFailure");
  }
  return status;
}

std::optional<std::chrono::system_clock::duration> stuck_requeue(
    const json& deployment, const json& status, std::chrono::system_clock::time_point now) {
  const auto deadline = progress_deadline(deployment);
  const json previous = deployment.contains("status") ? deployment["status"] : json::object();
  const json* current = deployment_condition_of(previous, "Progressing");
  if (!deadline || current == nullptr || complete(deployment, status) ||
      string_at(*current, {"reason"}) == "ProgressDeadlineExceeded") {
    return std::nullopt;
  }
  const auto updated = parse_time(string_at(*current, {"lastUpdateTime"}));
  if (!updated) {
    return std::nullopt;
  }
  const auto after = *updated + std::chrono::seconds(*deadline) - now;
  // A second past the deadline, so that the check sees it passed.
  return std::max<std::chrono::system_clock::duration>(after, std::chrono::seconds(0)) +
         std::chrono::seconds(1);
}

}  // namespace cluster::deployment
