// The admission plugins kube-sandbox has, in kube-apiserver v1.32's order (the order the chain
// runs them in, whatever order the flags name them), and which of them are on by default.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "admission/plugin.h"

namespace apiserver::admission {

using Factory = std::unique_ptr<Plugin> (*)(const Services& services);

struct PluginEntry {
  std::string_view name;
  bool on_by_default = false;
  // Null for a plugin upstream has and kube-sandbox does not: naming it in
  // --enable-admission-plugins is an error that says so.
  Factory make = nullptr;
};

// Every plugin name kube-apiserver v1.32 knows, in its order.
const std::vector<PluginEntry>& ordered_plugins();

// The factories, one per file in plugins/ and webhook/.
std::unique_ptr<Plugin> make_always_admit(const Services& services);
std::unique_ptr<Plugin> make_always_deny(const Services& services);
std::unique_ptr<Plugin> make_namespace_lifecycle(const Services& services);
std::unique_ptr<Plugin> make_namespace_exists(const Services& services);
std::unique_ptr<Plugin> make_namespace_auto_provision(const Services& services);
std::unique_ptr<Plugin> make_limit_ranger(const Services& services);
std::unique_ptr<Plugin> make_service_account(const Services& services);
std::unique_ptr<Plugin> make_taint_nodes_by_condition(const Services& services);
std::unique_ptr<Plugin> make_pod_security(const Services& services);
std::unique_ptr<Plugin> make_priority(const Services& services);
std::unique_ptr<Plugin> make_default_toleration_seconds(const Services& services);
std::unique_ptr<Plugin> make_default_storage_class(const Services& services);
std::unique_ptr<Plugin> make_storage_object_in_use_protection(const Services& services);
std::unique_ptr<Plugin> make_persistent_volume_claim_resize(const Services& services);
std::unique_ptr<Plugin> make_runtime_class(const Services& services);
std::unique_ptr<Plugin> make_certificate_approval(const Services& services);
std::unique_ptr<Plugin> make_certificate_signing(const Services& services);
std::unique_ptr<Plugin> make_cluster_trust_bundle_attest(const Services& services);
std::unique_ptr<Plugin> make_certificate_subject_restriction(const Services& services);
std::unique_ptr<Plugin> make_default_ingress_class(const Services& services);
std::unique_ptr<Plugin> make_mutating_admission_webhook(const Services& services);
std::unique_ptr<Plugin> make_validating_admission_policy(const Services& services);
std::unique_ptr<Plugin> make_validating_admission_webhook(const Services& services);
std::unique_ptr<Plugin> make_resource_quota(const Services& services);

}  // namespace apiserver::admission
