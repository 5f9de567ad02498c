// Whether a webhook is called for a request, as kube-apiserver's ShouldCallHook decides: the
// rules (operations, apiGroups, apiVersions, resources with their `*`, `*/*`, `pods/status`,
// `*/status` and `pods/*` forms, scope), then under matchPolicy Equivalent the same resource
// served under another version or group from the same storage (core and events.k8s.io Events;
// the webhook is then sent the object in the form its rule named), then the namespaceSelector (on the labels of the request's
// namespace; for a create or update of a Namespace on the object's own) and the objectSelector
// (on the labels of the object or of the old object). Configurations of webhooks and admission
// policies are never sent to webhooks.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "admission/attributes.h"
#include "admission/plugin.h"
#include "admission/webhook/config.h"

namespace apiserver::admission::webhook {

// What a matched webhook is told the resource is (the request's, or the equivalent one the
// rules named).
struct Invocation {
  std::string group;
  std::string version;
  std::string resource;
  std::string kind_group;
  std::string kind_version;
  std::string kind;
};

// Whether one rule covers the request's operation, resource (as `resource` names it) and scope.
bool rule_matches(const Rule& rule, const Attributes& a, const registry::Resource& resource);

// The invocation, nullopt when the webhook is not called, or the Status that ends the request
// (the request's namespace does not exist: upstream's 404).
std::variant<std::nullopt_t, Invocation, errors::Status> should_call(const Webhook& hook,
                                                                     const Attributes& a,
                                                                     const Services& services);

}  // namespace apiserver::admission::webhook
