// What every workload controller reads from its pods and how it makes new ones, as
// kube-controller-manager's controller utilities (podutil.IsPodReady, IsPodAvailable,
// GetPodFromTemplate) do.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/informer.h"

namespace cluster {

using nlohmann::json;

// Ready for at least `min_ready_seconds` at `now`.
bool pod_available(const json& pod, int64_t min_ready_seconds,
                   std::chrono::system_clock::time_point now);
// When a ready pod becomes available (its Ready transition plus `min_ready_seconds`); nullopt
// when it is not ready or the time is unknown.
std::optional<std::chrono::system_clock::time_point> pod_available_at(const json& pod,
                                                                      int64_t min_ready_seconds);

// A pod made from `tmpl` (a PodTemplateSpec) for `owner`: the template's labels, annotations,
// finalizers and spec, the owner's namespace and a controller ownerReference to it. No name: the
// caller sets metadata.name or metadata.generateName.
json pod_from_template(const json& owner, const json& tmpl);

// The object of an informer named by a work queue key ("ns/name"), or null.
ObjectPtr object_for_key(const Informer& informer, const std::string& key);
// The pods in `pods` whose controller ownerReference is `owner` (by uid).
std::vector<ObjectPtr> controlled_pods(const Informer& pods, const json& owner);

}  // namespace cluster
