// Conversion between the served versions of built-in kinds that kube-apiserver v1.32 serves at
// more than one version of their group, and the version each is stored in. The endpoints convert
// a request's body to the storage version before the generic store sees it, and every answer
// back to the request's version.
//
// | group / kind                                   | versions           | stored at |
// |------------------------------------------------|--------------------|-----------|
// | autoscaling HorizontalPodAutoscaler            | v2, v1             | v2        |
// | admissionregistration.k8s.io ValidatingAdmissionPolicy(Binding) | v1, v1beta1 | v1 |
// | resource.k8s.io DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice |
// |                                                | v1beta1, v1alpha3  | v1beta1   |
// | storage.k8s.io VolumeAttributesClass           | v1beta1, v1alpha1  | v1beta1   |
// | authentication.k8s.io SelfSubjectReview        | v1, v1beta1        | not stored |
//
// Only HorizontalPodAutoscaler and ResourceSlice change fields (registry/kinds/conversions.h);
// the others have the same fields at every version, so converting them rewrites apiVersion.
// Pure functions over their arguments; safe from any thread; nothing throws.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace apiserver::registry {

// The version of `group` that objects of `resource` are stored in, when kube-apiserver v1.32
// serves the resource at more than one version of its group and stores it at one of them; ""
// otherwise. `resource` may name a subresource ("horizontalpodautoscalers/status"): its bodies
// are whole objects, stored alike.
std::string builtin_storage_version(const std::string& group, const std::string& resource);

// Converts `object` (its apiVersion names the version it is in, a version of `group`) to
// `to_version` of the same group, in place, setting apiVersion. nullopt on success; else why
// not (a version the kind is not served at, an apiVersion of another group, a kind that does
// not convert, not an object), and `object` is left as it was. Converting to the version the
// object is in only sets apiVersion.
std::optional<std::string> convert_builtin(const std::string& group, const std::string& kind,
                                           nlohmann::json& object, const std::string& to_version);

}  // namespace apiserver::registry
