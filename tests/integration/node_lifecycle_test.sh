#!/usr/bin/env bash
# A node whose kubelet stops, with kubectl 1.32 as on a real cluster: the node lifecycle
# controller marks it Unknown with kube-controller-manager's reason and message, taints it
# unreachable and marks its pods not Ready; the taint eviction controller deletes the pods that
# tolerate the taint for 2 s (DisruptionTarget condition, TaintManagerEviction event) and the
# ReplicaSet replaces its pod on another node. Started again, the node is Ready, the taints go,
# the pending eviction is called off and the deleted pods are removed. Run through
# with_sandbox.sh (KUBECONFIG set) with a short --node-monitor-grace-period.
set -euo pipefail
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
ready_of() {  # ready_of KIND NAME: the Ready condition's status/reason/message
  k get "$1" "$2" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}/{.status.conditions[?(@.type=="Ready")].message}'
}
taints() { k get node node-3 -o jsonpath='{range .spec.taints[*]}{.key}:{.effect} {end}' | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'; }
event() {  # event OBJECT REASON: the messages of its events with that reason
  k get events --field-selector "involvedObject.name=$1,reason=$2" -o jsonpath='{range .items[*]}{.source.component}: {.message}{"\n"}{end}' | sort -u | tr '\n' '|' | sed 's/|$//'
}

until_equal "nodes ready" "node-1=True node-2=True node-3=True" \
  bash -c "kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type==\"Ready\")].status} {end}' | sed 's/ \$//'"

# On node-3: a ReplicaSet's pod (the other nodes cordoned while it is scheduled) and three pods
# that tolerate the unreachable taint for 2 s, for ever, and for the API server's default 300 s.
k cordon node-1 >/dev/null
k cordon node-2 >/dev/null
# A cordoned node gets the unschedulable taint from the node lifecycle controller.
until_equal "cordoned node tainted" "node.kubernetes.io/unschedulable:NoSchedule" \
  k get node node-1 -o jsonpath='{range .spec.taints[*]}{.key}:{.effect}{end}'
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx}]
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: brief}
spec:
  nodeSelector: {kubernetes.io/hostname: node-3}
  containers: [{name: nginx, image: nginx}]
  tolerations:
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: steadfast}
spec:
  nodeSelector: {kubernetes.io/hostname: node-3}
  containers: [{name: nginx, image: nginx}]
  tolerations:
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}
---
apiVersion: v1
kind: Pod
metadata: {name: patient}
spec:
  nodeSelector: {kubernetes.io/hostname: node-3}
  containers: [{name: nginx, image: nginx}]
YAML
until_equal "pods ready on node-3" "node-3/True node-3/True node-3/True node-3/True" bash -c \
  "kubectl get pods -o jsonpath='{range .items[*]}{.spec.nodeName}/{.status.conditions[?(@.type==\"Ready\")].status} {end}' | sed 's/ \$//'"
k uncordon node-1 >/dev/null
k uncordon node-2 >/dev/null
until_equal "uncordoned node untainted" "" k get node node-1 -o jsonpath='{.spec.taints}'
old=$(k get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
# DefaultTolerationSeconds admission: 300 s for not-ready and unreachable.
expect "default tolerations" \
  "node.kubernetes.io/not-ready:Exists:NoExecute:300 node.kubernetes.io/unreachable:Exists:NoExecute:300" \
  "$(k get pod patient -o jsonpath='{range .spec.tolerations[*]}{.key}:{.operator}:{.effect}:{.tolerationSeconds} {end}' | sed 's/ $//')"

# Stop node-3's kubelet: no lease renewal, no status.
k annotate node node-3 kube-sandbox.io/kubelet=stopped >/dev/null
until_equal "node Unknown" "Unknown/NodeStatusUnknown/Kubelet stopped posting node status." \
  ready_of node node-3
expect "every kubelet condition Unknown" \
  "MemoryPressure=Unknown/NodeStatusUnknown DiskPressure=Unknown/NodeStatusUnknown PIDPressure=Unknown/NodeStatusUnknown Ready=Unknown/NodeStatusUnknown" \
  "$(k get node node-3 -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason} {end}' | sed 's/ $//')"
[[ $(k get node node-3 --no-headers) == "node-3   NotReady"* ]] || fail "kubectl get node: $(k get node node-3 --no-headers)"
until_equal "unreachable taints" \
  "node.kubernetes.io/unreachable:NoExecute node.kubernetes.io/unreachable:NoSchedule" taints
[[ -n $(k get node node-3 -o jsonpath='{.spec.taints[?(@.effect=="NoExecute")].timeAdded}') ]] ||
  fail "NoExecute taint without timeAdded"
expect "NodeNotReady event" "node-controller: Node node-3 status is now: NodeNotReady" \
  "$(event node-3 NodeNotReady)"
until_equal "pods marked not Ready" "False" bash -c \
  "kubectl get pod patient -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}'"
until_equal "pod NodeNotReady event" "node-controller: Node is not ready" event patient NodeNotReady

# The pods tolerating the taint for 2 s are deleted (they stay Terminating: no kubelet stops
# their containers); the ReplicaSet makes a new pod on another node.
until_equal "2 s pod marked for deletion" \
  "taint-eviction-controller: Marking for deletion Pod default/brief" event brief TaintManagerEviction
until_equal "2 s pod deleted" "true" bash -c \
  "[[ -n \$(kubectl get pod brief -o jsonpath='{.metadata.deletionTimestamp}') ]] && echo true"
expect "DisruptionTarget" "True/DeletionByTaintManager/Taint manager: deleting due to NoExecute taint" \
  "$(k get pod brief -o jsonpath='{.status.conditions[?(@.type=="DisruptionTarget")].status}/{.status.conditions[?(@.type=="DisruptionTarget")].reason}/{.status.conditions[?(@.type=="DisruptionTarget")].message}')"
until_equal "ReplicaSet pod evicted" \
  "taint-eviction-controller: Marking for deletion Pod default/$old" event "$old" TaintManagerEviction
until_equal "replacement Ready elsewhere" "True" bash -c \
  "kubectl get pods -l app=web --field-selector spec.nodeName!=node-3 -o jsonpath='{.items[*].status.conditions[?(@.type==\"Ready\")].status}'"
expect "tolerated for ever: kept" "" "$(k get pod steadfast -o jsonpath='{.metadata.deletionTimestamp}')"
expect "tolerated 300 s: kept so far" "" "$(k get pod patient -o jsonpath='{.metadata.deletionTimestamp}')"

# Start it again: Ready, the taints go, the pending eviction is called off, the deleted pods go.
k annotate node node-3 kube-sandbox.io/kubelet- >/dev/null
until_equal "node Ready" "True/KubeletReady/kubelet is posting ready status" ready_of node node-3
until_equal "taints removed" "" taints
until_equal "eviction called off" \
  "taint-eviction-controller: Cancelling deletion of Pod default/patient" \
  bash -c "kubectl get events --field-selector involvedObject.name=patient,reason=TaintManagerEviction -o jsonpath='{.items[*].source.component}: {.items[*].message}'"
until_equal "deleted pods removed" "" bash -c \
  "kubectl get pod brief $old -o name --ignore-not-found"
until_equal "pods Ready again" "True/True" bash -c \
  "kubectl get pod patient steadfast -o jsonpath='{.items[*].status.conditions[?(@.type==\"Ready\")].status}' | tr ' ' /"
expect "kubelet started again" "2" \
  "$(k get events --field-selector involvedObject.name=node-3,reason=Starting -o jsonpath='{.items[0].count}')"
echo "node lifecycle: ok"
