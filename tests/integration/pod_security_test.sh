#!/usr/bin/env bash
# PodSecurity with kubectl 1.32, as on a real cluster: an enforce=baseline namespace refuses a
# privileged pod in upstream's words, warn=restricted prints kubectl's Warning, a Deployment in
# a restricted namespace is warned about (not refused) and its ReplicaSet's pods are refused,
# labelling a namespace whose pods violate the new level warns about them, and a label value
# that does not parse is refused. Run through with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

restricted_detail() {  # the restricted violations of a plain `kubectl run NAME --image=nginx`
  echo "allowPrivilegeEscalation != false (container \"$1\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"$1\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"$1\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"$1\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"
}

k create namespace base >/dev/null
k label namespace base pod-security.kubernetes.io/enforce=baseline >/dev/null
expect "enforce baseline" 'Error from server (Forbidden): pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "priv" must not set securityContext.privileged=true)' \
  "$(out k run priv -n base --image=nginx --privileged)"
expect "baseline admits a plain pod" "pod/plain created" "$(out k run plain -n base --image=nginx)"

k create namespace warned >/dev/null
k label namespace warned pod-security.kubernetes.io/warn=restricted >/dev/null
expect "warn restricted" "Warning: would violate PodSecurity \"restricted:latest\": $(restricted_detail w)
pod/w created" "$(out k run w -n warned --image=nginx)"

k create namespace strict >/dev/null
k label namespace strict pod-security.kubernetes.io/enforce=restricted \
  pod-security.kubernetes.io/warn=restricted >/dev/null
expect "deployment warned, not refused" "Warning: would violate PodSecurity \"restricted:latest\": $(restricted_detail nginx)
deployment.apps/web created" "$(out k create deployment web -n strict --image=nginx)"
# The ReplicaSet controller's creates are pods, and enforce refuses them.
until_equal "replicaset refused" "FailedCreate" \
  k get events -n strict --field-selector reason=FailedCreate -o jsonpath='{.items[0].reason}'
event=$(k get events -n strict --field-selector reason=FailedCreate -o jsonpath='{.items[0].message}')
[[ $event == "Error creating: pods \"web-"*"\" is forbidden: violates PodSecurity \"restricted:latest\": $(restricted_detail nginx)" ]] ||
  fail "replicaset event: $event"
expect "no pods" "" "$(k get pods -n strict -o name)"

# Pods admitted before the label: tightening enforce warns about them (two privileged pods share
# one summary, named by the first), relaxing it does not.
k create namespace existing >/dev/null
k run p2 -n existing --image=nginx --privileged >/dev/null
k run p1 -n existing --image=nginx --privileged >/dev/null
k run host -n existing --image=nginx --overrides='{"spec":{"hostNetwork":true}}' >/dev/null
expect "label with violating pods" 'Warning: existing pods in namespace "existing" violate the new PodSecurity enforce level "baseline:latest"
Warning: host: host namespaces
Warning: p1 (and 1 other pod): privileged
namespace/existing labeled' "$(out k label namespace existing pod-security.kubernetes.io/enforce=baseline)"
expect "relaxing warns nothing" "namespace/existing labeled" \
  "$(out k label --overwrite namespace existing pod-security.kubernetes.io/enforce=privileged)"

expect "label value refused" 'The Namespace "existing" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted' \
  "$(out k label --overwrite namespace existing pod-security.kubernetes.io/enforce=strict)"
echo "pod security: ok"
