// The annotations through which an autoscaling/v1 HorizontalPodAutoscaler carries what only
// autoscaling/v2 can say (kube-apiserver v1.32, pkg/apis/autoscaling/annotations.go and
// v1/conversion.go): the metrics other than a CPU utilization target, the current metrics, the
// scaling behavior and the conditions. Each holds JSON as Go's json.Marshal writes it: the v1
// MetricSpec, MetricStatus and condition types, and for the behavior the internal type, whose
// fields have no JSON tags (so "ScaleUp", "StabilizationWindowSeconds", ...).
//
// Encoders take the v2 form (as stored) and are lenient: a value of the wrong type is written as
// found or as Go's zero value. Decoders are as strict as Go's json.Unmarshal into those types: a
// value of the wrong type, an invalid quantity or time, or malformed JSON fails the whole
// annotation, which upstream then ignores. Keys match case-insensitively, as in Go. Pure
// functions; nothing throws.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace apiserver::registry::hpa_annotations {

inline constexpr const char* kMetrics = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kCurrentMetrics = "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kConditions = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr const char* kBehavior = "autoscaling.alpha.kubernetes.io/behavior";

using OrderedJson = nlohmann::ordered_json;

// v2 -> annotation values (Go's field order).
OrderedJson v1_metric_spec(const nlohmann::json& metric);
OrderedJson v1_metric_status(const nlohmann::json& status);
OrderedJson internal_behavior(const nlohmann::json& behavior);
OrderedJson v1_condition(const nlohmann::json& condition);

// json.Marshal's text: compact, HTML characters and U+2028/U+2029 escaped, invalid UTF-8
// replaced.
std::string go_marshal(const OrderedJson& value);

// Annotation text -> the v2 form; nullopt when Go's Unmarshal fails. Lists come back as arrays
// (null decodes to an empty array); the behavior as an object, or null when both directions are
// unset (upstream then leaves spec.behavior unset).
std::optional<nlohmann::json> decode_metric_specs(const std::string& text);
std::optional<nlohmann::json> decode_metric_statuses(const std::string& text);
std::optional<nlohmann::json> decode_behavior(const std::string& text);
std::optional<nlohmann::json> decode_conditions(const std::string& text);

}  // namespace apiserver::registry::hpa_annotations
