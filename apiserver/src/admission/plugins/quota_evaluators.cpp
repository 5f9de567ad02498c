#include "admission/plugins/quota_evaluators.h"

#include <algorithm>
#include <vector>

#include "registry/json_access.h"

namespace apiserver::admission::quota {
namespace {

using nlohmann::json;

// The names pods are measured in, besides hugepages and extended resources.
const std::set<std::string> kPodResources = {"count/pods",
                                             "cpu",
                                             "memory",
                                             "ephemeral-storage",
                                             "requests.cpu",
                                             "requests.memory",
                                             "requests.ephemeral-storage",
                                             "limits.cpu",
                                             "limits.memory",
                                             "limits.ephemeral-storage",
                                             "pods"};
// The names whose quota makes every container state its own request or limit.
const std::set<std::string> kPodValidation = {
    "requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "cpu", "memory"};
const std::set<std::string> kServiceResources = {"count/services", "services", "services.nodeports",
                                                 "services.loadbalancers"};
constexpr std::string_view kStorageClassInfix = ".storageclass.storage.k8s.io/";

// An extended resource (example.com/gpu): a name with a domain outside kubernetes.io, not
// requests.* itself.
bool extended_resource(std::string_view name) {
  if (name.find('/') == std::string_view::npos || name.starts_with("requests.")) {
    return false;
  }
  const std::string_view domain = name.substr(0, name.find('/'));
  return domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io");
}

// What one container (or a pod's sums) counts for, as podComputeUsageHelper.
Usage compute_usage(const std::map<std::string, Amount>& requests,
                    const std::map<std::string, Amount>& limits) {
  Usage out;
  out["pods"] = count_amount(1);
  for (const char* name : {"cpu", "memory", "ephemeral-storage"}) {
    if (auto it = requests.find(name); it != requests.end()) {
      out[name] = it->second;
      out[std::string("requests.") + name] = it->second;
    }
    if (auto it = limits.find(name); it != limits.end()) {
      out[std::string("limits.") + name] = it->second;
    }
  }
  for (const auto& [name, amount] : requests) {
    if (name.starts_with("hugepages-")) {
      out[name] = amount;
      out["requests." + name] = amount;
    }
    if (extended_resource(name)) {
      out["requests." + name] = amount;
    }
  }
  return out;
}

const json* containers(const json& pod, std::string_view which) {
  const json* list = registry::find_path(pod, {"spec", which});
  return list != nullptr && list->is_array() ? list : nullptr;
}

// Kubernetes' QoS class BestEffort: no container requests or limits cpu or memory above zero.
bool best_effort(const json& pod) {
  for (std::string_view which : {"containers", "initContainers"}) {
    const json* list = containers(pod, which);
    if (list == nullptr) {
      continue;
    }
    for (const json& c : *list) {
      for (const char* kind : {"requests", "limits"}) {
        const json* values = registry::find_path(c, {"resources", kind});
        for (const char* name : {"cpu", "memory"}) {
          auto amount = amount_at(values, name);
          if (amount && amount->value > 0) {
            return false;
          }
        }
      }
    }
  }
  return true;
}

// A pod affinity term that reaches other namespaces (namespaces or a namespaceSelector).
bool cross_namespace(const json& pod) {
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const json* affinity = registry::find_path(pod, {"spec", "affinity", kind});
    if (affinity == nullptr || !affinity->is_object()) {
      continue;
    }
    std::vector<const json*> terms;
    const json* required =
        registry::find_path(*affinity, {"requiredDuringSchedulingIgnoredDuringExecution"});
    if (required != nullptr && required->is_array()) {
      for (const json& t : *required) {
        terms.push_back(&t);
      }
    }
    const json* preferred =
        registry::find_path(*affinity, {"preferredDuringSchedulingIgnoredDuringExecution"});
    if (preferred != nullptr && preferred->is_array()) {
      for (const json& t : *preferred) {
        if (const json* term = registry::find_path(t, {"podAffinityTerm"})) {
          terms.push_back(term);
        }
      }
    }
    for (const json* term : terms) {
      const json* namespaces = registry::find_path(*term, {"namespaces"});
      if ((namespaces != nullptr && namespaces->is_array() && !namespaces->empty()) ||
          registry::find_path(*term, {"namespaceSelector"}) != nullptr) {
        return true;
      }
    }
  }
  return false;
}

struct Selector {
  std::string scope;
  std::string op;
  std::vector<std::string> values;
};

// spec.scopes (each as Exists) and spec.scopeSelector's expressions.
std::vector<Selector> selectors_of(const json& quota) {
  std::vector<Selector> out;
  if (const json* scopes = registry::find_path(quota, {"spec", "scopes"});
      scopes != nullptr && scopes->is_array()) {
    for (const json& s : *scopes) {
      if (s.is_string()) {
        out.push_back({s.get<std::string>(), "Exists", {}});
      }
    }
  }
  const json* expressions =
      registry::find_path(quota, {"spec", "scopeSelector", "matchExpressions"});
  if (expressions != nullptr && expressions->is_array()) {
    for (const json& e : *expressions) {
      Selector s{registry::string_at(e, {"scopeName"}), registry::string_at(e, {"operator"}), {}};
      if (const json* values = registry::find_path(e, {"values"});
          values != nullptr && values->is_array()) {
        for (const json& v : *values) {
          if (v.is_string()) {
            s.values.push_back(v.get<std::string>());
          }
        }
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

bool pod_matches_scope(const Selector& s, const json& pod) {
  if (s.scope == "Terminating" || s.scope == "NotTerminating") {
    auto deadline = registry::integer_at(pod, {"spec", "activeDeadlineSeconds"});
    const bool terminating = deadline.has_value() && *deadline >= 0;
    return s.scope == "Terminating" ? terminating : !terminating;
  }
  if (s.scope == "BestEffort") {
    return best_effort(pod);
  }
  if (s.scope == "NotBestEffort") {
    return !best_effort(pod);
  }
  if (s.scope == "CrossNamespacePodAffinity") {
    return cross_namespace(pod);
  }
  if (s.scope == "PriorityClass") {
    // A label selector on a label the pod has only when it names a class.
    const std::string name = registry::string_at(pod, {"spec", "priorityClassName"});
    const bool listed = std::find(s.values.begin(), s.values.end(), name) != s.values.end();
    if (s.op == "In") {
      return !name.empty() && listed;
    }
    if (s.op == "NotIn") {
      return name.empty() || !listed;
    }
    if (s.op == "DoesNotExist") {
      return name.empty();
    }
    return s.op == "Exists" && !name.empty();
  }
  return false;
}

// A claim's storage class: the beta annotation first, then spec.storageClassName.
std::string claim_class(const json& claim) {
  const std::string annotated = registry::string_at(
      claim, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
  return annotated.empty() ? registry::string_at(claim, {"spec", "storageClassName"}) : annotated;
}

}  // namespace

std::set<std::string> names_of(const json* list) {
  std::set<std::string> out;
  if (list != nullptr && list->is_object()) {
    for (const auto& [name, value] : list->items()) {
      (void)value;
      out.insert(name);
    }
  }
  return out;
}

Evaluator::Evaluator(std::string group, std::string resource) {
  count_name_ = "count/" + resource + (group.empty() ? "" : "." + group);
  if (group.empty() && resource == "pods") {
    kind_ = Kind::Pods;
  } else if (group.empty() && resource == "services") {
    kind_ = Kind::Services;
  } else if (group.empty() && resource == "persistentvolumeclaims") {
    kind_ = Kind::Claims;
  } else {
    kind_ = Kind::ObjectCount;
    if (group.empty() && (resource == "configmaps" || resource == "secrets" ||
                          resource == "replicationcontrollers" || resource == "resourcequotas")) {
      legacy_name_ = resource;
    }
  }
}

bool Evaluator::handles(bool create, const std::string& subresource) const {
  if (!subresource.empty()) {
    return false;
  }
  return create || kind_ == Kind::Services || kind_ == Kind::Claims;
}

std::set<std::string> Evaluator::matching_resources(const std::set<std::string>& names) const {
  std::set<std::string> out;
  for (const std::string& name : names) {
    switch (kind_) {
      case Kind::Pods:
        if (kPodResources.contains(name) || name.starts_with("hugepages-") ||
            name.starts_with("requests.hugepages-") ||
            (name.starts_with("requests.") && extended_resource(name.substr(9)))) {
          out.insert(name);
        }
        break;
      case Kind::Services:
        if (kServiceResources.contains(name)) {
          out.insert(name);
        }
        break;
      case Kind::Claims:
        if (name == "persistentvolumeclaims" || name == "count/persistentvolumeclaims" ||
            name == "requests.storage" ||
            (name.find(kStorageClassInfix) != std::string::npos &&
             (name.ends_with("/persistentvolumeclaims") || name.ends_with("/requests.storage")))) {
          out.insert(name);
        }
        break;
      case Kind::ObjectCount:
        if (name == count_name_ || (!legacy_name_.empty() && name == legacy_name_)) {
          out.insert(name);
        }
        break;
    }
  }
  return out;
}

Usage Evaluator::usage(const json& object) const {
  Usage out;
  switch (kind_) {
    case Kind::Pods: {
      out["count/pods"] = count_amount(1);
      // Pods at the end of their life count as objects only.
      const std::string phase = registry::string_at(object, {"status", "phase"});
      if (phase == "Succeeded" || phase == "Failed") {
        break;
      }
      for (auto& [name, amount] :
           compute_usage(pod_resources(object, "requests"), pod_resources(object, "limits"))) {
        out[name] = amount;
      }
      break;
    }
    case Kind::Services: {
      out["count/services"] = count_amount(1);
      out["services"] = count_amount(1);
      const std::string type = registry::string_at(object, {"spec", "type"});
      const json* ports = registry::find_path(object, {"spec", "ports"});
      const size_t port_count = ports != nullptr && ports->is_array() ? ports->size() : 0;
      if (type == "NodePort") {
        out["services.nodeports"] = count_amount(static_cast<double>(port_count));
      } else if (type == "LoadBalancer") {
        const json* allocate =
            registry::find_path(object, {"spec", "allocateLoadBalancerNodePorts"});
        size_t node_ports = port_count;
        if (allocate != nullptr && allocate->is_boolean() && !allocate->get<bool>() &&
            port_count > 0) {
          node_ports = 0;
          for (const json& p : *ports) {
            auto n = registry::integer_at(p, {"nodePort"});
            node_ports += n.has_value() && *n != 0 ? 1 : 0;
          }
        }
        out["services.nodeports"] = count_amount(static_cast<double>(node_ports));
        out["services.loadbalancers"] = count_amount(1);
      }
      break;
    }
    case Kind::Claims: {
      out["persistentvolumeclaims"] = count_amount(1);
      out["count/persistentvolumeclaims"] = count_amount(1);
      const std::string cls = claim_class(object);
      const std::string prefix = cls + std::string(kStorageClassInfix);
      if (!cls.empty()) {
        out[prefix + "persistentvolumeclaims"] = count_amount(1);
      }
      // The larger of what the claim asks and what was allocated to it (a resize in progress).
      auto requested =
          amount_at(registry::find_path(object, {"spec", "resources", "requests"}), "storage");
      auto allocated =
          amount_at(registry::find_path(object, {"status", "allocatedResources"}), "storage");
      if (allocated && (!requested || allocated->value > requested->value)) {
        requested = allocated;
      }
      if (requested) {
        out["requests.storage"] = *requested;
        if (!cls.empty()) {
          out[prefix + "requests.storage"] = *requested;
        }
      }
      break;
    }
    case Kind::ObjectCount:
      out[count_name_] = count_amount(1);
      if (!legacy_name_.empty()) {
        out[legacy_name_] = count_amount(1);
      }
      break;
  }
  return out;
}

bool Evaluator::matches(const json& quota, const json& object) const {
  if (matching_resources(names_of(registry::find_path(quota, {"status", "hard"}))).empty()) {
    return false;
  }
  for (const Selector& s : selectors_of(quota)) {
    if (kind_ != Kind::Pods || !pod_matches_scope(s, object)) {
      return false;
    }
  }
  return true;
}

std::string Evaluator::constraints(const std::set<std::string>& required,
                                   const json& object) const {
  if (kind_ != Kind::Pods) {
    return {};
  }
  std::set<std::string> checked;
  for (const auto& name : required) {
    if (kPodValidation.contains(name)) {
      checked.insert(name);
    }
  }
  std::map<std::string, std::set<std::string>> missing;  // resource -> containers
  for (std::string_view which : {"containers", "initContainers"}) {
    const json* list = containers(object, which);
    if (list == nullptr) {
      continue;
    }
    for (const json& c : *list) {
      const Usage own = compute_usage(amounts(registry::find_path(c, {"resources", "requests"})),
                                      amounts(registry::find_path(c, {"resources", "limits"})));
      for (const auto& name : checked) {
        if (!own.contains(name)) {
          missing[name].insert(registry::string_at(c, {"name"}));
        }
      }
    }
  }
  if (missing.empty()) {
    return {};
  }
  std::string out = "must specify ";
  bool first = true;
  for (const auto& [resource, names] : missing) {
    out += first ? "" : "; ";
    first = false;
    out += resource + " for: ";
    bool first_name = true;
    for (const auto& n : names) {
      out += (first_name ? "" : ",") + n;
      first_name = false;
    }
  }
  return out;
}

}  // namespace apiserver::admission::quota
