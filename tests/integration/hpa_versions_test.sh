#!/usr/bin/env bash
# HorizontalPodAutoscalers at autoscaling/v1 and autoscaling/v2, as against kube-apiserver: an HPA
# created at v2 reads at v1 with its CPU target mapped and the rest kept in upstream's round-trip
# annotations, an update at v1 keeps the v2-only data, and python3-kubernetes (AutoscalingV1Api,
# and its dynamic client at v2) sees the same object. Run through with_sandbox.sh, which sets
# KUBECONFIG.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cluster_lib.sh
source "$here/cluster_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# field FILE EXPR: a Python expression over the JSON document `o` in FILE.
field() {
  python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

k create namespace hpa >/dev/null
cat >"$tmp/web.yaml" <<'EOF'
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: hpa
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Pods
    pods:
      metric: {name: packets-per-second}
      target: {type: AverageValue, averageValue: 1k}
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 120
      policies:
      - {type: Percent, value: 10, periodSeconds: 60}
EOF
expect "create at v2" "horizontalpodautoscaler.autoscaling/web created" \
  "$(out k create -f "$tmp/web.yaml")"

# Read at v1: the CPU target is a field, the rest is in annotations. (kubectl drops the version
# of a short name: hpa.v1.autoscaling would read the preferred v2, so the full name is used.)
k get horizontalpodautoscalers.v1.autoscaling web -n hpa -o json >"$tmp/v1.json"
expect "v1 apiVersion" "autoscaling/v1" "$(field "$tmp/v1.json" 'o["apiVersion"]')"
expect "v1 cpu target" "70" "$(field "$tmp/v1.json" 'o["spec"]["targetCPUUtilizationPercentage"]')"
expect "v1 has no metrics field" "False" "$(field "$tmp/v1.json" '"metrics" in o["spec"]')"
annotation() {  # annotation FILE NAME: the autoscaling.alpha.kubernetes.io/NAME annotation
  field "$1" 'o["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/'"$2"'"]'
}
expect "v1 metrics annotation" \
  '[{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k"}}]' \
  "$(annotation "$tmp/v1.json" metrics)"
expect "v1 behavior annotation (the internal type's field names)" "120" \
  "$(annotation "$tmp/v1.json" behavior | python3 -c 'import json,sys
print(json.load(sys.stdin)["ScaleDown"]["StabilizationWindowSeconds"])')"

# Read at v2 (the preferred version, and the storage version): as created, no annotations.
k get horizontalpodautoscalers.v2.autoscaling web -n hpa -o json >"$tmp/v2.json"
expect "v2 apiVersion" "autoscaling/v2" "$(field "$tmp/v2.json" 'o["apiVersion"]')"
expect "v2 metrics" "Pods Resource" \
  "$(field "$tmp/v2.json" '" ".join(m["type"] for m in o["spec"]["metrics"])')"
expect "v2 no round-trip annotations" "[]" \
  "$(field "$tmp/v2.json" '[a for a in o["metadata"].get("annotations", {}) if "alpha" in a]')"
expect "kubectl get hpa" "horizontalpodautoscaler.autoscaling/web" "$(k get hpa web -n hpa -o name)"

# Update at v1 (kubectl sends back the annotations it read): the v2 data survives.
python3 - "$tmp/v1.json" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
o["spec"]["maxReplicas"] = 7
o["spec"]["targetCPUUtilizationPercentage"] = 50
json.dump(o, open(sys.argv[1], "w"))
EOF
expect "replace at v1" "horizontalpodautoscaler.autoscaling/web replaced" \
  "$(out k replace -f "$tmp/v1.json")"
path='{.spec.maxReplicas} {.spec.metrics[0].pods.metric.name}'
path+=' {.spec.metrics[0].pods.target.averageValue}'
path+=' {.spec.metrics[1].resource.target.averageUtilization}'
path+=' {.spec.behavior.scaleDown.stabilizationWindowSeconds}'
expect "v2 after v1 update" "7 packets-per-second 1k 50 120" \
  "$(k get horizontalpodautoscalers.v2.autoscaling web -n hpa -o jsonpath="$path")"

# A v1 HPA without a CPU target reads at v2 with upstream's implicit 80%.
cat >"$tmp/plain.json" <<'EOF'
{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
 "metadata": {"name": "plain", "namespace": "hpa"},
 "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "plain"},
          "maxReplicas": 3}}
EOF
k create -f "$tmp/plain.json" >/dev/null
path='{.spec.metrics[0].type} {.spec.metrics[0].resource.name}'
path+=' {.spec.metrics[0].resource.target.averageUtilization}'
expect "implicit cpu target" "Resource cpu 80" \
  "$(k get horizontalpodautoscalers.v2.autoscaling plain -n hpa -o jsonpath="$path")"
# The defaults of the storage version: one minimum replica; a behavior's missing rules.
expect "default minReplicas at v1 and v2" "1 1" \
  "$(k get horizontalpodautoscalers.v1.autoscaling plain -n hpa -o jsonpath='{.spec.minReplicas}') $(k get horizontalpodautoscalers.v2.autoscaling plain -n hpa -o jsonpath='{.spec.minReplicas}')"
path='{.spec.behavior.scaleUp.selectPolicy} {.spec.behavior.scaleUp.policies[0].type}'
path+=' {.spec.behavior.scaleDown.stabilizationWindowSeconds}'
expect "behavior defaults" "Max Pods 120" \
  "$(k get horizontalpodautoscalers.v2.autoscaling web -n hpa -o jsonpath="$path")"

# The same through python3-kubernetes: AutoscalingV1Api at v1 and, since this client release has
# no AutoscalingV2Api, its dynamic client at autoscaling/v2.
/usr/bin/python3 - <<'EOF'
import json
from kubernetes import client, config, dynamic

config.load_kube_config()
v1 = client.AutoscalingV1Api()
v2 = dynamic.DynamicClient(client.ApiClient()).resources.get(
    api_version="autoscaling/v2", kind="HorizontalPodAutoscaler")

def check(name, want, got):
    if want != got:
        raise SystemExit(f"FAIL: {name}: want {want!r} got {got!r}")

h1 = v1.read_namespaced_horizontal_pod_autoscaler("web", "hpa")
check("python v1 cpu", 50, h1.spec.target_cpu_utilization_percentage)
check("python v1 metrics annotation", "Pods",
      json.loads(h1.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"])[0]["type"])
h1.spec.max_replicas = 9
v1.replace_namespaced_horizontal_pod_autoscaler("web", "hpa", h1)

h2 = v2.get(name="web", namespace="hpa").to_dict()
check("python v2 apiVersion", "autoscaling/v2", h2["apiVersion"])
check("python v2 max", 9, h2["spec"]["maxReplicas"])
check("python v2 metrics", ["Pods", "Resource"], [m["type"] for m in h2["spec"]["metrics"]])
check("python v2 behavior", 120, h2["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"])
check("python v2 annotations", [],
      [a for a in (h2["metadata"].get("annotations") or {}) if a.startswith("autoscaling.alpha")])

# Created at v2, listed at v1.
v2.create(namespace="hpa", body={
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "api"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
             "maxReplicas": 4,
             "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                 "type": "Utilization", "averageUtilization": 65}}}]}})
listed = {h.metadata.name: h for h in v1.list_namespaced_horizontal_pod_autoscaler("hpa").items}
check("python v1 list", ["api", "plain", "web"], sorted(listed))
check("python v1 list cpu", 65, listed["api"].spec.target_cpu_utilization_percentage)
check("python v1 list no annotations", None, listed["api"].metadata.annotations)
print("python ok")
EOF
echo "hpa versions ok"
