#!/usr/bin/env bash
# ResourceQuota with kubectl 1.32, as on a real cluster: `kubectl create quota`, the
# resourcequota-controller's status.hard and status.used (pods and their requests and limits,
# object counts), usage that follows pods created and deleted, and what `kubectl get quota` and
# `kubectl describe quota` print. ResourceQuota admission refuses a create over the quota, or a
# pod that leaves out a resource the quota tracks, with kube-apiserver's messages, and charges
# each create to status.used at once (object counts too, which the controller only recounts on
# a pod change or every 30 s). Run through with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
ns=team
used() { kubectl get quota compute -n "$ns" -o jsonpath='{.status.used}'; }
# A pod asking for 300m/256Mi and limited to 500m/512Mi.
sized_pod() {
  kubectl run "$1" -n "$ns" --image=nginx --overrides='{"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"300m","memory":"256Mi"},"limits":{"cpu":"500m","memory":"512Mi"}}}]}}' >/dev/null
}

k create namespace "$ns" >/dev/null
hard="pods=3,requests.cpu=1,requests.memory=1Gi,limits.cpu=2,limits.memory=2Gi,configmaps=3,secrets=4,services=2,count/deployments.apps=1"
expect "create quota" "resourcequota/compute created" "$(k create quota compute -n "$ns" --hard="$hard")"
spec_hard='{"configmaps":"3","count/deployments.apps":"1","limits.cpu":"2","limits.memory":"2Gi","pods":"3","requests.cpu":"1","requests.memory":"1Gi","secrets":"4","services":"2"}'
expect "spec.hard" "$spec_hard" "$(k get quota compute -n "$ns" -o jsonpath='{.spec.hard}')"
# The namespace's own ConfigMap (kube-root-ca.crt) counts.
until_equal "status filled" "$spec_hard"'/{"configmaps":"1","count/deployments.apps":"0","limits.cpu":"0","limits.memory":"0","pods":"0","requests.cpu":"0","requests.memory":"0","secrets":"0","services":"0"}' \
  k get quota compute -n "$ns" -o jsonpath='{.status.hard}/{.status.used}'

# kubectl describe prints status.used against status.hard, sorted by name.
expect "describe quota" "Name:                   compute
Namespace:              $ns
Resource                Used  Hard
--------                ----  ----
configmaps              1     3
count/deployments.apps  0     1
limits.cpu              0     2
limits.memory           0     2Gi
pods                    0     3
requests.cpu            0     1
requests.memory         0     1Gi
secrets                 0     4
services                0     2" "$(k describe quota compute -n "$ns")"

# Pods add their requests and limits; the objects made before them are counted with them.
k create configmap settings -n "$ns" --from-literal=a=b >/dev/null
k create secret generic token -n "$ns" --from-literal=a=b >/dev/null
k create service clusterip api -n "$ns" --tcp=80:80 >/dev/null
sized_pod one
until_equal "one pod" '{"configmaps":"2","count/deployments.apps":"0","limits.cpu":"500m","limits.memory":"512Mi","pods":"1","requests.cpu":"300m","requests.memory":"256Mi","secrets":"1","services":"1"}' used
sized_pod two
until_equal "two pods" '"limits.cpu":"1","limits.memory":"1Gi","pods":"2","requests.cpu":"600m","requests.memory":"512Mi"' \
  bash -c "kubectl get quota compute -n $ns -o jsonpath='{.status.used}' | grep -o '\"limits.cpu.*requests.memory\":\"[^\"]*\"'"

# kubectl get: the requests and limits columns, each "name: used/hard", sorted.
expect "get quota header" "NAME REQUEST LIMIT AGE" "$(k get quota -n "$ns" | head -1 | xargs)"
expect "get quota row" "compute|configmaps: 2/3, count/deployments.apps: 0/1, pods: 2/3, requests.cpu: 600m/1, requests.memory: 512Mi/1Gi, secrets: 1/4, services: 1/2|limits.cpu: 1/2, limits.memory: 1Gi/2Gi" \
  "$(k get quota -n "$ns" --no-headers | sed -E 's/  +/|/g; s/\|[^|]*$//')"

# Admission: a pod must state every compute resource the quota tracks.
expect "failed quota" 'Error from server (Forbidden): pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: bare; limits.memory for: bare; requests.cpu for: bare; requests.memory for: bare' \
  "$(out k run bare -n "$ns" --image=nginx)"
# An object is charged at once, and the one over the quota is refused.
k create configmap extra -n "$ns" --from-literal=a=b >/dev/null
expect "configmap charged at once" "3" "$(k get quota compute -n "$ns" -o jsonpath='{.status.used.configmaps}')"
expect "configmap over quota" 'error: failed to create configmap: configmaps "over" is forbidden: exceeded quota: compute, requested: configmaps=1, used: configmaps=3, limited: configmaps=3' \
  "$(out k create configmap over -n "$ns" --from-literal=a=b)"
k delete configmap extra -n "$ns" >/dev/null

# A Deployment counts as one, its pods as theirs.
k apply -n "$ns" -f - >/dev/null <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: nginx
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 100m, memory: 64Mi}}
EOF
until_equal "deployment counted" '1/3' \
  k get quota compute -n "$ns" -o jsonpath='{.status.used.count/deployments\.apps}/{.status.used.pods}'
# The quota is full: the next pod is refused with kube-apiserver's message, a second Deployment
# too.
expect "pod over quota" 'Error from server (Forbidden): pods "three" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3' \
  "$(out sized_pod three)"
expect "deployment over quota" 'error: failed to create deployment: deployments.apps "more" is forbidden: exceeded quota: compute, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1' \
  "$(out k create deployment more -n "$ns" --image=nginx)"

# Deleting gives the usage back.
k delete deployment web -n "$ns" >/dev/null
k delete pod one two -n "$ns" --wait=false >/dev/null
until_equal "usage released" '{"configmaps":"2","count/deployments.apps":"0","limits.cpu":"0","limits.memory":"0","pods":"0","requests.cpu":"0","requests.memory":"0","secrets":"1","services":"1"}' used

# Quantities add up in the format they were given in: decimal stays decimal ("1500M").
for pod in d1 d2; do
  k run "$pod" -n "$ns" --image=nginx --overrides='{"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"400m","memory":"450M"},"limits":{"cpu":"1","memory":"1G"}}}]}}' >/dev/null
done
until_equal "decimal sums" "800m 900M 2 2G" \
  k get quota compute -n "$ns" -o jsonpath='{.status.used.requests\.cpu} {.status.used.requests\.memory} {.status.used.limits\.cpu} {.status.used.limits\.memory}'
k delete pod d1 d2 -n "$ns" --wait=false >/dev/null
until_equal "decimal pods gone" "0" k get quota compute -n "$ns" -o jsonpath='{.status.used.pods}'

# A pod that finished holds no quota.
k run finished -n "$ns" --image=busybox --restart=Never --annotations=kube-sandbox.io/run-seconds=1 \
  --overrides='{"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"100m","memory":"64Mi"}}}]}}' >/dev/null
until_equal "finished pod" "Succeeded 0 0" \
  bash -c "echo \$(kubectl get pod finished -n $ns -o jsonpath='{.status.phase}') \$(kubectl get quota compute -n $ns -o jsonpath='{.status.used.pods} {.status.used.requests\\.cpu}')"

# Editing spec.hard is reflected in status.hard.
k patch quota compute -n "$ns" --type=merge -p '{"spec":{"hard":{"pods":"10"}}}' >/dev/null
until_equal "hard follows spec" "10" k get quota compute -n "$ns" -o jsonpath='{.status.hard.pods}'
# Claims per storage class: the controller fills the class's names, admission charges and
# refuses them.
gold=gold.storageclass.storage.k8s.io
k create quota storage -n "$ns" --hard="requests.storage=10Gi,$gold/requests.storage=3Gi,$gold/persistentvolumeclaims=2" >/dev/null
until_equal "class names filled" "{\"$gold/persistentvolumeclaims\":\"0\",\"$gold/requests.storage\":\"0\",\"requests.storage\":\"0\"}" \
  k get quota storage -n "$ns" -o jsonpath='{.status.used}'
claim() {
  printf '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"%s"},"spec":{"storageClassName":"gold","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"%s"}}}}' "$1" "$2" |
    kubectl create -n "$ns" -f - 2>&1 || true
}
expect "claim created" "persistentvolumeclaim/data created" "$(claim data 2Gi)"
expect "claim charged" "{\"$gold/persistentvolumeclaims\":\"1\",\"$gold/requests.storage\":\"2Gi\",\"requests.storage\":\"2Gi\"}" \
  "$(k get quota storage -n "$ns" -o jsonpath='{.status.used}')"
expect "claim over the class's storage" "Error from server (Forbidden): error when creating \"STDIN\": persistentvolumeclaims \"more\" is forbidden: exceeded quota: storage, requested: $gold/requests.storage=2Gi, used: $gold/requests.storage=2Gi, limited: $gold/requests.storage=3Gi" \
  "$(claim more 2Gi)"
# A scoped quota counts only the pods in its scope, in admission and in the controller alike.
k create namespace scoped >/dev/null
k create quota best-effort -n scoped --hard=pods=1 --scopes=BestEffort >/dev/null
until_equal "scoped quota filled" '{"pods":"0"}' k get quota best-effort -n scoped -o jsonpath='{.status.used}'
k run be -n scoped --image=nginx >/dev/null
k run sized -n scoped --image=nginx --overrides='{"spec":{"containers":[{"name":"sized","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}' >/dev/null
until_equal "scoped pods" "Running Running" \
  bash -c "echo \$(kubectl get pod be sized -n scoped -o jsonpath='{.items[*].status.phase}')"
expect "only the BestEffort pod counts" '{"pods":"1"}' "$(k get quota best-effort -n scoped -o jsonpath='{.status.used}')"
expect "second BestEffort pod refused" 'Error from server (Forbidden): pods "be2" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1' \
  "$(out k run be2 -n scoped --image=nginx)"
echo "quota: ok"
