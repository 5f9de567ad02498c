// Cluster-level kinds: Namespaces (the kubernetes finalizer, the name label), Nodes (defaults and
// printer), ResourceQuotas, ComponentStatuses, Leases, PriorityClasses and RuntimeClasses.
#include "registry/kinds/kinds.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/json_access.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace print {
using namespace cells;

json print_namespace(const json& obj, const Context& c) {
  return json::array({name_of(obj), str(at(obj, "status", "phase")), age(obj, c)});
}

json print_node(const json& obj, const Context& c) {
  // The last Ready condition wins (upstream builds a map by type).
  const json* ready = nullptr;
  for (const auto& cond : arr(at(obj, "status", "conditions"))) {
    if (str(at(cond, "type")) == "Ready") {
      ready = &cond;
    }
  }
  std::vector<std::string> status;
  if (ready != nullptr) {
    status.push_back(str(at(*ready, "status")) == "True" ? "Ready" : "NotReady");
  } else {
    status.push_back("Unknown");
  }
  if (boolean(at(obj, "spec", "unschedulable"))) {
    status.push_back("SchedulingDisabled");
  }
  std::set<std::string> roles;
  const json& labels = at(obj, "metadata", "labels");
  if (labels.is_object()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      const std::string& k = it.key();
      if (k.size() > kPrefix.size() && k.compare(0, kPrefix.size(), kPrefix) == 0) {
        roles.insert(k.substr(kPrefix.size()));
      } else if (k == "kubernetes.io/role" && !str(it.value()).empty()) {
        roles.insert(str(it.value()));
      }
    }
  }
  std::string role_text = join(std::vector<std::string>(roles.begin(), roles.end()), ",");
  const auto address = [&](std::string_view type) -> std::string {
    for (const auto& a : arr(at(obj, "status", "addresses"))) {
      if (str(at(a, "type")) == type) {
        return str(at(a, "address"));
      }
    }
    return "<none>";
  };
  const json& info = at(obj, "status", "nodeInfo");
  const auto known = [](std::string s) { return s.empty() ? std::string("<unknown>") : s; };
  return json::array({name_of(obj), join(status, ","), role_text.empty() ? "<none>" : role_text,
                      age(obj, c), str(at(info, "kubeletVersion")), address("InternalIP"),
                      address("ExternalIP"), known(str(at(info, "osImage"))),
                      known(str(at(info, "kernelVersion"))),
                      known(str(at(info, "containerRuntimeVersion")))});
}

json print_component_status(const json& obj, const Context&) {
  std::string status = "Unknown";
  std::string message;
  std::string error;
  const json& cond = condition(at(obj, "conditions"), "Healthy");
  if (cond.is_object()) {
    status = str(at(cond, "status")) == "True" ? "Healthy" : "Unhealthy";
    message = str(at(cond, "message"));
    error = str(at(cond, "error"));
  }
  return json::array({name_of(obj), status, message, error});
}

json print_resource_quota(const json& obj, const Context& c) {
  const json& hard = at(obj, "status", "hard");
  const json& used = at(obj, "status", "used");
  std::string requests;
  std::string limits;
  if (hard.is_object()) {
    for (auto it = hard.begin(); it != hard.end(); ++it) {  // sorted by resource name
      const std::string& resource = it.key();
      const auto dot = resource.find('.');
      const bool is_limit = dot != std::string::npos && resource.substr(0, dot) == "limits";
      (is_limit ? limits : requests) +=
          resource + ": " + quantity(at(used, resource)) + "/" + quantity(it.value()) + ", ";
    }
  }
  const auto trim = [](std::string s) {
    if (s.size() >= 2 && s.compare(s.size() - 2, 2, ", ") == 0) {
      s.resize(s.size() - 2);
    }
    return s;
  };
  return json::array({name_of(obj), trim(requests), trim(limits), age(obj, c)});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_namespace(json& ns, const DefaultingContext& ctx) {
  json* meta = object_at(ns, "metadata");
  std::string name = meta ? string_at(*meta, "name") : std::string();
  if (!name.empty()) {
    if (json* labels = object_at(*meta, "labels")) {
      (*labels)["kubernetes.io/metadata.name"] = name;
    }
  }
  if (ctx.phase == DefaultingPhase::Create) {
    ns["status"] = {{"phase", "Active"}};
    if (json* spec = object_at(ns, "spec")) {
      if (unset(*spec, "finalizers") || !(*spec)["finalizers"].is_array()) {
        (*spec)["finalizers"] = json::array();
      }
      bool has = false;
      for (const auto& f : (*spec)["finalizers"]) {
        has = has || f == "kubernetes";
      }
      if (!has) {
        (*spec)["finalizers"].push_back("kubernetes");
      }
    }
  } else if (json* status = object_at(ns, "status")) {
    default_string(*status, "phase", "Active");
  }
}

void default_node(json& node, const DefaultingContext&) {
  if (json* status = existing_object(node, "status")) {
    if (unset(*status, "allocatable") && existing_object(*status, "capacity") != nullptr) {
      (*status)["allocatable"] = (*status)["capacity"];
    }
  }
}

}  // namespace defaulting

// A namespace's life: spec.finalizers change only through /finalize, they hold its deletion as
// metadata.finalizers do, and a namespace being deleted is Terminating.
namespace lifecycle {

void keep_spec(json& updated, const json& old) {
  const json* spec = find_path(old, {"spec"});
  updated["spec"] = spec != nullptr ? *spec : json::object();
}

bool spec_finalizers_hold(const json& ns) {
  const json* list = find_path(ns, {"spec", "finalizers"});
  return list != nullptr && list->is_array() && !list->empty();
}

void mark_terminating(json& ns) {
  json& status = ns["status"];
  if (!status.is_object()) {
    status = json::object();
  }
  status["phase"] = "Terminating";
}

}  // namespace lifecycle

// PriorityClasses: the `system-` names belong to the two classes the API server creates at start,
// with their values; other classes stay at or below one billion. Value and preemption policy are
// set once.
namespace priority_classes {

using namespace rules;

constexpr int64_t kHighestUserDefinablePriority = 1000000000;

// Why a class named `name` with `value` and `global_default` is not one of the system classes;
// empty when it is.
std::string not_system_class(const std::string& name, int64_t value, bool global_default) {
  for (const auto& [system, system_value] : {std::pair{"system-node-critical", 2000001000},
                                             std::pair{"system-cluster-critical", 2000000000}}) {
    if (name == system) {
      if (value != system_value) {
        return "value of " + name + " PriorityClass must be " + std::to_string(system_value);
      }
      if (global_default) {
        return "globalDefault of " + name + " PriorityClass must be false";
      }
      return "";
    }
  }
  return name + " is not a known system priority class";
}

void validate_create(const json& pc, Errors& out) {
  const std::string name = str(get(pc, "metadata"), "name");
  const int64_t value = integer_at(pc, {"value"}).value_or(0);
  if (name.rfind("system-", 0) == 0) {
    const json* flag = find_path(pc, {"globalDefault"});
    std::string why =
        not_system_class(name, value, flag != nullptr && flag->is_boolean() && flag->get<bool>());
    if (!why.empty()) {
      out.push_back(forbidden("metadata.name",
                              "priority class names with 'system-' prefix are reserved for system "
                              "use only. error: " +
                                  why));
    }
  } else if (value > kHighestUserDefinablePriority) {
    out.push_back(forbidden("value", "maximum allowed value of a user defined priority is " +
                                         std::to_string(kHighestUserDefinablePriority)));
  }
}

void validate_update(const json& pc, const json& old, Errors& out) {
  if (integer_at(pc, {"value"}) != integer_at(old, {"value"})) {
    out.push_back(forbidden("Value", "may not be changed in an update."));
  }
  const std::string policy = str(pc, "preemptionPolicy");
  if (policy != str(old, "preemptionPolicy")) {
    out.push_back(invalid_rendered("preemptionPolicy", go_quote(policy), "field is immutable"));
  }
}

}  // namespace priority_classes

}  // namespace

void add_cluster(Strategies& s) {
  s.push_back({.group = "",
               .kind = "Namespace",
               .defaults = defaulting::default_namespace,
               .print = print::print_namespace,
               .prepare_for_update = lifecycle::keep_spec,
               .holds_deletion = lifecycle::spec_finalizers_hold,
               .mark_deleting = lifecycle::mark_terminating,
               .gc_policy = GcPolicy::AsRequested});
  s.push_back({.group = "",
               .kind = "Node",
               .defaults = defaulting::default_node,
               .print = print::print_node,
               .keeps_status_on_create = true});
  s.push_back({.group = "", .kind = "ResourceQuota", .print = print::print_resource_quota});
  s.push_back({.group = "", .kind = "ComponentStatus", .print = print::print_component_status});
  s.push_back(
      {.group = "coordination.k8s.io",
       .kind = "Lease",
       .print = [](const json& obj, const cells::Context& c) {
         using namespace cells;
         return json::array({name_of(obj), str(at(obj, "spec", "holderIdentity")), age(obj, c)});
       }});
  s.push_back({.group = "coordination.k8s.io",
               .kind = "LeaseCandidate",
               .print = [](const json& obj, const cells::Context& c) {
                 using namespace cells;
                 const json& spec = at(obj, "spec");
                 return json::array({name_of(obj), str(at(spec, "leaseName")),
                                     str(at(spec, "binaryVersion")),
                                     str(at(spec, "emulationVersion")), age(obj, c)});
               }});
  s.push_back({.group = "scheduling.k8s.io",
               .kind = "PriorityClass",
               .defaults =
                   [](json& o, const DefaultingContext&) {
                     fields::default_value(o, "preemptionPolicy", "PreemptLowerPriority");
                   },
               .validate_create = priority_classes::validate_create,
               .validate_update = priority_classes::validate_update,
               .print =
                   [](const json& obj, const cells::Context& c) {
                     using namespace cells;
                     return json::array({name_of(obj), integer(at(obj, "value")),
                                         boolean(at(obj, "globalDefault")), age(obj, c),
                                         str(at(obj, "preemptionPolicy"))});
                   }});
  s.push_back({.group = "node.k8s.io",
               .kind = "RuntimeClass",
               .print = [](const json& obj, const cells::Context& c) {
                 using namespace cells;
                 return json::array({name_of(obj), str(at(obj, "handler")), age(obj, c)});
               }});
}

}  // namespace apiserver::registry::kinds
