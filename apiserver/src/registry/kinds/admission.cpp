// admissionregistration.k8s.io: webhook configurations, admission policies and their bindings
// (printers; their admission effects belong to the admission stages).
#include "registry/kinds/kinds.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/table.h"

namespace apiserver::registry::kinds {

namespace {

namespace print {
using namespace cells;

json print_webhook_configuration(const json& obj, const Context& c) {
  return json::array(
      {name_of(obj), static_cast<int64_t>(arr(at(obj, "webhooks")).size()), age(obj, c)});
}

std::string param_kind(const json& spec) {
  const json& pk = at(spec, "paramKind");
  if (!pk.is_object()) {
    return "<unset>";
  }
  return str(at(pk, "apiVersion")) + "/" + str(at(pk, "kind"));
}

json print_admission_policy(const json& obj, const Context& c, const char* list_key) {
  const json& spec = at(obj, "spec");
  return json::array({name_of(obj), static_cast<int64_t>(arr(at(spec, list_key)).size()),
                      param_kind(spec), age(obj, c)});
}

// The generated String() of metav1.LabelSelector (gogo-protobuf style), which the policy
// binding printers use for a selector paramRef.
std::string label_selector_go_string(const json& sel) {
  std::string labels = "map[string]string{";
  if (const json& ml = at(sel, "matchLabels"); ml.is_object()) {
    for (auto it = ml.begin(); it != ml.end(); ++it) {
      labels += it.key() + ": " + str(it.value()) + ",";
    }
  }
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  for (const auto& e : arr(at(sel, "matchExpressions"))) {
    std::vector<std::string> values;
    for (const auto& v : arr(at(e, "values"))) {
      values.push_back(str(v));
    }
    exprs += "LabelSelectorRequirement{Key:" + str(at(e, "key")) +
             ",Operator:" + str(at(e, "operator")) + ",Values:[" + join(values, " ") + "],},";
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

json print_admission_policy_binding(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  std::string param = "<unset>";
  if (const json& ref = at(spec, "paramRef"); ref.is_object()) {
    const std::string name = str(at(ref, "name"));
    const std::string ns = str(at(ref, "namespace"));
    if (!name.empty()) {
      param = (ns.empty() ? std::string("*") : ns) + "/" + name;
    } else if (present(at(ref, "selector"))) {
      param = label_selector_go_string(at(ref, "selector"));
    }
  }
  return json::array({name_of(obj), str(at(spec, "policyName")), param, age(obj, c)});
}

}  // namespace print

// kube-sandbox has no CEL: a webhook that sets matchConditions is refused rather than stored
// with conditions that would never be evaluated.
void refuse_match_conditions(const json& obj, Errors& out) {
  const json& hooks = cells::at(obj, "webhooks");
  if (!hooks.is_array()) {
    return;
  }
  for (size_t i = 0; i < hooks.size(); ++i) {
    const json& conditions = cells::at(hooks[i], "matchConditions");
    if (conditions.is_array() && !conditions.empty()) {
      out.push_back(forbidden("webhooks[" + std::to_string(i) + "].matchConditions",
                              "kube-sandbox does not evaluate CEL matchConditions yet"));
    }
  }
}

}  // namespace

void add_admission(Strategies& s) {
  constexpr std::string_view kGroup = "admissionregistration.k8s.io";
  s.push_back({.group = kGroup,
               .kind = "MutatingWebhookConfiguration",
               .validate = refuse_match_conditions,
               .print = print::print_webhook_configuration});
  s.push_back({.group = kGroup,
               .kind = "ValidatingWebhookConfiguration",
               .validate = refuse_match_conditions,
               .print = print::print_webhook_configuration});
  s.push_back({.group = kGroup,
               .kind = "ValidatingAdmissionPolicy",
               .print = [](const json& o, const cells::Context& c) {
                 return print::print_admission_policy(o, c, "validations");
               }});
  s.push_back({.group = kGroup,
               .kind = "MutatingAdmissionPolicy",
               .print = [](const json& o, const cells::Context& c) {
                 return print::print_admission_policy(o, c, "mutations");
               }});
  s.push_back({.group = kGroup,
               .kind = "ValidatingAdmissionPolicyBinding",
               .print = print::print_admission_policy_binding});
  s.push_back({.group = kGroup,
               .kind = "MutatingAdmissionPolicyBinding",
               .print = print::print_admission_policy_binding});
}

}  // namespace apiserver::registry::kinds
