// What the console's editor starts from when a person creates an object: a minimal valid object
// of a kind (Ctrl+N), or a copy of an existing one (Duplicate). Pure functions; no network.
//
// Templates are written for the common built-in kinds (ConfigMap, Secret, Deployment, Service,
// Pod, Job, CronJob, StatefulSet, DaemonSet, Ingress, PersistentVolumeClaim, ServiceAccount,
// Namespace, Role, RoleBinding, ClusterRole, ClusterRoleBinding, NetworkPolicy,
// PodDisruptionBudget, ResourceQuota, LimitRange): each is accepted by a v1.32 API server as it
// is. Any other kind (a CRD's among them) gets apiVersion, kind and metadata only, which the
// person completes; the server's answer says what is missing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "console/model/resource_tree.h"

namespace console::model {

// The template of `resource`, named "new-<singular>", in `namespace_` when the kind is
// namespaced ("default" when `namespace_` is empty).
nlohmann::json object_template(const ApiResource& resource, std::string_view namespace_);

// A copy of `object` to create anew: named "<name>-copy", without status and without what the
// server set or ties the copy to the original: uid, resourceVersion, generation,
// creationTimestamp, managedFields, deletion fields, ownerReferences, finalizers, the
// last-applied-configuration annotation; a Service's cluster IPs and node ports, a Job's
// generated selector and its controller-uid labels, a PersistentVolumeClaim's bound volume.
nlohmann::json duplicate_object(const nlohmann::json& object);

}  // namespace console::model
