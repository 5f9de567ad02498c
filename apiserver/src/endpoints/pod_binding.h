// Binding a pod to a node, as kube-apiserver's BindingREST (POST
// /api/v1/namespaces/{ns}/pods/{name}/binding) and LegacyBindingREST (POST
// /api/v1/namespaces/{ns}/bindings, the pod named by the Binding) do it: the Binding is decoded and
// checked, then the pod changed through the generic store's change (registry/generic/store.h),
// with the Binding's uid and resourceVersion as preconditions. The answer is a 201 Status Success.
//
//   POST .../pods/web/binding {"metadata": {"name": "web"}, "target": {"kind": "Node", "name":
//   "n1"}} → the pod gets spec.nodeName "n1", the Binding's annotations, condition PodScheduled
//   True → a second binding: 409 `Operation cannot be fulfilled on pods/binding "web": pod web is
//     already assigned to node "n1"`
//
// The handler itself is ResourceHandler::bind (resources.h); these are its pure parts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/objects.h"

namespace apiserver::endpoints {

// ValidatePodBinding: target.kind is "Node" or empty, target.name is set. Upstream returns these
// as a plain error list, which the handler answers as a 500 with no reason.
std::vector<registry::FieldError> binding_errors(const nlohmann::json& binding);

// The pod assigned to `node` at `now` (metav1.Time text): spec.nodeName, the Binding's
// `annotations` merged over the pod's, and condition PodScheduled True (its lastTransitionTime
// kept when it was True already). The refusal's text instead when the pod is being deleted, is on
// a node already, or scheduling gates hold it.
std::optional<std::string> assign_pod(nlohmann::json& pod, const std::string& node,
                                      const nlohmann::json& annotations, const std::string& now);

}  // namespace apiserver::endpoints
