#!/usr/bin/env bash
# LimitRange with kubectl 1.32, as on a real cluster: LimitRanger admission fills a new pod's
# container requests and limits from the namespace's LimitRange (shown in `kubectl get pod -o
# yaml` with the kubernetes.io/limit-ranger annotation) and refuses a pod outside the range's
# bounds in kube-apiserver's words; with a ResourceQuota beside it, the defaulted pods meet the
# quota's constraints and are counted until the quota refuses the next one. Run through
# with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
ns=limited

k create namespace "$ns" >/dev/null
k apply -n "$ns" -f - >/dev/null <<'EOF'
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 250m, memory: 256Mi}
    min: {cpu: 100m}
    max: {memory: 1Gi}
EOF

# A pod outside the bounds: every failed bound in one message.
expect "outside the range" 'Error from server (Forbidden): pods "big" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]' \
  "$(out k run big -n "$ns" --image=nginx --overrides='{"spec":{"containers":[{"name":"big","image":"nginx","resources":{"requests":{"cpu":"50m"},"limits":{"memory":"2Gi"}}}]}}')"

# A pod that asks nothing gets the range's defaults, and the annotation says which.
k run nginx -n "$ns" --image=nginx >/dev/null
expect "defaulted resources" '{"limits":{"cpu":"500m","memory":"512Mi"},"requests":{"cpu":"250m","memory":"256Mi"}}' \
  "$(k get pod nginx -n "$ns" -o jsonpath='{.spec.containers[0].resources}')"
expect "annotation in -o yaml" "    kubernetes.io/limit-ranger: 'LimitRanger plugin set: cpu, memory request for container
      nginx; cpu, memory limit for container nginx'" \
  "$(k get pod nginx -n "$ns" -o yaml | grep -A1 'kubernetes.io/limit-ranger')"
# What the pod sets itself stays; a limit alone is its request too.
k run own -n "$ns" --image=nginx --overrides='{"spec":{"containers":[{"name":"own","image":"nginx","resources":{"limits":{"cpu":"1"}}}]}}' >/dev/null
expect "own limit kept" '{"limits":{"cpu":"1","memory":"512Mi"},"requests":{"cpu":"1","memory":"256Mi"}}' \
  "$(k get pod own -n "$ns" -o jsonpath='{.spec.containers[0].resources}')"
expect "own annotation" 'LimitRanger plugin set: memory request for container own; memory limit for container own' \
  "$(k get pod own -n "$ns" -o jsonpath='{.metadata.annotations.kubernetes\.io/limit-ranger}')"

# With a quota: the defaults satisfy its constraints, and pods count until it is full.
k create quota compute -n "$ns" --hard=pods=3,requests.cpu=2,limits.memory=4Gi >/dev/null
until_equal "quota filled" '{"limits.memory":"1Gi","pods":"2","requests.cpu":"1250m"}' \
  k get quota compute -n "$ns" -o jsonpath='{.status.used}'
k run third -n "$ns" --image=nginx >/dev/null
expect "third charged" '{"limits.memory":"1536Mi","pods":"3","requests.cpu":"1500m"}' \
  "$(k get quota compute -n "$ns" -o jsonpath='{.status.used}')"
expect "fourth refused" 'Error from server (Forbidden): pods "fourth" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3' \
  "$(out k run fourth -n "$ns" --image=nginx)"
echo "limits: ok"
