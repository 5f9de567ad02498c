// The webhooks of the stored MutatingWebhookConfigurations or ValidatingWebhookConfigurations,
// read as kube-apiserver reads them: configurations in name order, each one's webhooks in their
// order, with admissionregistration/v1's defaults for what is left out (failurePolicy Fail,
// matchPolicy Equivalent, timeoutSeconds 10, reinvocationPolicy Never, scope "*", the empty
// selectors).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admission/plugin.h"
#include "registry/selectors.h"
#include "webhook/resolve.h"

namespace apiserver::admission::webhook {

struct Rule {
  std::vector<std::string> operations;
  std::vector<std::string> api_groups;
  std::vector<std::string> api_versions;
  std::vector<std::string> resources;
  std::string scope = "*";
};

struct Webhook {
  std::string name;
  std::string configuration;  // the configuration's name
  size_t index = 0;           // position among all webhooks of its kind (reinvocation)
  apiserver::webhook::ClientConfig client;
  std::vector<Rule> rules;
  bool fail_closed = true;  // failurePolicy Fail
  bool equivalent = true;   // matchPolicy Equivalent
  registry::LabelSelector namespace_selector;
  registry::LabelSelector object_selector;
  std::string side_effects;  // "None", "NoneOnDryRun", "Some", "Unknown", or "" (unset)
  int timeout_seconds = 10;
  std::vector<std::string> review_versions;
  bool reinvoke_if_needed = false;  // mutating webhooks only
};

// The upper bound of timeoutSeconds (upstream validation).
inline constexpr int kMaxTimeoutSeconds = 30;

// One webhook from its stored JSON (selectors that do not parse match nothing).
Webhook webhook_from_json(const nlohmann::json& hook, const std::string& configuration);

// Every webhook of the stored configurations of `resource` ("mutatingwebhookconfigurations" or
// "validatingwebhookconfigurations"), in the order kube-apiserver calls them.
std::vector<Webhook> load_webhooks(const Services& services, const std::string& resource);

}  // namespace apiserver::admission::webhook
