// Priority (plugin/pkg/admission/priority): a pod created gets spec.priority (and
// preemptionPolicy) from its PriorityClass, or from the class marked globalDefault when it names
// none (then the class's name too; priority 0 when there is no default class); a pod that names a
// class that does not exist, or sets a priority or policy other than its class's, is refused.
// PriorityClasses: at most one globalDefault (their names and values are validation's).
#include "admission/plugins.h"
#include "registry/defaulting_fields.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

struct Class {
  std::string name;
  int64_t value = 0;
  std::string preemption_policy;  // "" when the class says none
};

std::optional<Class> system_class(const std::string& name) {
  if (name == "system-node-critical") {
    return Class{name, 2000001000, "PreemptLowerPriority"};
  }
  if (name == "system-cluster-critical") {
    return Class{name, 2000000000, "PreemptLowerPriority"};
  }
  return std::nullopt;
}

Class from_object(const json& pc) {
  return Class{registry::string_at(pc, {"metadata", "name"}),
               registry::integer_at(pc, {"value"}).value_or(0),
               registry::string_at(pc, {"preemptionPolicy"})};
}

bool global_default(const json& pc) {
  const json* flag = registry::find_path(pc, {"globalDefault"});
  return flag != nullptr && flag->is_boolean() && flag->get<bool>();
}

class Priority final : public Plugin {
 public:
  explicit Priority(const Services& services) : services_(services) {}
  std::string_view name() const override { return "Priority"; }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (!r.group.empty() || r.resource != "pods" || !a.subresource.empty() || a.object == nullptr ||
        !(*a.object)["spec"].is_object()) {
      return std::nullopt;
    }
    json& spec = (*a.object)["spec"];
    if (a.operation == Operation::Update) {
      // What the plugin set on create stays (validation refuses any other change).
      if (a.old_object != nullptr && registry::fields::unset(spec, "priority")) {
        const json* old = registry::find_path(*a.old_object, {"spec", "priority"});
        if (old != nullptr && !old->is_null()) {
          spec["priority"] = *old;
        }
      }
      return std::nullopt;
    }
    if (a.operation != Operation::Create) {
      return std::nullopt;
    }
    const std::string class_name = registry::string_at(spec, {"priorityClassName"});
    Class resolved;
    if (class_name.empty()) {
      if (auto chosen = default_class()) {
        resolved = *chosen;
        spec["priorityClassName"] = resolved.name;
      }
    } else if (auto system = system_class(class_name)) {
      resolved = *system;
    } else if (auto pc = services_.get("scheduling.k8s.io", "priorityclasses", "", class_name)) {
      resolved = from_object(*pc);
    } else {
      note = "no PriorityClass " + class_name;
      return forbidden(a, "no PriorityClass with name " + class_name + " was found");
    }
    auto given = registry::integer_at(spec, {"priority"});
    if (given && *given != resolved.value) {
      return forbidden(a, "the integer value of priority (" + std::to_string(*given) +
                              ") must not be provided in pod spec; priority admission controller "
                              "computed " +
                              std::to_string(resolved.value) +
                              " from the given PriorityClass name");
    }
    spec["priority"] = resolved.value;
    const std::string policy =
        resolved.preemption_policy.empty() ? "PreemptLowerPriority" : resolved.preemption_policy;
    const std::string given_policy = registry::string_at(spec, {"preemptionPolicy"});
    if (!given_policy.empty() && given_policy != policy && !resolved.name.empty()) {
      return forbidden(a, "the string value of PreemptionPolicy (" + given_policy +
                              ") must not be provided in pod spec; priority admission controller "
                              "computed " +
                              policy + " from the given PriorityClass name");
    }
    registry::fields::default_value(spec, "preemptionPolicy", policy);
    note = "priority " + std::to_string(resolved.value) +
           (resolved.name.empty() ? " (no default PriorityClass)"
                                  : " from PriorityClass " + resolved.name);
    return std::nullopt;
  }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (r.group != "scheduling.k8s.io" || r.resource != "priorityclasses" ||
        !a.subresource.empty() || a.object == nullptr ||
        (a.operation != Operation::Create && a.operation != Operation::Update)) {
      return std::nullopt;
    }
    const json& pc = *a.object;
    const std::string pc_name = registry::string_at(pc, {"metadata", "name"});
    if (global_default(pc)) {
      auto current = default_class();
      if (current && (a.operation == Operation::Create || current->name != pc_name)) {
        note = "PriorityClass " + current->name + " is the default already";
        return forbidden(a, "PriorityClass " + current->name +
                                " is already marked as default. Only one default can exist");
      }
    }
    return std::nullopt;
  }

 private:
  // The globalDefault class (the lowest value when a race made several).
  std::optional<Class> default_class() const {
    std::optional<Class> chosen;
    for (const auto& pc : services_.list("scheduling.k8s.io", "priorityclasses", "")) {
      if (global_default(pc)) {
        Class c = from_object(pc);
        if (!chosen || c.value < chosen->value) {
          chosen = c;
        }
      }
    }
    return chosen;
  }

  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_priority(const Services& services) {
  return std::make_unique<Priority>(services);
}

}  // namespace apiserver::admission
