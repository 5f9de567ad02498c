// RuntimeClass (plugin/pkg/admission/runtimeclass): a pod created with spec.runtimeClassName
// needs that RuntimeClass to exist (403 "pod rejected: RuntimeClass "x" not found"). The class's
// overhead.podFixed becomes the pod's spec.overhead (a pod that sets another overhead is
// refused), its scheduling.nodeSelector is merged into the pod's (a key the pod sets to another
// value is a conflict) and its scheduling.tolerations are merged with the pod's. The validating
// pass refuses a pod whose overhead is not its class's, or that sets one without a class that
// defines it. Only creates are checked, as upstream.
#include <algorithm>
#include <cmath>

#include "admission/plugins.h"
#include "admission/plugins/toleration_merge.h"
#include "common/go_quote.h"
#include "registry/go_values.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;

bool is_pod_create(const Attributes& a) {
  const registry::Resource& r = *a.resource;
  return a.operation == Operation::Create && r.group.empty() && r.resource == "pods" &&
         a.subresource.empty() && a.object != nullptr;
}

// Whether a ResourceList (JSON object of quantities) has no entries; null and absent count.
bool empty_list(const json* list) {
  return list == nullptr || !list->is_object() || list->empty();
}

// apiequality.Semantic.DeepEqual of two ResourceLists: the same names, each quantity equal in
// value ("1Gi" equals "1024Mi"); an empty list equals an absent one.
bool same_resources(const json* a, const json* b) {
  if (empty_list(a) || empty_list(b)) {
    return empty_list(a) && empty_list(b);
  }
  if (a->size() != b->size()) {
    return false;
  }
  for (const auto& [name, quantity] : a->items()) {
    auto other = b->find(name);
    if (other == b->end()) {
      return false;
    }
    auto x = registry::go_quantity_value(quantity);
    auto y = registry::go_quantity_value(*other);
    // Go compares the exact decimals; the values here are long doubles, in which "250m" and
    // "0.25" may differ in the last bits: equal within a relative 1e-15.
    if (!x || !y || fabsl(*x - *y) > 1e-15L * std::max(fabsl(*x), fabsl(*y))) {
      return false;
    }
  }
  return true;
}

class RuntimeClass final : public Plugin {
 public:
  explicit RuntimeClass(const Services& services) : services_(services) {}
  std::string_view name() const override { return "RuntimeClass"; }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  Decision admit(Attributes& a, std::string& note) override {
    const json* found = is_pod_create(a) ? registry::find_path(*a.object, {"spec"}) : nullptr;
    if (found == nullptr || !found->is_object()) {
      return std::nullopt;
    }
    json& spec = (*a.object)["spec"];
    std::optional<json> rc;
    if (auto refused = lookup(a, spec, rc); refused || !rc) {
      return refused;
    }
    std::vector<std::string> applied;
    if (auto refused = set_overhead(a, spec, *rc, applied)) {
      return refused;
    }
    if (auto refused = set_scheduling(a, spec, *rc, applied)) {
      return refused;
    }
    std::string list;
    for (const auto& what : applied) {
      list += (list.empty() ? "" : ", ") + what;
    }
    note = "RuntimeClass " + common::go_quote(registry::string_at(*rc, {"metadata", "name"})) +
           " (handler " + common::go_quote(registry::string_at(*rc, {"handler"})) + ")" +
           (list.empty() ? " sets no overhead or scheduling" : " applied its " + list);
    return std::nullopt;
  }

  Decision validate(Attributes& a, std::string&) override {
    if (!is_pod_create(a)) {
      return std::nullopt;
    }
    const json& spec = registry::value_at(*a.object, {"spec"});
    std::optional<json> rc;
    if (auto refused = lookup(a, spec, rc)) {
      return refused;
    }
    const json* overhead = registry::find_path(spec, {"overhead"});
    if (empty_list(overhead)) {
      return std::nullopt;
    }
    const json* defined = rc ? registry::find_path(*rc, {"overhead"}) : nullptr;
    if (defined == nullptr || defined->is_null()) {
      return forbidden(
          a, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
    }
    if (!same_resources(registry::find_path(*defined, {"podFixed"}), overhead)) {
      return forbidden(a,
                       "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined "
                       "Overhead");
    }
    return std::nullopt;
  }

 private:
  // The pod's RuntimeClass into `rc` (left empty when the pod names none); the refusal when the
  // named one does not exist.
  Decision lookup(const Attributes& a, const json& spec, std::optional<json>& rc) const {
    const json* named = registry::find_path(spec, {"runtimeClassName"});
    if (named == nullptr || named->is_null()) {
      return std::nullopt;
    }
    const std::string class_name = named->is_string() ? named->get<std::string>() : "";
    rc = services_.get("node.k8s.io", "runtimeclasses", "", class_name);
    if (!rc) {
      return forbidden(a,
                       "pod rejected: RuntimeClass " + common::go_quote(class_name) + " not found");
    }
    return std::nullopt;
  }

  static Decision set_overhead(const Attributes& a, json& spec, const json& rc,
                               std::vector<std::string>& applied) {
    const json* defined = registry::find_path(rc, {"overhead"});
    if (defined == nullptr || defined->is_null()) {
      return std::nullopt;
    }
    const json* fixed = registry::find_path(*defined, {"podFixed"});
    const json* given = registry::find_path(spec, {"overhead"});
    if (!empty_list(given) && !same_resources(fixed, given)) {
      return forbidden(a,
                       "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined "
                       "Overhead");
    }
    if (empty_list(fixed)) {
      spec.erase("overhead");
    } else {
      spec["overhead"] = *fixed;
      applied.emplace_back("overhead");
    }
    return std::nullopt;
  }

  static Decision set_scheduling(const Attributes& a, json& spec, const json& rc,
                                 std::vector<std::string>& applied) {
    const json* scheduling = registry::find_path(rc, {"scheduling"});
    if (scheduling == nullptr || scheduling->is_null()) {
      return std::nullopt;
    }
    const json* selector = registry::find_path(*scheduling, {"nodeSelector"});
    if (selector != nullptr && selector->is_object() && !selector->empty()) {
      json merged = spec.contains("nodeSelector") && spec["nodeSelector"].is_object()
                        ? spec["nodeSelector"]
                        : json::object();
      for (const auto& [key, value] : selector->items()) {
        auto current = merged.find(key);
        if (current != merged.end() && *current != value) {
          const std::string ours = value.is_string() ? value.get<std::string>() : "";
          const std::string theirs = current->is_string() ? current->get<std::string>() : "";
          return forbidden(a, "conflict: runtimeClass.scheduling.nodeSelector[" + key + "] = " +
                                  ours + "; pod.spec.nodeSelector[" + key + "] = " + theirs);
        }
        merged[key] = value;
      }
      spec["nodeSelector"] = std::move(merged);
      applied.emplace_back("nodeSelector");
    }
    const json& theirs = registry::value_at(*scheduling, {"tolerations"});
    json merged = merge_tolerations(registry::value_at(spec, {"tolerations"}), theirs);
    if (merged.empty()) {
      spec.erase("tolerations");
    } else {
      spec["tolerations"] = std::move(merged);
    }
    if (theirs.is_array() && !theirs.empty()) {
      applied.emplace_back("tolerations");
    }
    return std::nullopt;
  }

  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_runtime_class(const Services& services) {
  return std::make_unique<RuntimeClass>(services);
}

}  // namespace apiserver::admission
