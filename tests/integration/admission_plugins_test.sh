#!/usr/bin/env bash
# The built-in admission plugins with kubectl 1.32, as on a real cluster: the refusals of
# ServiceAccount, Priority and NamespaceLifecycle in upstream's words, the Warning on a
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
