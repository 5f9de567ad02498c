// The PodSecurity admission plugin (plugin/pkg/admission/security/podsecurity over
// k8s.io/pod-security-admission/admission), validating pass only, on creates and updates:
// - pods (and their ephemeralcontainers subresource): evaluated against the namespace's
//   enforce, audit and warn policies; enforce refuses with a 403 `pods "x" is forbidden:
//   violates PodSecurity "baseline:latest": ...`, warn adds a Warning `would violate
//   PodSecurity ...`, audit adds the audit annotation pod-security.kubernetes.io/
//   audit-violations. Every evaluated pod gets pod-security.kubernetes.io/enforce-policy. An
//   update that changes no image, adds no container and changes no seccomp annotation is not
//   evaluated.
// - the pod templates of Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs,
//   ReplicationControllers and PodTemplates: warn and audit only, never enforce.
// - namespaces: labels that do not parse are refused (422) on create, and on update when they
//   changed; an update that tightens the enforce policy warns about the existing pods that would
//   violate it (at most 3000 are checked).
// A namespace whose labels do not parse is evaluated as they resolve (enforce restricted), and
// the request's audit event says why (pod-security.kubernetes.io/error). No exemptions are
// configured (upstream's default configuration).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admission/plugin.h"

namespace apiserver::admission::pod_security {

// The namespace named so (parsed), or nullopt when there is none.
using NamespaceGetter = std::function<std::optional<nlohmann::json>(const std::string& name)>;
// Every pod of a namespace, in key order.
using PodLister = std::function<std::vector<nlohmann::json>(const std::string& ns)>;

// Upstream caps how many existing pods a namespace update evaluates.
constexpr size_t kNamespaceMaxPodsToCheck = 3000;

std::unique_ptr<Plugin> make_plugin(NamespaceGetter get_namespace, PodLister list_pods);

}  // namespace apiserver::admission::pod_security
