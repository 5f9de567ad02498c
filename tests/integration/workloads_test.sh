#!/usr/bin/env bash
# The workload controllers and the garbage collector with kubectl 1.32, as on a real cluster: a
# Deployment's rollout, update, undo and scale; the three cascade modes; adoption and release;
# owners looked up where their references say; a Job to completion; a CronJob firing under
# --cron-clock-speed; StatefulSet ordinals and claim retention; a DaemonSet pod per node and a
# surge update; and a drain that respects a PodDisruptionBudget. Run through with_sandbox.sh
# (KUBECONFIG set).
set -euo pipefail
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
count() { "$@" -o name 2>/dev/null | wc -l | tr -d ' '; }

# Deployment: rollout, image update, undo, scale.
k create deployment web --image=nginx --replicas=3 >/dev/null
k rollout status deployment/web --timeout=40s >/dev/null || fail "rollout status"
k set image deployment/web nginx=nginx:1.27 >/dev/null
k rollout status deployment/web --timeout=40s >/dev/null || fail "rollout status after set image"
until_equal "two ReplicaSets" "2" count k get rs -l app=web
k rollout undo deployment/web >/dev/null
k rollout status deployment/web --timeout=40s >/dev/null || fail "rollout status after undo"
until_equal "image after undo" "nginx" k get deployment web -o jsonpath='{.spec.template.spec.containers[0].image}'
until_equal "revision after undo" "3" k get deployment web -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}'
k scale deployment web --replicas=5 >/dev/null
until_equal "scaled" "5/5" k get deployment web -o jsonpath='{.status.readyReplicas}/{.status.availableReplicas}'
until_equal "Available" "True/MinimumReplicasAvailable" \
  k get deployment web -o jsonpath='{.status.conditions[?(@.type=="Available")].status}/{.status.conditions[?(@.type=="Available")].reason}'

# Cascades. Background (kubectl's default): the ReplicaSets and pods follow.
k delete deployment web >/dev/null
until_equal "background: ReplicaSets gone" "0" count k get rs -l app=web
until_equal "background: pods gone" "0" count k get pods -l app=web
# Foreground: the owner waits, with its finalizer, until its dependents are gone.
k create deployment fg --image=nginx --replicas=2 >/dev/null
k rollout status deployment/fg --timeout=40s >/dev/null || fail "fg rollout"
k delete deployment fg --cascade=foreground --wait=false >/dev/null
until_equal "foreground: all gone" "0 0 0" bash -c \
  "echo \$(kubectl get deploy fg -o name 2>/dev/null | wc -l) \$(kubectl get rs -l app=fg -o name | wc -l) \$(kubectl get pods -l app=fg -o name | wc -l)"
# Orphan: the ReplicaSet stays, without its owner reference.
k create deployment or --image=nginx --replicas=2 >/dev/null
k rollout status deployment/or --timeout=40s >/dev/null || fail "or rollout"
k delete deployment or --cascade=orphan >/dev/null
until_equal "orphan: ReplicaSet kept, unowned" "1:" bash -c \
  "echo \$(kubectl get rs -l app=or -o name | wc -l):\$(kubectl get rs -l app=or -o jsonpath='{.items[0].metadata.ownerReferences}')"
[[ $(count k get pods -l app=or) == 2 ]] || fail "orphan: pods kept"
# Adoption: the Deployment made again adopts the orphaned ReplicaSet (same template, same name).
k create deployment or --image=nginx --replicas=2 >/dev/null
until_equal "orphan ReplicaSet adopted" "Deployment/or" k get rs -l app=or \
  -o jsonpath='{.items[0].metadata.ownerReferences[0].kind}/{.items[0].metadata.ownerReferences[0].name}'
[[ $(count k get rs -l app=or) == 1 ]] || fail "adopted, not replaced"
# Release: a pod relabelled out of the selector loses its owner and is replaced.
loose=$(k get pods -l app=or -o jsonpath='{.items[0].metadata.name}')
k label pod "$loose" app=loose --overwrite >/dev/null
until_equal "relabelled pod released" "" k get pod "$loose" -o jsonpath='{.metadata.ownerReferences[*].name}'
until_equal "released pod replaced" "2" count k get pods -l app=or
k delete pod "$loose" --wait=false >/dev/null

# The collector looks an owner up where the reference says: a dependent naming an owner of
# another namespace is deleted, with an OwnerRefInvalidNamespace event; a cluster-scoped one
# naming a namespaced kind is left alone.
k create namespace gc-a >/dev/null
k create configmap owner -n gc-a >/dev/null
ref="{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"owner\",\"uid\":\"$(k get configmap owner -n gc-a -o jsonpath='{.metadata.uid}')\"}"
k apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gc-left-alone, ownerReferences: [$ref]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: dep, namespace: default, ownerReferences: [$ref]}
YAML
until_equal "dependent of another namespace's owner deleted" "0" count k get configmap dep
for o in dep gc-left-alone; do
  until_equal "$o: OwnerRefInvalidNamespace" "OwnerRefInvalidNamespace" \
    k get events --field-selector "involvedObject.name=$o" -o jsonpath='{.items[0].reason}'
done

# A Job to completion.
k create job pi --image=busybox >/dev/null
k wait --for=condition=complete job/pi --timeout=40s >/dev/null || fail "job complete"
until_equal "job status" "1" k get job pi -o jsonpath='{.status.succeeded}'

# A CronJob fires: --cron-clock-speed makes its five minutes seconds.
k create cronjob tick --image=busybox --schedule='*/5 * * * *' >/dev/null
until_equal "cronjob made a job" "yes" bash -c \
  "[[ \$(kubectl get jobs -o jsonpath='{.items[*].metadata.ownerReferences[0].name}' | grep -c tick) -ge 1 ]] && echo yes"

# StatefulSet ordinals, created in order.
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: nginx}]}
YAML
until_equal "statefulset ready" "3" k get statefulset db -o jsonpath='{.status.readyReplicas}'
[[ $(k get pods -l app=db -o jsonpath='{.items[*].metadata.name}') == "db-0 db-1 db-2" ]] || fail "ordinals"

# A DaemonSet: one pod on each of the three nodes.
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: busybox}]}
YAML
until_equal "daemonset on every node" "node-1 node-2 node-3" bash -c \
  "kubectl get pods -l app=agent -o jsonpath='{range .items[*]}{.spec.nodeName}{\"\\n\"}{end}' | sort | xargs"
# A surge update: a node gets its new pod before the old one goes.
k patch daemonset agent -p '{"spec":{"updateStrategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}' >/dev/null
ds_events() {
  kubectl get events --field-selector involvedObject.kind=DaemonSet,involvedObject.name=agent \
    -o jsonpath='{range .items[*]}{.metadata.resourceVersion} {.reason}{"\n"}{end}' | sort -n
}
before=$(ds_events | tail -1 | cut -d' ' -f1)
k set image daemonset/agent c=busybox:1.36 >/dev/null
k rollout status daemonset/agent --timeout=60s >/dev/null || fail "surge rollout"
expect "surge: the first step creates" "SuccessfulCreate" "$(ds_events | awk -v b="$before" '$1 > b {print $2; exit}')"
until_equal "surge: all updated and available" "3 3" \
  k get daemonset agent -o jsonpath='{.status.updatedNumberScheduled} {.status.numberAvailable}'

# Claims as the retention policy says: owned by the set, then by the pod scaled away, and deleted
# by the collector with their owner (their kubernetes.io/pvc-protection finalizer may hold them).
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: store}
spec:
  serviceName: store
  replicas: 2
  selector: {matchLabels: {app: store}}
  persistentVolumeClaimRetentionPolicy: {whenScaled: Delete, whenDeleted: Delete}
  template:
    metadata: {labels: {app: store}}
    spec: {containers: [{name: c, image: nginx}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
YAML
until_equal "claims owned by the set" "StatefulSet/store StatefulSet/store" bash -c \
  "kubectl get pvc data-store-0 data-store-1 -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {end}' | xargs"
gone_or_going() {
  [[ -z $(kubectl get pvc "$1" -o name 2>/dev/null) ||
    -n $(kubectl get pvc "$1" -o jsonpath='{.metadata.deletionTimestamp}') ]] && echo yes
}
k scale statefulset store --replicas=1 >/dev/null
until_equal "scaled-away claim collected" "yes" gone_or_going data-store-1
[[ -z $(k get pvc data-store-0 -o jsonpath='{.metadata.deletionTimestamp}') ]] || fail "claim in range kept"
k delete statefulset store >/dev/null
until_equal "claim collected with its set" "yes" gone_or_going data-store-0

# Drain respects a PodDisruptionBudget and moves the ReplicaSet's pods off the node.
k create deployment api --image=nginx --replicas=3 >/dev/null
k rollout status deployment/api --timeout=40s >/dev/null || fail "api rollout"
k create pdb api --selector=app=api --min-available=2 >/dev/null
until_equal "pdb" "1" k get pdb api -o jsonpath='{.status.disruptionsAllowed}'
k drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout=60s >/dev/null 2>&1 || fail "drain"
[[ $(k get node node-1 -o jsonpath='{.spec.unschedulable}') == "true" ]] || fail "cordoned by drain"
until_equal "no api pod on node-1" "" bash -c \
  "kubectl get pods -l app=api -o jsonpath='{range .items[*]}{.spec.nodeName}{\"\\n\"}{end}' | grep -x node-1 || true"
until_equal "api back to 3 ready" "3" k get deployment api -o jsonpath='{.status.readyReplicas}'
[[ $(count k get clusterrole gc-left-alone) == 1 ]] || fail "cluster-scoped dependent left alone"
echo "workloads: ok"
