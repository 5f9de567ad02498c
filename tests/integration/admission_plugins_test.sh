#!/usr/bin/env bash
# The built-in admission plugins with kubectl 1.32, as on a real cluster: the refusals of
# ServiceAccount, Priority and NamespaceLifecycle (a missing namespace, an immortal one, a
# Terminating one) in upstream's words, the Warning on a
# ValidatingAdmissionPolicy (kube-sandbox evaluates none), and serve's plugin flags refusing what
# kube-apiserver refuses. Run through with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

expect "unknown service account" 'Error from server (Forbidden): pods "x" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found' \
  "$(out k run x --image=nginx --overrides='{"spec":{"serviceAccountName":"ghost"}}')"
expect "unknown priority class" 'Error from server (Forbidden): pods "y" is forbidden: no PriorityClass with name gold was found' \
  "$(out k run y --image=nginx --overrides='{"spec":{"priorityClassName":"gold"}}')"
expect "immortal namespace" 'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted' \
  "$(out k delete namespace kube-system)"
expect "pod admitted" "default 0 PreemptLowerPriority 300" \
  "$(k run z --image=nginx >/dev/null && k get pod z -o jsonpath='{.spec.serviceAccountName} {.spec.priority} {.spec.preemptionPolicy} {.spec.tolerations[0].tolerationSeconds}')"

# A namespace held in Terminating by an object's finalizer takes nothing new.
k create namespace ending >/dev/null
k create configmap held -n ending >/dev/null
k patch configmap held -n ending --type=merge -p '{"metadata":{"finalizers":["example.com/hold"]}}' >/dev/null
k delete namespace ending --wait=false >/dev/null
until_equal "namespace terminating" "Terminating" k get namespace ending -o jsonpath='{.status.phase}'
expect "terminating namespace" 'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace ending because it is being terminated' \
  "$(out k create configmap late -n ending)"
k patch configmap held -n ending --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null

policy=$(out k create -f - <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: few-replicas
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= 5"
YAML
)
expect "policy warning" 'Warning: kube-sandbox does not evaluate ValidatingAdmissionPolicies yet (it has no CEL): this object is stored but enforces nothing
validatingadmissionpolicy.admissionregistration.k8s.io/few-replicas created' "$policy"

# serve refuses the flags kube-apiserver refuses, with its words, before starting.
refused() {
  local status=0 said
  said=$("$KS_BINARY" serve --ephemeral --headless --secure-port 0 "$@" 2>&1) || status=$?
  (( status == 2 )) || fail "serve $* exits $status: $said"
  echo "$said" | head -1
}
expect "unknown plugin" 'kube-sandbox serve: enable-admission-plugins plugin "Nope" is unknown' \
  "$(refused --enable-admission-plugins=Nope)"
expect "overlap" 'kube-sandbox serve: [AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped' \
  "$(refused --enable-admission-plugins=AlwaysDeny --disable-admission-plugins=AlwaysDeny)"
echo "admission plugins: ok"
