// resource.k8s.io ResourceSlice between v1alpha3 and v1beta1 (kube-apiserver v1.32): the two
// versions differ only in spec.devices[].basic.capacity, a map of quantities in v1alpha3 and a
// map of DeviceCapacity ({"value": quantity}) in v1beta1. DeviceClass, ResourceClaim and
// ResourceClaimTemplate have the same fields in both.
#include "registry/kinds/conversions.h"

namespace apiserver::registry::conversions {

void resource_slice_capacity(nlohmann::json& object, bool to_v1beta1) {
  if (!object.is_object()) {
    return;
  }
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) {
    return;
  }
  auto devices = spec->find("devices");
  if (devices == spec->end() || !devices->is_array()) {
    return;
  }
  for (nlohmann::json& device : *devices) {
    if (!device.is_object()) {
      continue;
    }
    auto basic = device.find("basic");
    if (basic == device.end() || !basic->is_object()) {
      continue;
    }
    auto capacity = basic->find("capacity");
    if (capacity == basic->end() || !capacity->is_object()) {
      continue;
    }
    for (auto& entry : capacity->items()) {
      nlohmann::json& value = entry.value();
      if (to_v1beta1) {
        // A quantity (string or number) becomes DeviceCapacity; anything else stays, for
        // validation to refuse.
        if (value.is_string() || value.is_number()) {
          value = nlohmann::json{{"value", std::move(value)}};
        }
      } else if (value.is_object()) {
        // DeviceCapacity.value is a Quantity, whose zero value writes "0".
        auto q = value.find("value");
        value =
            q != value.end() && !q->is_null() ? nlohmann::json(std::move(*q)) : nlohmann::json("0");
      }
    }
  }
}

}  // namespace apiserver::registry::conversions
