#include "workloads/workload_pods.h"

#include "client/objects.h"

namespace cluster {

std::optional<std::chrono::system_clock::time_point> pod_available_at(const json& pod,
                                                                      int64_t min_ready_seconds) {
  if (!pod_ready(pod)) {
    return std::nullopt;
  }
  auto since = parse_time(string_at(*condition(pod, "Ready"), {"lastTransitionTime"}));
  if (!since) {
    return std::nullopt;
  }
  return *since + std::chrono::seconds(min_ready_seconds);
}

bool pod_available(const json& pod, int64_t min_ready_seconds,
                   std::chrono::system_clock::time_point now) {
  if (!pod_ready(pod)) {
    return false;
  }
  if (min_ready_seconds <= 0) {
    return true;
  }
  auto at_time = pod_available_at(pod, min_ready_seconds);
  return at_time && now >= *at_time;
}

json pod_from_template(const json& owner, const json& tmpl) {
  json metadata = json::object();
  for (const char* field : {"labels", "annotations", "finalizers"}) {
    if (const json* value = at(tmpl, {"metadata", field}); value != nullptr && !value->empty()) {
      metadata[field] = *value;
    }
  }
  metadata["namespace"] = namespace_of(owner);
  metadata["ownerReferences"] = json::array({controller_owner_ref(owner)});
  const json* spec = at(tmpl, {"spec"});
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(metadata)},
          {"spec", spec != nullptr ? *spec : json::object()}};
}

ObjectPtr object_for_key(const Informer& informer, const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) {
    return informer.get("", key);
  }
  return informer.get(key.substr(0, slash), key.substr(slash + 1));
}

std::vector<ObjectPtr> controlled_pods(const Informer& pods, const json& owner) {
  const std::string uid = uid_of(owner);
  std::vector<ObjectPtr> owned;
  for (const ObjectPtr& pod : pods.list(namespace_of(owner))) {
    const json* ref = controller_ref(*pod);
    if (ref != nullptr && string_at(*ref, {"uid"}) == uid) {
      owned.push_back(pod);
    }
  }
  return owned;
}

}  // namespace cluster
