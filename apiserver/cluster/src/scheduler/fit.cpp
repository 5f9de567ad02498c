#include "scheduler/fit.h"

#include <algorithm>
#include <charconv>

#include "client/objects.h"
#include "common/quantity.h"

namespace cluster {
namespace {

using common::parse_quantity;

// What a container that names no cpu or memory request counts as when nodes are scored
// (schedutil.DefaultMilliCPURequest and DefaultMemoryRequest).
constexpr double kDefaultCpuRequest = 0.1;
constexpr double kDefaultMemoryRequest = 200.0 * 1024 * 1024;

// The containers' requests summed (a missing request reads the limit, as the API defaults it);
// `non_zero`: a missing one counts the scoring default instead of nothing.
Resources requests_of(const json* containers, bool non_zero) {
  Resources sum;
  if (containers == nullptr || !containers->is_array()) {
    return sum;
  }
  for (const json& c : *containers) {
    const json* requests = at(c, {"resources", "requests"});
    const json* limits = at(c, {"resources", "limits"});
    auto value = [&](const char* name, double fallback) {
      std::string text;
      if (requests != nullptr)
        text = string_at(*requests, {name});
      if (text.empty() && limits != nullptr)
        text = string_at(*limits, {name});
      if (text.empty() && non_zero)
        return fallback;
      return parse_quantity(text).value_or(0);
    };
    sum.cpu += value("cpu", kDefaultCpuRequest);
    sum.memory += value("memory", kDefaultMemoryRequest);
  }
  return sum;
}

Resources requests(const json& pod, bool non_zero) {
  Resources r = requests_of(at(pod, {"spec", "containers"}), non_zero);
  if (const json* inits = at(pod, {"spec", "initContainers"});
      inits != nullptr && inits->is_array()) {
    for (const json& c : *inits) {
      const json single = json::array({c});
      const Resources one = requests_of(&single, non_zero);
      r.cpu = std::max(r.cpu, one.cpu);
      r.memory = std::max(r.memory, one.memory);
    }
  }
  if (const json* overhead = at(pod, {"spec", "overhead"}); overhead != nullptr) {
    r.cpu += parse_quantity(string_at(*overhead, {"cpu"})).value_or(0);
    r.memory += parse_quantity(string_at(*overhead, {"memory"})).value_or(0);
  }
  r.pods = 1;
  return r;
}

std::optional<long long> integer(const std::string& text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return v;
}

bool requirement_matches(const json& requirement, const json& labels) {
  const std::string key = string_at(requirement, {"key"});
  const std::string op = string_at(requirement, {"operator"});
  const json* values = at(requirement, {"values"});
  const std::string value = string_at(labels, {key.c_str()});
  const bool has = labels.is_object() && labels.contains(key);
  auto in_values = [&] {
    return values != nullptr && values->is_array() &&
           std::any_of(values->begin(), values->end(), [&](const json& v) {
             return v.is_string() && v.get<std::string>() == value;
           });
  };
  if (op == "In")
    return has && in_values();
  if (op == "NotIn")
    return !has || !in_values();
  if (op == "Exists")
    return has;
  if (op == "DoesNotExist")
    return !has;
  if (op == "Gt" || op == "Lt") {
    if (!has || values == nullptr || !values->is_array() || values->size() != 1 ||
        !(*values)[0].is_string()) {
      return false;
    }
    auto mine = integer(value);
    auto theirs = integer((*values)[0].get<std::string>());
    if (!mine || !theirs)
      return false;
    return op == "Gt" ? *mine > *theirs : *mine < *theirs;
  }
  return false;
}

}  // namespace

Resources pod_requests(const json& pod) {
  return requests(pod, false);
}

Resources pod_requests_non_zero(const json& pod) {
  return requests(pod, true);
}

Resources node_allocatable(const json& node) {
  const json* values = at(node, {"status", "allocatable"});
  if (values == nullptr || !values->is_object()) {
    values = at(node, {"status", "capacity"});
  }
  Resources r;
  if (values != nullptr && values->is_object()) {
    r.cpu = parse_quantity(string_at(*values, {"cpu"})).value_or(0);
    r.memory = parse_quantity(string_at(*values, {"memory"})).value_or(0);
    r.pods = parse_quantity(string_at(*values, {"pods"})).value_or(0);
  }
  return r;
}

bool toleration_matches(const json& toleration, const json& taint) {
  const std::string effect = string_at(toleration, {"effect"});
  if (!effect.empty() && effect != string_at(taint, {"effect"}))
    return false;
  const std::string key = string_at(toleration, {"key"});
  if (!key.empty() && key != string_at(taint, {"key"}))
    return false;
  const std::string op = string_at(toleration, {"operator"});
  if (op == "Exists")
    return true;
  return (op.empty() || op == "Equal") && !key.empty() &&
         string_at(toleration, {"value"}) == string_at(taint, {"value"});
}

bool tolerates(const json& pod, const json& taint) {
  const json* tolerations = at(pod, {"spec", "tolerations"});
  return tolerations != nullptr && tolerations->is_array() &&
         std::any_of(tolerations->begin(), tolerations->end(),
                     [&](const json& t) { return toleration_matches(t, taint); });
}

bool node_affinity_matches(const json& pod, const json& node) {
  static const json no_labels = json::object();
  const json* labels_ptr = at(node, {"metadata", "labels"});
  const json& labels = labels_ptr != nullptr ? *labels_ptr : no_labels;
  if (const json* selector = at(pod, {"spec", "nodeSelector"}); selector && selector->is_object()) {
    for (const auto& [key, value] : selector->items()) {
      if (!value.is_string() || !labels.contains(key) ||
          string_at(labels, {key.c_str()}) != value.get<std::string>()) {
        return false;
      }
    }
  }
  const json* terms =
      at(pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
               "nodeSelectorTerms"});
  return terms == nullptr || node_selector_terms_match(*terms, node);
}

bool node_selector_terms_match(const json& terms, const json& node) {
  if (!terms.is_array()) {
    return false;
  }
  static const json no_labels = json::object();
  const json* labels = at(node, {"metadata", "labels"});
  const json fields = {{"metadata.name", name_of(node)}};
  for (const json& term : terms) {
    bool all = true;
    bool any_requirement = false;
    for (const char* part : {"matchExpressions", "matchFields"}) {
      const json* reqs = at(term, {part});
      if (reqs == nullptr || !reqs->is_array())
        continue;
      for (const json& req : *reqs) {
        any_requirement = true;
        const json& against =
            std::string(part) == "matchFields" ? fields : (labels != nullptr ? *labels : no_labels);
        all = all && requirement_matches(req, against);
      }
    }
    if (all && any_requirement) {
      return true;  // an empty term matches nothing
    }
  }
  return false;
}

std::vector<std::string> misfits(const json& pod, const json& node, const Resources& used) {
  // The filter plugins in the default profile's order; the first that fails a node is its only
  // verdict there, as the framework stops at the first failure.
  // NodeUnschedulable: a cordoned node, unless the pod tolerates the unschedulable taint.
  if (bool_at(node, {"spec", "unschedulable"}, false) &&
      !tolerates(pod, {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}})) {
    return {"node(s) were unschedulable"};
  }
  // TaintToleration: NoSchedule and NoExecute taints must be tolerated.
  if (const json* taints = at(node, {"spec", "taints"}); taints && taints->is_array()) {
    for (const json& taint : *taints) {
      const std::string effect = string_at(taint, {"effect"});
      if ((effect == "NoSchedule" || effect == "NoExecute") && !tolerates(pod, taint)) {
        return {"node(s) had untolerated taint {" + string_at(taint, {"key"}) + ": " +
                string_at(taint, {"value"}) + "}"};
      }
    }
  }
  // NodeAffinity: nodeSelector and required node affinity.
  if (!node_affinity_matches(pod, node)) {
    return {"node(s) didn't match Pod's node affinity/selector"};
  }
  // NodeResourcesFit: every shortage at once.
  std::vector<std::string> reasons;
  const Resources want = pod_requests(pod);
  const Resources have = node_allocatable(node);
  if (used.pods + 1 > have.pods) {
    reasons.push_back("Too many pods");
  }
  if (want.cpu > 0 && used.cpu + want.cpu > have.cpu + 1e-9) {
    reasons.push_back("Insufficient cpu");
  }
  if (want.memory > 0 && used.memory + want.memory > have.memory + 0.5) {
    reasons.push_back("Insufficient memory");
  }
  return reasons;
}

bool preemption_might_help(const std::string& reason) {
  // The reasons a filter gives as Unschedulable rather than UnschedulableAndUnresolvable:
  // removing pods could make room.
  return reason.starts_with("Insufficient") || reason == "Too many pods" ||
         reason == "node(s) didn't match pod anti-affinity rules" ||
         reason == "node(s) didn't satisfy existing pods anti-affinity rules" ||
         reason == "node(s) didn't match pod topology spread constraints";
}

}  // namespace cluster
