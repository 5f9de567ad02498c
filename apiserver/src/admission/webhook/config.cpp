#include "admission/webhook/config.h"

#include <algorithm>

#include "registry/validation_rules.h"

namespace apiserver::admission::webhook {
namespace {

using nlohmann::json;

using registry::rules::get;
using registry::rules::str;

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  const json& v = get(j, key);
  if (v.is_array()) {
    for (const auto& s : v) {
      if (s.is_string()) {
        out.push_back(s.get<std::string>());
      }
    }
  }
  return out;
}

registry::LabelSelector selector(const json& j, const char* key) {
  const json& v = get(j, key);
  if (v.is_null()) {
    return {};  // the default, {}: everything
  }
  auto parsed = registry::LabelSelector::from_json(v);
  if (!parsed) {
    // Stored selectors were validated; one that no longer parses matches nothing.
    return *registry::LabelSelector::from_json(json());
  }
  return *parsed;
}

}  // namespace

Webhook webhook_from_json(const json& hook, const std::string& configuration) {
  Webhook w;
  w.name = str(hook, "name");
  w.configuration = configuration;
  w.client = apiserver::webhook::client_config_from_json(get(hook, "clientConfig"));
  const json& rules = get(hook, "rules");
  if (rules.is_array()) {
    for (const auto& r : rules) {
      Rule rule;
      rule.operations = strings(r, "operations");
      rule.api_groups = strings(r, "apiGroups");
      rule.api_versions = strings(r, "apiVersions");
      rule.resources = strings(r, "resources");
      const std::string scope = str(r, "scope");
      rule.scope = scope.empty() ? "*" : scope;
      w.rules.push_back(std::move(rule));
    }
  }
  w.fail_closed = str(hook, "failurePolicy") != "Ignore";
  w.equivalent = str(hook, "matchPolicy") != "Exact";
  w.namespace_selector = selector(hook, "namespaceSelector");
  w.object_selector = selector(hook, "objectSelector");
  w.side_effects = str(hook, "sideEffects");
  const json& timeout = get(hook, "timeoutSeconds");
  if (timeout.is_number_integer()) {
    w.timeout_seconds = static_cast<int>(
        std::clamp<int64_t>(timeout.get<int64_t>(), 1, static_cast<int64_t>(kMaxTimeoutSeconds)));
  }
  w.review_versions = strings(hook, "admissionReviewVersions");
  w.reinvoke_if_needed = str(hook, "reinvocationPolicy") == "IfNeeded";
  return w;
}

std::vector<Webhook> load_webhooks(const Services& services, const std::string& resource) {
  auto configurations = services.list("admissionregistration.k8s.io", resource, "");
  std::vector<std::pair<std::string, const json*>> named;
  for (const auto& c : configurations) {
    named.emplace_back(str(get(c, "metadata"), "name"), &c);
  }
  std::sort(named.begin(), named.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Webhook> out;
  for (const auto& [name, configuration] : named) {
    const json& hooks = get(*configuration, "webhooks");
    if (!hooks.is_array()) {
      continue;
    }
    for (const auto& hook : hooks) {
      out.push_back(webhook_from_json(hook, name));
      out.back().index = out.size() - 1;
    }
  }
  return out;
}

}  // namespace apiserver::admission::webhook
