// HorizontalPodAutoscaler between autoscaling/v2 (the storage version) and autoscaling/v1, as
// kube-apiserver v1.32 converts through its internal type, which v2 mirrors:
// - v1's spec.targetCPUUtilizationPercentage is the first Resource metric named cpu (when it
//   has a target averageUtilization); status.currentCPUUtilizationPercentage the last cpu
//   Resource current metric with an averageUtilization.
// - everything else v2 says travels in v1's annotations (autoscaling_annotations.h): the other
//   metrics, every current metric (the CPU one too, for its raw value), the behavior and the
//   conditions. Going to v1 they are written afresh (stale copies dropped first); coming back
//   they are read and dropped. An annotation Go cannot decode is ignored.
// - a v1 object naming no metric at all gets the old implicit target, CPU at 80%.
#include "registry/kinds/conversions.h"

#include <string>
#include <string_view>

#include "registry/kinds/autoscaling_annotations.h"

namespace apiserver::registry::conversions {
namespace {

using nlohmann::json;
namespace ann = hpa_annotations;

constexpr int kDefaultCpuUtilization = 80;
constexpr const char* kRoundTrip[] = {ann::kMetrics, ann::kCurrentMetrics, ann::kConditions,
                                      ann::kBehavior};

const json* member(const json& obj, std::string_view key) {
  if (!obj.is_object()) {
    return nullptr;
  }
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

bool is_cpu_resource(const json& metric) {
  const json* type = member(metric, "type");
  const json* resource = member(metric, "resource");
  const json* name = resource != nullptr ? member(*resource, "name") : nullptr;
  return type != nullptr && *type == "Resource" && name != nullptr && *name == "cpu";
}

// The averageUtilization under `part` ("target" or "current") of a cpu Resource metric.
const json* cpu_utilization(const json& metric, const char* part) {
  if (!is_cpu_resource(metric)) {
    return nullptr;
  }
  const json* at = member(*member(metric, "resource"), part);
  return at != nullptr ? member(*at, "averageUtilization") : nullptr;
}

void copy_fields(const json& from, json& to, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto it = from.find(key); it != from.end()) {
      to[key] = *it;
    }
  }
}

// Removes the round-trip annotations; true when there was one.
bool drop_round_trip(json& annotations) {
  bool dropped = false;
  if (annotations.is_object()) {
    for (const char* key : kRoundTrip) {
      dropped = annotations.erase(key) > 0 || dropped;
    }
  }
  return dropped;
}

// What the metadata of `object` becomes once `annotations` is its annotations again; an empty
// map is left out, as Go leaves out an empty annotations map it copied.
void set_annotations(json& metadata, json annotations, bool drop_if_empty) {
  if (!metadata.is_object()) {
    return;
  }
  if (annotations.is_object() && annotations.empty() && drop_if_empty) {
    metadata.erase("annotations");
  } else if (!annotations.is_null()) {
    metadata["annotations"] = std::move(annotations);
  }
}

}  // namespace

void hpa_v2_to_v1(json& object) {
  if (!object.is_object()) {
    return;
  }
  json out = json::object();
  out["apiVersion"] = "autoscaling/v1";
  copy_fields(object, out, {"kind", "metadata"});
  const json* spec = object.contains("spec") ? &object["spec"] : nullptr;
  const json* status = object.contains("status") ? &object["status"] : nullptr;
  const json* metrics = spec != nullptr ? member(*spec, "metrics") : nullptr;
  const json* current = status != nullptr ? member(*status, "currentMetrics") : nullptr;

  if (spec != nullptr && spec->is_object()) {
    json v1 = json::object();
    copy_fields(*spec, v1, {"scaleTargetRef", "minReplicas", "maxReplicas"});
    if (metrics != nullptr && metrics->is_array()) {
      for (const json& m : *metrics) {
        if (is_cpu_resource(m)) {
          if (const json* target = cpu_utilization(m, "target"); target != nullptr) {
            v1["targetCPUUtilizationPercentage"] = *target;
          }
          break;
        }
      }
    }
    out["spec"] = std::move(v1);
  } else if (spec != nullptr) {
    out["spec"] = *spec;  // of the wrong type: validation says so
  }
  if (status != nullptr && status->is_object()) {
    json v1 = json::object();
    copy_fields(*status, v1,
                {"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"});
    // v1's replica counts have no omitempty: Go writes them even at zero.
    for (const char* count : {"currentReplicas", "desiredReplicas"}) {
      if (!v1.contains(count)) {
        v1[count] = 0;
      }
    }
    if (current != nullptr && current->is_array()) {
      for (const json& m : *current) {
        if (const json* now = cpu_utilization(m, "current"); now != nullptr) {
          v1["currentCPUUtilizationPercentage"] = *now;
        }
      }
    }
    out["status"] = std::move(v1);
  } else if (status != nullptr) {
    out["status"] = *status;
  }

  json annotations = nullptr;
  if (const json* meta = member(out, "metadata"); meta != nullptr) {
    if (const json* a = member(*meta, "annotations"); a != nullptr) {
      annotations = *a;
    }
  }
  const bool dropped = drop_round_trip(annotations);
  auto annotate = [&annotations](const char* key, const ann::OrderedJson& value) {
    if (!annotations.is_object()) {
      annotations = json::object();
    }
    annotations[key] = ann::go_marshal(value);
  };
  if (metrics != nullptr && metrics->is_array()) {
    ann::OrderedJson other = ann::OrderedJson::array();
    for (const json& m : *metrics) {
      if (cpu_utilization(m, "target") == nullptr) {
        other.push_back(ann::v1_metric_spec(m));
      }
    }
    if (!other.empty()) {
      annotate(ann::kMetrics, other);
    }
  }
  if (current != nullptr && current->is_array() && !current->empty()) {
    ann::OrderedJson list = ann::OrderedJson::array();
    for (const json& m : *current) {
      list.push_back(ann::v1_metric_status(m));
    }
    annotate(ann::kCurrentMetrics, list);
  }
  if (const json* behavior = spec != nullptr ? member(*spec, "behavior") : nullptr) {
    annotate(ann::kBehavior, ann::internal_behavior(*behavior));
  }
  const json* conditions = status != nullptr ? member(*status, "conditions") : nullptr;
  if (conditions != nullptr && conditions->is_array() && !conditions->empty()) {
    ann::OrderedJson list = ann::OrderedJson::array();
    for (const json& c : *conditions) {
      list.push_back(ann::v1_condition(c));
    }
    annotate(ann::kConditions, list);
  }
  if (out.contains("metadata") || !annotations.is_null()) {
    if (!out.contains("metadata")) {
      out["metadata"] = json::object();
    }
    set_annotations(out["metadata"], std::move(annotations), dropped);
  }
  object = std::move(out);
}

void hpa_v1_to_v2(json& object) {
  if (!object.is_object()) {
    return;
  }
  json out = json::object();
  out["apiVersion"] = "autoscaling/v2";
  copy_fields(object, out, {"kind", "metadata"});
  const json* spec = object.contains("spec") ? &object["spec"] : nullptr;
  const json* status = object.contains("status") ? &object["status"] : nullptr;

  json v2_spec = json::object();
  json cpu_metric = nullptr;
  if (spec != nullptr && spec->is_object()) {
    copy_fields(*spec, v2_spec, {"scaleTargetRef", "minReplicas", "maxReplicas"});
    if (const json* target = member(*spec, "targetCPUUtilizationPercentage"); target != nullptr) {
      cpu_metric = {{"type", "Resource"},
                    {"resource",
                     {{"name", "cpu"},
                      {"target", {{"type", "Utilization"}, {"averageUtilization", *target}}}}}};
      v2_spec["metrics"] = json::array({cpu_metric});
    }
  }
  json v2_status = nullptr;
  if (status != nullptr && status->is_object()) {
    v2_status = json::object();
    copy_fields(*status, v2_status,
                {"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"});
    if (v2_status.value("currentReplicas", json()) == json(0)) {
      v2_status.erase("currentReplicas");  // omitempty in v2
    }
    if (const json* now = member(*status, "currentCPUUtilizationPercentage"); now != nullptr) {
      v2_status["currentMetrics"] = json::array(
          {{{"type", "Resource"},
            {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", *now}}}}}}});
    }
  }

  json annotations = nullptr;
  if (const json* meta = member(out, "metadata"); meta != nullptr) {
    if (const json* a = member(*meta, "annotations"); a != nullptr) {
      annotations = *a;
    }
  }
  auto text = [&annotations](const char* key) -> const std::string* {
    const json* v = member(annotations, key);
    return v != nullptr && v->is_string() ? &v->get_ref<const std::string&>() : nullptr;
  };
  if (const std::string* t = text(ann::kMetrics); t != nullptr) {
    if (std::optional<json> other = ann::decode_metric_specs(*t)) {
      if (!cpu_metric.is_null()) {
        other->push_back(std::move(cpu_metric));
      }
      v2_spec["metrics"] = std::move(*other);
    }
  }
  if (const std::string* t = text(ann::kBehavior); t != nullptr) {
    if (std::optional<json> behavior = ann::decode_behavior(*t); behavior && !behavior->is_null()) {
      v2_spec["behavior"] = std::move(*behavior);
    }
  }
  if (const std::string* t = text(ann::kCurrentMetrics); t != nullptr) {
    if (std::optional<json> list = ann::decode_metric_statuses(*t)) {
      if (v2_status.is_null()) {
        v2_status = json::object();
      }
      v2_status["currentMetrics"] = std::move(*list);
      if (v2_status["currentMetrics"].empty()) {
        v2_status.erase("currentMetrics");
      }
    }
  }
  if (!v2_spec.contains("metrics") || v2_spec["metrics"].empty()) {
    v2_spec["metrics"] = json::array(
        {{{"type", "Resource"},
          {"resource",
           {{"name", "cpu"},
            {"target",
             {{"type", "Utilization"}, {"averageUtilization", kDefaultCpuUtilization}}}}}}});
  }
  if (const std::string* t = text(ann::kConditions); t != nullptr) {
    if (std::optional<json> list = ann::decode_conditions(*t)) {
      if (v2_status.is_null()) {
        v2_status = json::object();
      }
      v2_status["conditions"] = std::move(*list);
      if (v2_status["conditions"].empty()) {
        v2_status.erase("conditions");
      }
    }
  }

  out["spec"] = spec != nullptr && !spec->is_object() && !spec->is_null() ? *spec : v2_spec;
  if (!v2_status.is_null()) {
    out["status"] = std::move(v2_status);
  } else if (status != nullptr) {
    out["status"] = *status;  // null or of the wrong type
  }
  if (out.contains("metadata")) {
    const bool dropped = drop_round_trip(annotations);
    set_annotations(out["metadata"], std::move(annotations), dropped);
  }
  object = std::move(out);
}

}  // namespace apiserver::registry::conversions
