// HorizontalPodAutoscalers: the defaults of the storage version (autoscaling/v2), and one printer
// for both served versions (v1 keeps the CPU target in its own fields; v2 lists metrics).
#include "registry/kinds/kinds.h"

#include <string>
#include <vector>

#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/table.h"

namespace apiserver::registry::kinds {

namespace {

namespace print {
using namespace cells;

// formatHPAMetrics over autoscaling/v2 metric specs and statuses.
std::string hpa_metrics(const json& specs, const json& statuses) {
  const auto& spec_list = arr(specs);
  if (spec_list.empty()) {
    return "<none>";
  }
  const auto& status_list = arr(statuses);
  const auto status_of = [&](size_t i, const char* key) -> const json& {
    return i < status_list.size() ? at(status_list[i], key) : null_json();
  };
  // Quantity pointers print "<nil>" when nil, as (*Quantity)(nil).String() does.
  const auto q = [](const json& j) { return j.is_null() ? std::string("<nil>") : quantity(j); };
  std::vector<std::string> list;
  for (size_t i = 0; i < spec_list.size(); ++i) {
    const json& spec = spec_list[i];
    const std::string type = str(at(spec, "type"));
    if (type == "External" || type == "Object") {
      const char* key = type == "External" ? "external" : "object";
      const json& target = at(spec, key, "target");
      const json& st = status_of(i, key);
      if (present(at(target, "averageValue"))) {
        std::string current = "<unknown>";
        if (st.is_object() && present(at(st, "current", "averageValue"))) {
          current = q(at(st, "current", "averageValue"));
        }
        list.push_back(current + "/" + q(at(target, "averageValue")) + " (avg)");
      } else {
        std::string current = "<unknown>";
        if (st.is_object()) {
          current = q(at(st, "current", "value"));
        }
        list.push_back(current + "/" + q(at(target, "value")));
      }
    } else if (type == "Pods") {
      std::string current = "<unknown>";
      if (status_of(i, "pods").is_object()) {
        current = q(at(status_of(i, "pods"), "current", "averageValue"));
      }
      list.push_back(current + "/" + q(at(spec, "pods", "target", "averageValue")));
    } else if (type == "Resource" || type == "ContainerResource") {
      const char* key = type == "Resource" ? "resource" : "containerResource";
      const json& src = at(spec, key);
      const json& target = at(src, "target");
      const json& st = status_of(i, key);
      const std::string name = str(at(src, "name"));
      if (present(at(target, "averageValue"))) {
        std::string current = "<unknown>";
        if (st.is_object()) {
          current = q(at(st, "current", "averageValue"));
        }
        list.push_back(name + ": " + current + "/" + q(at(target, "averageValue")));
      } else {
        std::string current = "<unknown>";
        if (st.is_object() && present(at(st, "current", "averageUtilization"))) {
          current = int_text(integer(at(st, "current", "averageUtilization"))) + "%";
        }
        std::string goal = "<auto>";
        if (present(at(target, "averageUtilization"))) {
          goal = int_text(integer(at(target, "averageUtilization"))) + "%";
        }
        list.push_back(name + ": " + current + "/" + goal);
      }
    } else {
      list.push_back("<unknown type>");
    }
  }
  constexpr size_t kMax = 2;
  if (list.size() > kMax) {
    const size_t extra = list.size() - kMax;
    list.resize(kMax);
    return join(list, ", ") + " + " + std::to_string(extra) + " more...";
  }
  return join(list, ", ");
}

json print_hpa(const json& obj, const Context& c, bool v1) {
  const json& spec = at(obj, "spec");
  const json& status = at(obj, "status");
  std::string targets;
  if (v1) {
    // autoscaling/v1 converts targetCPUUtilizationPercentage into one cpu utilization metric.
    json specs = json::array();
    json statuses = json::array();
    if (present(at(spec, "targetCPUUtilizationPercentage"))) {
      specs.push_back({{"type", "Resource"},
                       {"resource",
                        {{"name", "cpu"},
                         {"target",
                          {{"type", "Utilization"},
                           {"averageUtilization", at(spec, "targetCPUUtilizationPercentage")}}}}}});
      if (present(at(status, "currentCPUUtilizationPercentage"))) {
        statuses.push_back(
            {{"type", "Resource"},
             {"resource",
              {{"name", "cpu"},
               {"current",
                {{"averageUtilization", at(status, "currentCPUUtilizationPercentage")}}}}}});
      }
    }
    targets = hpa_metrics(specs, statuses);
  } else {
    targets = hpa_metrics(at(spec, "metrics"), at(status, "currentMetrics"));
  }
  const json& target_ref = at(spec, "scaleTargetRef");
  const json& min = at(spec, "minReplicas");
  return json::array({name_of(obj), str(at(target_ref, "kind")) + "/" + str(at(target_ref, "name")),
                      targets, present(min) ? int_text(integer(min)) : "<unset>",
                      integer(at(spec, "maxReplicas")), integer(at(status, "currentReplicas")),
                      age(obj, c)});
}

}  // namespace print

namespace defaulting {

// The scaling rules a behavior direction gets where it leaves fields out (upstream's v2
// defaults: scale up by 4 pods or 100% every 15 s, the larger; scale down by 100% every 15 s).
json rules_with_defaults(const json& given, bool up) {
  json rules = {{"selectPolicy", "Max"}};
  if (up) {
    rules["stabilizationWindowSeconds"] = 0;
    rules["policies"] = json::array({{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}},
                                     {{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}});
  } else {
    rules["policies"] = json::array({{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}}});
  }
  if (given.is_object()) {
    for (const char* key : {"selectPolicy", "stabilizationWindowSeconds", "policies"}) {
      if (given.contains(key) && !given[key].is_null()) {
        rules[key] = given[key];
      }
    }
  }
  return rules;
}

// HorizontalPodAutoscalers are stored at autoscaling/v2, where these defaults apply: one
// minimum replica, a CPU utilization target of 80% when no metric is given, and the behavior's
// missing rules when a behavior is given.
void default_hpa(json& object) {
  if (!object.is_object() || !object.contains("spec") || !object["spec"].is_object()) {
    return;
  }
  json& spec = object["spec"];
  if (!spec.contains("minReplicas") || spec["minReplicas"].is_null()) {
    spec["minReplicas"] = 1;
  }
  if (object.value("apiVersion", std::string()) != "autoscaling/v2") {
    return;
  }
  if (!spec.contains("metrics") || !spec["metrics"].is_array() || spec["metrics"].empty()) {
    spec["metrics"] = json::array(
        {{{"type", "Resource"},
          {"resource",
           {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
  }
  if (spec.contains("behavior") && spec["behavior"].is_object()) {
    json& behavior = spec["behavior"];
    behavior["scaleUp"] = rules_with_defaults(behavior.value("scaleUp", json()), true);
    behavior["scaleDown"] = rules_with_defaults(behavior.value("scaleDown", json()), false);
  }
}

constexpr char kHpaZeroFields[] = "desiredReplicas";

}  // namespace defaulting

}  // namespace

void add_autoscaling(Strategies& s) {
  s.push_back(
      {.group = "autoscaling",
       .kind = "HorizontalPodAutoscaler",
       .defaults = defaults_then_status<defaulting::default_hpa, defaulting::kHpaZeroFields>,
       .print = [](const json& o, const cells::Context& c) {
         return print::print_hpa(o, c, c.version == "v1");
       }});
}

}  // namespace apiserver::registry::kinds
