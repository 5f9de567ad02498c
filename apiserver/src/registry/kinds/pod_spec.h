// The pod template's rules, shared by every kind that embeds one (pods, pod templates, the apps
// workloads, jobs): PodSpec validation and the SetDefaults_* of containers, probes and volumes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "registry/objects.h"

namespace apiserver::registry::kinds {

using nlohmann::json;
using Errors = std::vector<FieldError>;

void validate_pod_spec(const json& spec, const std::string& path, Errors& out);

// kube-apiserver's --allow-privileged, process-wide as upstream keeps it: when false, a container
// with securityContext.privileged true is refused ("disallowed by cluster policy"). True until
// set.
void set_allow_privileged(bool allowed);

// A pod template: its metadata labels/annotations and its pod spec.
void validate_pod_template(const json& tmpl, const std::string& path, Errors& out);

void default_pvc_spec(json& spec);

// SetDefaults_PodSpec and everything nested (pods and every pod template), plus the v1
// conversion that mirrors serviceAccountName into the deprecated serviceAccount field.
void default_pod_spec(json& spec);

// A PodTemplateSpec inside a workload: defaults plus the always-written template metadata.
void default_pod_template(json& tmpl);

}  // namespace apiserver::registry::kinds
