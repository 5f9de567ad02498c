#include "admission/webhook/matching.h"

#include <algorithm>

namespace apiserver::admission::webhook {
namespace {

bool has(const std::vector<std::string>& values, std::string_view wanted) {
  return std::any_of(values.begin(), values.end(),
                     [&](const std::string& v) { return v == "*" || v == wanted; });
}

bool resource_matches(const std::vector<std::string>& resources, const std::string& resource,
                      const std::string& subresource) {
  for (const auto& entry : resources) {
    const auto slash = entry.find('/');
    const std::string res = entry.substr(0, slash);
    const std::string sub = slash == std::string::npos ? "" : entry.substr(slash + 1);
    if ((res == "*" || res == resource) && (sub == "*" || sub == subresource)) {
      return true;
    }
  }
  return false;
}

bool exempt(const registry::Resource& r) {
  static const char* const kExempt[] = {
      "mutatingwebhookconfigurations", "validatingwebhookconfigurations",
      "validatingadmissionpolicies",   "validatingadmissionpolicybindings",
      "mutatingadmissionpolicies",     "mutatingadmissionpolicybindings"};
  return r.group == "admissionregistration.k8s.io" &&
         std::find(std::begin(kExempt), std::end(kExempt), r.resource) != std::end(kExempt);
}

const nlohmann::json& labels_of(const nlohmann::json* object) {
  static const nlohmann::json kNull;
  if (object == nullptr || !object->is_object()) {
    return kNull;
  }
  auto meta = object->find("metadata");
  if (meta == object->end() || !meta->is_object()) {
    return kNull;
  }
  auto labels = meta->find("labels");
  return labels == meta->end() ? kNull : *labels;
}

Invocation invocation_for(const registry::Resource& r, const std::string& subresource) {
  Invocation inv{r.group, r.version, r.resource, r.group, r.version, r.kind};
  if (const auto* sub = r.subresource(subresource); sub != nullptr && !sub->kind.kind.empty()) {
    inv.kind_group = sub->kind.group;
    inv.kind_version = sub->kind.version;
    inv.kind = sub->kind.kind;
  }
  return inv;
}

// The namespace selector's verdict, or the Status when the namespace cannot be found.
std::variant<bool, errors::Status> namespace_matches(const Webhook& hook, const Attributes& a,
                                                     const Services& services) {
  const bool is_namespace = a.resource->group.empty() && a.resource->resource == "namespaces";
  if (a.namespace_.empty() && !is_namespace) {
    return true;  // cluster-scoped objects are never exempted
  }
  if (hook.namespace_selector.empty()) {
    return true;
  }
  if (is_namespace && a.subresource.empty() &&
      (a.operation == Operation::Create || a.operation == Operation::Update)) {
    return hook.namespace_selector.matches(labels_of(a.object));
  }
  const std::string name = is_namespace ? a.name : a.namespace_;
  auto ns = services.get("", "namespaces", "", name);
  if (!ns) {
    return errors::failure(404, "NotFound", "namespaces \"" + name + "\" not found",
                           errors::object_details(name, "", "namespaces"));
  }
  return hook.namespace_selector.matches(labels_of(&*ns));
}

}  // namespace

bool rule_matches(const Rule& rule, const Attributes& a, const registry::Resource& resource) {
  if (!has(rule.operations, operation_name(a.operation)) || !has(rule.api_groups, resource.group) ||
      !has(rule.api_versions, resource.version) ||
      !resource_matches(rule.resources, resource.resource, a.subresource)) {
    return false;
  }
  if (rule.scope == "Cluster") {
    return a.namespace_.empty();
  }
  if (rule.scope == "Namespaced") {
    return !a.namespace_.empty();
  }
  return true;
}

std::variant<std::nullopt_t, Invocation, errors::Status> should_call(const Webhook& hook,
                                                                     const Attributes& a,
                                                                     const Services& services) {
  if (a.resource == nullptr || exempt(*a.resource)) {
    return std::nullopt;
  }
  std::optional<Invocation> invocation;
  for (const auto& rule : hook.rules) {
    if (rule_matches(rule, a, *a.resource)) {
      invocation = invocation_for(*a.resource, a.subresource);
      break;
    }
  }
  if (!invocation && hook.equivalent) {
    // The same resource served under another version or group from the same storage (events
    // in the core group and events.k8s.io): kube-apiserver's equivalent resources. The webhook
    // is told of it, and sent the object, as the rule named it.
    auto snapshot = services.snapshot();
    for (const auto& rule : hook.rules) {
      for (const auto& r : snapshot->resources()) {
        const bool other = r.group != a.resource->group || r.version != a.resource->version;
        if (other && !r.etcd_prefix.empty() && r.etcd_prefix == a.resource->etcd_prefix &&
            r.resource == a.resource->resource && rule_matches(rule, a, r)) {
          invocation = invocation_for(r, a.subresource);
          break;
        }
      }
      if (invocation) {
        break;
      }
    }
  }
  if (!invocation) {
    return std::nullopt;
  }
  auto ns = namespace_matches(hook, a, services);
  if (auto* status = std::get_if<errors::Status>(&ns)) {
    return *status;
  }
  if (!std::get<bool>(ns)) {
    return std::nullopt;
  }
  const auto object_matches = [&hook](const nlohmann::json* object) {
    return object != nullptr && hook.object_selector.matches(labels_of(object));
  };
  if (!hook.object_selector.empty() && !object_matches(a.object) && !object_matches(a.old_object)) {
    return std::nullopt;
  }
  return *invocation;
}

}  // namespace apiserver::admission::webhook
