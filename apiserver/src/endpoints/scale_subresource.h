// The scale subresource of workloads and of custom resources that declare one: the
// autoscaling/v1 Scale an object shows, the object a Scale's replicas give, and how field
// ownership of spec.replicas moves between the two for server-side apply on /scale.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"

namespace apiserver::endpoints {

// The Scale of a workload, as its scale subresource shows it; a custom resource's replicas and
// selector are read at the paths its CRD's subresources.scale names.
nlohmann::json scale_of(const registry::Resource& r, const nlohmann::json& object);
// The workload with the replicas of `scale`; the Scale's resourceVersion becomes the object's
// precondition.
nlohmann::json with_scale(const registry::Resource& r, const nlohmann::json& current,
                          const nlohmann::json& scale);
// Server-side apply on /scale works as upstream's scale handler does: the Scale is given the
// parent's ownership of spec.replicas (each entry that owns it, reduced to it), the apply runs on
// the Scale, and the Scale's ownership of spec.replicas is put back on the parent's entries.
nlohmann::json scale_managed_fields(const nlohmann::json& parent);
nlohmann::json parent_managed_fields(const nlohmann::json& parent, const nlohmann::json& scale,
                                     const std::string& api_version);

}  // namespace apiserver::endpoints
