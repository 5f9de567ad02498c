// admissionregistration.k8s.io: webhook configurations, admission policies and their bindings
// (printers; the webhook configurations' defaults and validation; their admission effects
// belong to the admission plugins).
#include "registry/kinds/kinds.h"

#include <algorithm>
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

// admissionregistration/v1's defaults for each webhook (SetDefaults_ValidatingWebhook and
// _MutatingWebhook, _Rule, _ServiceReference).
void default_webhooks(json& obj, bool mutating) {
  auto hooks = obj.find("webhooks");
  if (hooks == obj.end() || !hooks->is_array()) {
    return;
  }
  for (auto& hook : *hooks) {
    if (!hook.is_object()) {
      continue;
    }
    auto set = [&hook](const char* key, json value) {
      if (!hook.contains(key) || hook[key].is_null()) {
        hook[key] = std::move(value);
      }
    };
    set("failurePolicy", "Fail");
    set("matchPolicy", "Equivalent");
    set("namespaceSelector", json::object());
    set("objectSelector", json::object());
    set("timeoutSeconds", 10);
    if (mutating) {
      set("reinvocationPolicy", "Never");
    }
    if (auto rules = hook.find("rules"); rules != hook.end() && rules->is_array()) {
      for (auto& rule : *rules) {
        if (rule.is_object() && (!rule.contains("scope") || rule["scope"].is_null())) {
          rule["scope"] = "*";
        }
      }
    }
    if (auto config = hook.find("clientConfig"); config != hook.end() && config->is_object()) {
      if (auto service = config->find("service");
          service != config->end() && service->is_object() &&
          (!service->contains("port") || (*service)["port"].is_null())) {
        (*service)["port"] = 443;
      }
    }
  }
}

void default_mutating(json& obj, const DefaultingContext&) {
  default_webhooks(obj, true);
}
void default_validating(json& obj, const DefaultingContext&) {
  default_webhooks(obj, false);
}

// Go's %#v of a []string.
std::string go_string_slice(const json& values) {
  std::vector<std::string> quoted;
  for (const auto& v : cells::arr(values)) {
    quoted.push_back(go_quote(cells::str(v)));
  }
  return "[]string{" + join(quoted, ", ") + "}";
}

void check_policy(const json& hook, const std::string& path, const char* key,
                  const std::vector<std::string>& supported, Errors& out) {
  const json& value = cells::at(hook, key);
  if (value.is_string() &&
      std::find(supported.begin(), supported.end(), value.get<std::string>()) == supported.end()) {
    out.push_back(not_supported(path + "." + key, go_quote(value.get<std::string>()), supported));
  }
}

// The webhook rules of ValidateValidatingWebhookConfiguration / ...Mutating... that the
// dispatcher relies on (names unique, sideEffects, admissionReviewVersions, policies, timeout,
// one clientConfig target); kube-sandbox has no CEL, so matchConditions are refused.
void validate_webhooks(const json& obj, bool mutating, Errors& out) {
  const json& hooks = cells::at(obj, "webhooks");
  if (!hooks.is_array()) {
    return;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < hooks.size(); ++i) {
    const json& hook = hooks[i];
    const std::string path = "webhooks[" + std::to_string(i) + "]";
    const std::string name = cells::str(cells::at(hook, "name"));
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      out.push_back(duplicate(path + ".name", go_quote(name)));
    }
    names.push_back(name);
    const json& versions = cells::at(hook, "admissionReviewVersions");
    if (cells::arr(versions).empty()) {
      out.push_back(
          required_value(path + ".admissionReviewVersions", "must specify one of v1, v1beta1"));
    } else {
      bool known = false;
      for (const auto& v : cells::arr(versions)) {
        known = known || cells::str(v) == "v1" || cells::str(v) == "v1beta1";
      }
      if (!known) {
        out.push_back(invalid_rendered(path + ".admissionReviewVersions", go_string_slice(versions),
                                       "must include at least one of v1, v1beta1"));
      }
    }
    check_policy(hook, path, "failurePolicy", {"Fail", "Ignore"}, out);
    check_policy(hook, path, "matchPolicy", {"Equivalent", "Exact"}, out);
    const json& effects = cells::at(hook, "sideEffects");
    if (!effects.is_string()) {
      out.push_back(
          required_value(path + ".sideEffects", "must specify one of None, NoneOnDryRun"));
    } else {
      check_policy(hook, path, "sideEffects", {"None", "NoneOnDryRun"}, out);
    }
    const json& timeout = cells::at(hook, "timeoutSeconds");
    if (timeout.is_number_integer() &&
        (timeout.get<int64_t>() < 1 || timeout.get<int64_t>() > 30)) {
      out.push_back(invalid_rendered(path + ".timeoutSeconds",
                                     std::to_string(timeout.get<int64_t>()),
                                     "the timeout value must be between 1 and 30 seconds"));
    }
    if (mutating) {
      check_policy(hook, path, "reinvocationPolicy", {"IfNeeded", "Never"}, out);
    }
    const json& config = cells::at(hook, "clientConfig");
    const bool has_url = cells::at(config, "url").is_string();
    const bool has_service = cells::at(config, "service").is_object();
    if (has_url == has_service) {
      out.push_back(
          required_value(path + ".clientConfig", "exactly one of url or service is required"));
    }
    const json& conditions = cells::at(hook, "matchConditions");
    if (conditions.is_array() && !conditions.empty()) {
      out.push_back(forbidden(path + ".matchConditions",
                              "kube-sandbox does not evaluate CEL matchConditions yet"));
    }
  }
}

void validate_mutating(const json& obj, Errors& out) {
  validate_webhooks(obj, true, out);
}
void validate_validating(const json& obj, Errors& out) {
  validate_webhooks(obj, false, out);
}

}  // namespace

void add_admission(Strategies& s) {
  constexpr std::string_view kGroup = "admissionregistration.k8s.io";
  s.push_back({.group = kGroup,
               .kind = "MutatingWebhookConfiguration",
               .defaults = default_mutating,
               .validate = validate_mutating,
               .print = print::print_webhook_configuration});
  s.push_back({.group = kGroup,
               .kind = "ValidatingWebhookConfiguration",
               .defaults = default_validating,
               .validate = validate_validating,
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
