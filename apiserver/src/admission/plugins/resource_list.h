// ResourceLists (a container's requests and limits, a LimitRange's bounds, a quota's hard and
// used) as numbers, and their sums written back as resource.Quantity's String() writes them.
// Pure functions over JSON; LimitRanger and ResourceQuota share them.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/quantity.h"

namespace apiserver::admission {

// One quantity: its value in base units and the format a sum starting from it keeps.
struct Amount {
  double value = 0;
  common::QuantityFormat format = common::QuantityFormat::DecimalSI;

  // As Quantity.Add: a sum keeps the receiver's format, unless the receiver is zero.
  void add(const Amount& other) {
    if (value == 0) {
      format = other.format;
    }
    value += other.value;
  }
  // The canonical text ("500m", "1Gi", "3").
  std::string text() const { return common::format_quantity(value, format); }
};

// A count as a quantity ("3").
Amount count_amount(double n);

// The quantity at `list[name]` (a string, or a number); nullopt when absent or unreadable.
std::optional<Amount> amount_at(const nlohmann::json* list, const std::string& name);
// Every readable entry of a ResourceList (null or not an object: none), by name.
std::map<std::string, Amount> amounts(const nlohmann::json* list);

// A pod's requests or limits (`kind` "requests" or "limits"), as resourcehelper.PodRequests
// adds them: the containers' sum, raised to any init container's own value when larger (a
// restartable init container, a sidecar, adds to the sum instead), plus spec.overhead when
// `overhead` (quota counts it, LimitRanger's Pod bounds do not).
std::map<std::string, Amount> pod_resources(const nlohmann::json& pod, const std::string& kind,
                                            bool overhead = true);

}  // namespace apiserver::admission
