#!/usr/bin/env bash
# The cluster around the API server, with kubectl 1.32 as against a real cluster: simulated nodes
# are Ready with their leases, a ReplicaSet's pods are scheduled, run and turn Ready, scaling down
# removes pods, a pod no node fits stays Pending with kube-scheduler's event, cordoned nodes take
# no pods, the scores place pods (preferred node affinity, topology spread), and a Never pod's
# containers exit. Run through with_sandbox.sh (KUBECONFIG set).
set -euo pipefail
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

until_equal "nodes ready" "node-1=True node-2=True node-3=True" \
  bash -c "kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type==\"Ready\")].status} {end}' | sed 's/ \$//'"
expect "node leases" "node-1 node-2 node-3" \
  "$(k get leases -n kube-node-lease -o jsonpath='{.items[*].spec.holderIdentity}')"

k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx, resources: {requests: {cpu: 100m}}}]
YAML
until_equal "pods ready" "True True True" \
  bash -c "kubectl get pods -l app=web -o jsonpath='{range .items[*]}{.status.conditions[?(@.type==\"Ready\")].status} {end}' | sed 's/ \$//'"
until_equal "replicaset status" "3/3/3" \
  k get rs web -o jsonpath='{.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}'
expect "each pod bound, addressed, running" "Running Running Running" \
  "$(k get pods -l app=web -o jsonpath='{range .items[*]}{.status.phase}{" "}{end}' | sed 's/ $//')"
[[ $(k get pods -l app=web -o jsonpath='{.items[*].spec.nodeName}') == *node-* ]] || fail "nodeName"
[[ $(k get pods -l app=web -o jsonpath='{.items[0].status.podIP}') == 10.244.* ]] || fail "podIP"
expect "SuccessfulCreate events" "3" \
  "$(k get events --field-selector reason=SuccessfulCreate -o name | wc -l | tr -d ' ')"
[[ $(k get events --field-selector reason=Scheduled -o jsonpath='{.items[0].message}') == \
  "Successfully assigned default/web-"*" to node-"* ]] || fail "Scheduled event"

k scale rs web --replicas=1 >/dev/null
until_equal "scaled down" "1" bash -c "kubectl get pods -l app=web -o name | wc -l | tr -d ' '"

# Nothing fits: kube-scheduler's words in the condition and the event.
k run picky --image=nginx --overrides='{"spec":{"nodeSelector":{"disk":"none"}}}' >/dev/null
want="0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
until_equal "unschedulable condition" "False/Unschedulable/$want" \
  k get pod picky -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}/{.status.conditions[?(@.type=="PodScheduled")].message}'
until_equal "FailedScheduling event" "$want" \
  k get events --field-selector involvedObject.name=picky,reason=FailedScheduling -o jsonpath='{.items[0].message}'

# Cordoned nodes take no new pods; uncordoned, the pod is scheduled.
for n in node-1 node-2 node-3; do k cordon "$n" >/dev/null; done
k run late --image=nginx >/dev/null
until_equal "cordoned" "0/3 nodes are available: 3 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling." \
  k get pod late -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'
k uncordon node-2 >/dev/null
until_equal "scheduled after uncordon" "node-2" k get pod late -o jsonpath='{.spec.nodeName}'

# Scores: a preferred node affinity outweighs emptier nodes; a ScheduleAnyway spread over
# hostnames puts one replica on each node. kube-scheduler's events are events.k8s.io Events,
# listed through core v1 with their columns.
k uncordon node-1 node-3 >/dev/null
k run preferring --image=nginx --overrides='{"spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"preference":{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["node-3"]}]}}]}}}}' >/dev/null
until_equal "preferred node" "node-3" k get pod preferring -o jsonpath='{.spec.nodeName}'
until_equal "Scheduled event columns" "Normal Scheduled pod/preferring Successfully assigned default/preferring to node-3" \
  bash -c "kubectl get events --field-selector reason=Scheduled,involvedObject.name=preferring --no-headers | awk '{\$1=\"\"; print}' | sed 's/^ //; s/  */ /g'"
[[ $(k get events --field-selector reason=Scheduled,involvedObject.name=preferring -o wide --no-headers) == \
  *"default-scheduler, default-scheduler-"* ]] || fail "Scheduled event source"
expect "events.k8s.io view" "Binding/default-scheduler/Pod" \
  "$(k get events.events.k8s.io --field-selector reason=Scheduled,regarding.name=preferring -o jsonpath='{.items[0].action}/{.items[0].reportingController}/{.items[0].regarding.kind}')"
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: spread}
spec:
  replicas: 3
  selector: {matchLabels: {app: spread}}
  template:
    metadata: {labels: {app: spread}}
    spec:
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: spread}}}
      containers: [{name: c, image: nginx}]
YAML
until_equal "spread over the nodes" "node-1 node-2 node-3" \
  bash -c "kubectl get pods -l app=spread -o jsonpath='{range .items[*]}{.spec.nodeName}{\"\\n\"}{end}' | sort | xargs"

# A pod whose containers exit: Succeeded.
k run once --image=busybox --restart=Never --annotations=kube-sandbox.io/run-seconds=1 >/dev/null
until_equal "pod succeeded" "Succeeded" k get pod once -o jsonpath='{.status.phase}'
expect "exit code" "0/Completed" \
  "$(k get pod once -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}/{.status.containerStatuses[0].state.terminated.reason}')"
echo "controllers: ok"
