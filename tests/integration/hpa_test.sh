#!/usr/bin/env bash
# HorizontalPodAutoscalers with kubectl 1.32, as on a cluster without metrics-server: the HPA
# controller keeps the target within minReplicas and maxReplicas (SuccessfulRescale), stays out of
# a target scaled to zero, and for the rest reports that the resource metrics API is not there
# (ScalingActive=False, FailedGetResourceMetric, FailedComputeMetricsReplicas) without scaling;
# a target it cannot find is FailedGetScale; once a metrics server is registered, kubectl top
# reads it and the HPA scales by the pods' CPU utilization, up and then down. Run through
# with_sandbox.sh with --horizontal-pod-autoscaler-sync-period=500ms and
# --horizontal-pod-autoscaler-downscale-stabilization=3s.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

field() { k get "$1" "$2" -o jsonpath="{$3}"; }
# The reason and message of an HPA condition, "reason: message".
condition() { k get hpa "$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].reason}: {.status.conditions[?(@.type==\"$2\")].message}"; }
# The messages of the events with a reason about an object.
events() { k get events --field-selector "involvedObject.name=$1,reason=$2" -o jsonpath='{.items[*].message}'; }

no_metrics='unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)'

k create deployment web --image=nginx --replicas=1 >/dev/null
k autoscale deployment web --min=3 --max=5 --cpu-percent=50 >/dev/null

# Below minReplicas: scaled up to it, and said so.
until_equal "replicas raised to the minimum" 3 field deployment web .spec.replicas
until_equal "SuccessfulRescale" "New size: 3; reason: Current number of replicas below Spec.MinReplicas" \
  events web SuccessfulRescale
[[ -n $(field hpa web .status.lastScaleTime) ]] || fail "no lastScaleTime after the rescale"

# Within the bounds the metrics decide, and none can be read: nothing scales.
until_equal "ScalingActive" "FailedGetResourceMetric: the HPA was unable to compute the replica count: failed to get cpu utilization: $no_metrics" \
  condition web ScalingActive
expect "AbleToScale" "SucceededGetScale: the HPA controller was able to get the target's current scale" \
  "$(condition web AbleToScale)"
until_equal "FailedGetResourceMetric event" "failed to get cpu utilization: $no_metrics" \
  events web FailedGetResourceMetric
until_equal "FailedComputeMetricsReplicas event" \
  "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: $no_metrics" \
  events web FailedComputeMetricsReplicas
expect "kubectl get hpa" "web Deployment/web cpu: <unknown>/50% 3 5 3" \
  "$(k get hpa web --no-headers | awk '{print $1, $2, $3, $4, $5, $6, $7}')"
expect "status" '{"currentReplicas":3,"desiredReplicas":3}' \
  "$(k get hpa web -o json | python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; print(json.dumps({k: s[k] for k in ("currentReplicas","desiredReplicas")}, separators=(",",":")))')"
[[ $(field deployment web .spec.replicas) == 3 ]] || fail "scaled without metrics"

# Above maxReplicas: brought down to it.
k scale deployment web --replicas=8 >/dev/null
until_equal "replicas lowered to the maximum" 5 field deployment web .spec.replicas
until_equal "SuccessfulRescale to the maximum" "AbleToScale: SucceededRescale: the HPA controller was able to update the target scale to 5" \
  bash -c "echo AbleToScale: \$(kubectl get hpa web -o jsonpath='{.status.conditions[?(@.type==\"AbleToScale\")].reason}: {.status.conditions[?(@.type==\"AbleToScale\")].message}')"

# Scaled to zero by hand: the HPA stays out.
k scale deployment web --replicas=0 >/dev/null
until_equal "ScalingDisabled" "ScalingDisabled: scaling is disabled since the replica count of the target is zero" \
  condition web ScalingActive
sleep 2
[[ $(field deployment web .spec.replicas) == 0 ]] || fail "a target at zero was scaled"

# A target that is not there, and a kind no API serves.
k apply -f - >/dev/null <<'EOF'
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: missing}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: nothere}
  maxReplicas: 3
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: strange}
spec:
  scaleTargetRef: {apiVersion: example.com/v1, kind: Widget, name: w}
  maxReplicas: 3
EOF
until_equal "missing target" "FailedGetScale: the HPA controller was unable to get the target's current scale: failed to query scale subresource for Deployment/default/nothere: deployments.apps \"nothere\" not found" \
  condition missing AbleToScale
until_equal "unknown kind" "FailedGetScale: the HPA controller was unable to get the target's current scale: unable to determine resource for scale target reference: no matches for kind \"Widget\" in group \"example.com\"" \
  condition strange AbleToScale

# With a metrics server behind its APIService (metrics_server.py, reached as metrics-server is),
# kubectl top reads the pods' usage and the HPA scales by it: 150% of the requests against a 50%
# target wants three times the pods. (A pod's CPU sample counts once a whole metrics window, 15 s,
# followed its Ready transition, as upstream's.)
dir=$(mktemp -d)
extension_pid=
trap '[[ -n $extension_pid ]] && kill "$extension_pid" 2>/dev/null; rm -rf "$dir"' EXIT
k apply -f - >/dev/null <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: busy}
spec:
  replicas: 2
  selector: {matchLabels: {app: busy}}
  template:
    metadata: {labels: {app: busy}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]
EOF
until_equal "busy pods ready" "2" field deployment busy .status.readyReplicas
# use_cpu Q: every busy pod's container uses Q of cpu, as the metrics server reports it.
use_cpu() {
  k get pods -l app=busy -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' |
    python3 -c 'import json, sys; print(json.dumps({"default/" + n: {"app": {"cpu": sys.argv[1], "memory": "20Mi"}} for n in sys.stdin.read().split()}))' "$1" \
      >"$dir/usage.json.part"
  mv "$dir/usage.json.part" "$dir/usage.json"
}
use_cpu 150m
start_extension "$dir" "$(dirname "$0")/metrics_server.py" metrics-server metrics.k8s.io v1beta1 \
  "$dir/usage.json"
until_equal "metrics APIService" "True" \
  k get apiservice v1beta1.metrics.k8s.io -o jsonpath='{.status.conditions[?(@.type=="Available")].status}'
until_equal "kubectl top pod" "150m 150m" \
  bash -c "kubectl top pod -l app=busy --no-headers | awk '{print \$2}' | xargs"
# 6 pods wanted, 4 allowed: the rate limit would allow 4 too, maxReplicas says why.
k autoscale deployment busy --min=1 --max=4 --cpu-percent=50 >/dev/null
until_equal "scaled by utilization" 4 field deployment busy .spec.replicas
until_equal "the rescale's reason" "New size: 4; reason: cpu resource utilization (percentage of request) above target" \
  k get events --field-selector involvedObject.name=busy,reason=SuccessfulRescale -o jsonpath='{.items[0].message}'
until_equal "ScalingLimited" "TooManyReplicas: the desired replica count is more than the maximum replica count" \
  condition busy ScalingLimited
expect "ScalingActive" "ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)" \
  "$(condition busy ScalingActive)"
until_equal "kubectl get hpa busy" "busy Deployment/busy cpu: 150%/50% 1 4" \
  bash -c "kubectl get hpa busy --no-headers | awk '{print \$1, \$2, \$3, \$4, \$5, \$6}'"
[[ $(field deployment busy .spec.replicas) == 4 ]] || fail "scaled past maxReplicas"

# The load drops: a scale down waits out the downscale stabilization window (3 s here, 5 min by
# default) for the highest recent recommendation, then follows the metrics.
use_cpu 10m
until_equal "scaled down" 1 field deployment busy .spec.replicas
until_equal "the scale down's reason" "New size: 1; reason: All metrics below target" \
  k get events --field-selector involvedObject.name=busy,reason=SuccessfulRescale -o jsonpath='{.items[-1:].message}'

# It acts as its own service account, as kube-controller-manager's.
until_equal "the rescale's author" "horizontal-pod-autoscaler" \
  bash -c "kubectl get events --field-selector involvedObject.name=web,reason=SuccessfulRescale -o jsonpath='{.items[0].source.component}'"
echo PASS
