#include "workloads/stateful_set_utils.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "client/objects.h"
#include "workloads/controller_history.h"
#include "workloads/stateful_set_retention.h"
#include "workloads/workload_pods.h"

namespace cluster {
namespace {

const json kNoObject = json::object();

const json& object_at(const json& object, std::initializer_list<const char*> path) {
  const json* value = at(object, path);
  return value != nullptr && value->is_object() ? *value : kNoObject;
}

std::string phase_of(const json& pod) {
  return string_at(pod, {"status", "phase"});
}

bool terminating(const json& pod) {
  return being_deleted(pod);
}

// Whether a new pod of `ordinal` is made from the current revision rather than the update one.
bool made_from_current(const json& set, int64_t ordinal) {
  const json* rolling = at(set, {"spec", "updateStrategy", "rollingUpdate"});
  const bool rolling_type = string_at(set, {"spec", "updateStrategy", "type"}) != "OnDelete";
  if (rolling != nullptr && rolling->is_object()) {
    return ordinal < int_at(*rolling, {"partition"}, 0);
  }
  return rolling_type && ordinal < int_at(set, {"status", "currentReplicas"}, 0);
}

// The claim volume of each template, by template name.
std::map<std::string, std::string> claim_volumes(const json& set, int64_t ordinal) {
  std::map<std::string, std::string> volumes;
  const json* templates = at(set, {"spec", "volumeClaimTemplates"});
  if (templates == nullptr || !templates->is_array()) {
    return volumes;
  }
  for (const json& t : *templates) {
    volumes[name_of(t)] = stateful_claim_name(name_of(t), name_of(set), ordinal);
  }
  return volumes;
}

using Claims = std::map<std::string, const json*>;

// The existing claims of `pod` (a pod of `set`, created or not).
std::vector<const json*> claims_of(const json& set, const json& pod, const Claims& claims) {
  std::vector<const json*> out;
  auto ordinal = stateful_ordinal(name_of(pod), name_of(set));
  if (!ordinal) {
    return out;
  }
  for (const auto& entry : claim_volumes(set, *ordinal)) {
    if (auto it = claims.find(entry.second); it != claims.end()) {
      out.push_back(it->second);
    }
  }
  return out;
}

// Whether a claim of `pod` names a previous pod of that name: while whenScaled is Delete, the
// garbage collector is about to delete it, so the pod waits.
bool claims_stale(const json& set, const json& pod, const Claims& claims) {
  if (!claim_retention(set).delete_when_scaled) {
    return false;
  }
  const auto mine = claims_of(set, pod, claims);
  return std::any_of(mine.begin(), mine.end(), [&](const json* claim) {
    return claim_has_stale_owner(*claim, pod, "v1", "Pod");
  });
}

bool claims_retained_as_wanted(const json& set, const json& pod, const Claims& claims) {
  const auto mine = claims_of(set, pod, claims);
  return std::all_of(mine.begin(), mine.end(),
                     [&](const json* claim) { return claim_owners_up_to_date(*claim, set, pod); });
}

}  // namespace

std::string stateful_pod_name(const std::string& set, int64_t ordinal) {
  return set + "-" + std::to_string(ordinal);
}

std::string stateful_claim_name(const std::string& claim_template, const std::string& set,
                                int64_t ordinal) {
  return claim_template + "-" + stateful_pod_name(set, ordinal);
}

std::optional<int64_t> stateful_ordinal(const std::string& pod_name, const std::string& set) {
  if (pod_name.size() < set.size() + 2 || !pod_name.starts_with(set) ||
      pod_name[set.size()] != '-') {
    return std::nullopt;
  }
  const std::string_view digits = std::string_view(pod_name).substr(set.size() + 1);
  int64_t ordinal = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.front() == '+') {
    return std::nullopt;
  }
  return ordinal;
}

int64_t start_ordinal(const json& set) {
  return int_at(set, {"spec", "ordinals", "start"}, 0);
}

int64_t wanted_replicas(const json& set) {
  return int_at(set, {"spec", "replicas"}, 1);
}

bool ordered_ready(const json& set) {
  return string_at(set, {"spec", "podManagementPolicy"}) != "Parallel";
}

std::vector<json> stateful_claims(const json& set, int64_t ordinal) {
  std::vector<json> claims;
  const json* templates = at(set, {"spec", "volumeClaimTemplates"});
  if (templates == nullptr || !templates->is_array()) {
    return claims;
  }
  const json& match_labels = object_at(set, {"spec", "selector", "matchLabels"});
  for (const json& t : *templates) {
    json claim = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}};
    json metadata = object_at(t, {"metadata"});
    metadata["name"] = stateful_claim_name(name_of(t), name_of(set), ordinal);
    metadata["namespace"] = namespace_of(set);
    json labels = object_at(t, {"metadata", "labels"});
    labels.update(match_labels);
    metadata["labels"] = std::move(labels);
    claim["metadata"] = std::move(metadata);
    claim["spec"] = object_at(t, {"spec"});
    claims.push_back(std::move(claim));
  }
  return claims;
}

json with_stateful_identity(const json& set, const json& pod) {
  json out = pod;
  const std::string name = name_of(pod);
  const int64_t ordinal = stateful_ordinal(name, name_of(set)).value_or(-1);
  out["metadata"]["labels"][kStatefulPodNameLabel] = name;
  out["metadata"]["labels"][kPodIndexLabel] = std::to_string(ordinal);
  // The claims' volumes first (in template order), then the template's other volumes.
  const auto claims = claim_volumes(set, ordinal);
  json volumes = json::array();
  if (const json* templates = at(set, {"spec", "volumeClaimTemplates"});
      templates != nullptr && templates->is_array()) {
    for (const json& t : *templates) {
      volumes.push_back({{"name", name_of(t)},
                         {"persistentVolumeClaim", {{"claimName", claims.at(name_of(t))}}}});
    }
  }
  if (const json* old = at(pod, {"spec", "volumes"}); old != nullptr && old->is_array()) {
    for (const json& v : *old) {
      if (claims.count(string_at(v, {"name"})) == 0) {
        volumes.push_back(v);
      }
    }
  }
  if (!volumes.empty()) {
    out["spec"]["volumes"] = std::move(volumes);
  }
  return out;
}

json new_stateful_pod(const json& set, const json& tmpl, const std::string& revision,
                      int64_t ordinal) {
  json pod = pod_from_template(set, tmpl);
  const std::string name = stateful_pod_name(name_of(set), ordinal);
  pod["metadata"]["name"] = name;
  pod = with_stateful_identity(set, pod);
  pod["metadata"]["labels"][kRevisionHashLabel] = revision;
  pod["spec"]["hostname"] = name;
  if (const std::string service = string_at(set, {"spec", "serviceName"}); !service.empty()) {
    pod["spec"]["subdomain"] = service;
  }
  return pod;
}

bool stateful_identity_matches(const json& set, const json& pod) {
  const std::string name = name_of(pod);
  auto ordinal = stateful_ordinal(name, name_of(set));
  return ordinal && namespace_of(pod) == namespace_of(set) &&
         string_at(pod, {"metadata", "labels", kStatefulPodNameLabel}) == name &&
         string_at(pod, {"metadata", "labels", kPodIndexLabel}) == std::to_string(*ordinal);
}

bool stateful_storage_matches(const json& set, const json& pod) {
  auto ordinal = stateful_ordinal(name_of(pod), name_of(set));
  if (!ordinal) {
    return false;
  }
  const json* volumes = at(pod, {"spec", "volumes"});
  for (const auto& entry : claim_volumes(set, *ordinal)) {
    const auto& volume = entry.first;
    const auto& claim = entry.second;
    const bool found = volumes != nullptr && volumes->is_array() &&
                       std::any_of(volumes->begin(), volumes->end(), [&](const json& v) {
                         return string_at(v, {"name"}) == volume &&
                                string_at(v, {"persistentVolumeClaim", "claimName"}) == claim;
                       });
    if (!found) {
      return false;
    }
  }
  return true;
}

bool pod_created(const json& pod) {
  return !phase_of(pod).empty();
}

bool pod_running_and_ready(const json& pod) {
  return phase_of(pod) == "Running" && pod_ready(pod);
}

bool pod_healthy(const json& pod) {
  return pod_running_and_ready(pod) && !terminating(pod);
}

std::vector<StatefulAction> plan_stateful_set(const json& set, const std::vector<ObjectPtr>& pods,
                                              const std::string& current, const std::string& update,
                                              std::chrono::system_clock::time_point now,
                                              const std::vector<ObjectPtr>& claims) {
  using Kind = StatefulAction::Kind;
  std::vector<StatefulAction> plan;
  if (being_deleted(set)) {
    return plan;
  }
  Claims claims_by_name;
  for (const ObjectPtr& claim : claims) {
    claims_by_name.emplace(name_of(*claim), claim.get());
  }
  const std::string set_name = name_of(set);
  const int64_t start = start_ordinal(set);
  const int64_t count = std::max<int64_t>(wanted_replicas(set), 0);
  const bool monotonic = ordered_ready(set);
  const int64_t min_ready = int_at(set, {"spec", "minReadySeconds"}, 0);
  // The wanted pods by index (null where missing) and the condemned ones, highest ordinal first.
  std::vector<const json*> replicas(static_cast<size_t>(count), nullptr);
  std::vector<std::pair<int64_t, const json*>> condemned;
  for (const ObjectPtr& pod : pods) {
    auto ordinal = stateful_ordinal(name_of(*pod), set_name);
    if (!ordinal) {
      continue;
    }
    if (*ordinal >= start && *ordinal < start + count) {
      replicas[static_cast<size_t>(*ordinal - start)] = pod.get();
    } else {
      condemned.emplace_back(*ordinal, pod.get());
    }
  }
  std::sort(condemned.begin(), condemned.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  // The first unhealthy pod: a wanted one (null when missing), else the lowest condemned one.
  const json* first_unhealthy = nullptr;
  bool replicas_unhealthy = false;
  for (const json* pod : replicas) {
    if (pod == nullptr || !pod_healthy(*pod)) {
      first_unhealthy = pod;
      replicas_unhealthy = true;
      break;
    }
  }
  if (!replicas_unhealthy) {
    for (auto it = condemned.rbegin(); it != condemned.rend(); ++it) {
      if (!pod_healthy(*it->second)) {
        first_unhealthy = it->second;
        break;
      }
    }
  }
  auto revision_for = [&](int64_t ordinal) {
    return made_from_current(set, ordinal) ? current : update;
  };
  // Each wanted pod, lowest ordinal first.
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ordinal = start + i;
    const json* pod = replicas[static_cast<size_t>(i)];
    if (pod == nullptr) {
      const std::string name = stateful_pod_name(set_name, ordinal);
      if (!claims_stale(set, {{"metadata", {{"name", name}}}}, claims_by_name)) {
        plan.push_back({Kind::Create, ordinal, name, revision_for(ordinal)});
      }
      if (monotonic) {
        return plan;
      }
      continue;
    }
    const std::string phase = phase_of(*pod);
    if (phase == "Failed" || phase == "Succeeded") {
      plan.push_back({Kind::Recreate, ordinal, name_of(*pod), revision_for(ordinal)});
      if (monotonic) {
        return plan;
      }
      continue;
    }
    if (phase == "Pending") {
      plan.push_back({Kind::CreateClaims, ordinal, name_of(*pod), {}});
    }
    if (monotonic && (terminating(*pod) || !pod_running_and_ready(*pod) ||
                      !pod_available(*pod, min_ready, now))) {
      return plan;
    }
    if (!stateful_identity_matches(set, *pod) || !stateful_storage_matches(set, *pod) ||
        !claims_retained_as_wanted(set, *pod, claims_by_name)) {
      plan.push_back({Kind::Update, ordinal, name_of(*pod), {}});
    }
  }
  // The claims of the condemned pods, to the retention policy, before any goes.
  for (const auto& [ordinal, pod] : condemned) {
    if (!claims_retained_as_wanted(set, *pod, claims_by_name)) {
      plan.push_back({Kind::FixClaims, ordinal, name_of(*pod), {}});
    }
  }
  // The condemned pods, highest ordinal first.
  for (const auto& [ordinal, pod] : condemned) {
    if (terminating(*pod)) {
      if (monotonic) {
        return plan;
      }
      continue;
    }
    if (monotonic && pod != first_unhealthy &&
        (!pod_running_and_ready(*pod) || !pod_available(*pod, min_ready, now))) {
      return plan;
    }
    plan.push_back({Kind::Delete, ordinal, name_of(*pod), {}});
    if (monotonic) {
      return plan;
    }
  }
  if (string_at(set, {"spec", "updateStrategy", "type"}) == "OnDelete") {
    return plan;
  }
  // The rolling update: the highest pod not at the update revision is replaced, once every pod
  // above it is healthy.
  const int64_t partition =
      int_at(set, {"spec", "updateStrategy", "rollingUpdate", "partition"}, 0);
  for (int64_t i = count - 1; i >= partition && i >= 0; --i) {
    const json* pod = replicas[static_cast<size_t>(i)];
    if (pod == nullptr) {
      return plan;  // being created in this pass
    }
    if (string_at(*pod, {"metadata", "labels", kRevisionHashLabel}) != update &&
        !terminating(*pod)) {
      plan.push_back({Kind::Delete, start + i, name_of(*pod), {}});
      return plan;
    }
    if (!pod_healthy(*pod)) {
      return plan;
    }
  }
  return plan;
}

json stateful_status(const json& set, const std::vector<ObjectPtr>& pods,
                     const std::string& current, const std::string& update, int64_t collision_count,
                     std::chrono::system_clock::time_point now) {
  const int64_t min_ready = int_at(set, {"spec", "minReadySeconds"}, 0);
  int64_t replicas = 0, ready = 0, available = 0, current_count = 0, updated = 0;
  for (const ObjectPtr& pod : pods) {
    if (!stateful_ordinal(name_of(*pod), name_of(set))) {
      continue;
    }
    if (pod_created(*pod)) {
      ++replicas;
    }
    if (pod_running_and_ready(*pod)) {
      ++ready;
      if (pod_available(*pod, min_ready, now)) {
        ++available;
      }
    }
    if (pod_created(*pod) && !terminating(*pod)) {
      const std::string revision = string_at(*pod, {"metadata", "labels", kRevisionHashLabel});
      current_count += revision == current ? 1 : 0;
      updated += revision == update ? 1 : 0;
    }
  }
  json status = {{"observedGeneration", int_at(set, {"metadata", "generation"}, 0)},
                 {"replicas", replicas},
                 {"availableReplicas", available},
                 {"currentRevision", current},
                 {"updateRevision", update},
                 {"collisionCount", collision_count}};
  // A finished rolling update: every pod updated and ready.
  if (string_at(set, {"spec", "updateStrategy", "type"}) != "OnDelete" && updated == replicas &&
      ready == replicas) {
    current_count = updated;
    status["currentRevision"] = update;
  }
  // Zero counts are left out, as Go's omitempty writes them.
  for (auto [field, value] :
       {std::pair{"readyReplicas", ready}, std::pair{"currentReplicas", current_count},
        std::pair{"updatedReplicas", updated}}) {
    if (value != 0) {
      status[field] = value;
    }
  }
  if (const json* conditions = at(set, {"status", "conditions"}); conditions != nullptr) {
    status["conditions"] = *conditions;
  }
  return status;
}

}  // namespace cluster
