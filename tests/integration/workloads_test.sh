#!/usr/bin/env bash
# The workload controllers and the garbage collector with kubectl 1.32, as on a real cluster: a
# Deployment's rollout, update, undo and scale; the three cascade modes; a Job to completion; a
# CronJob firing under --cron-clock-speed; StatefulSet ordinals; a DaemonSet pod per node; and a
# drain that respects a PodDisruptionBudget. Run through with_sandbox.sh (KUBECONFIG set).
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
echo "workloads: ok"
