// The field mappings between the served versions of the built-in kinds whose versions differ in
// more than apiVersion (registry/builtin_conversion.h chooses among them). Each takes an object
// in the one version and rewrites it, in place, into the other, apiVersion included. Pure; no
// exceptions; values of the wrong type are carried over or left where they are, for validation
// at the storage version to reject.
#pragma once

#include <nlohmann/json.hpp>

namespace apiserver::registry::conversions {

// autoscaling/v2 <-> autoscaling/v1 HorizontalPodAutoscaler, as kube-apiserver v1.32 converts
// through its internal type (pkg/apis/autoscaling/v1/conversion.go).
void hpa_v2_to_v1(nlohmann::json& object);
void hpa_v1_to_v2(nlohmann::json& object);

// resource.k8s.io ResourceSlice: v1alpha3 spells a device's capacity as a quantity, v1beta1 as
// {"value": quantity} (pkg/apis/resource/v1alpha3/conversion.go). `to_version` names the target.
void resource_slice_capacity(nlohmann::json& object, bool to_v1beta1);

}  // namespace apiserver::registry::conversions
