#!/usr/bin/env bash
# Events expire as kube-apiserver's do (--event-ttl, here 4s): an event is deleted the TTL after
# its last write, whether a client or a controller wrote it, and each update starts the TTL
# again. Run through with_sandbox.sh with serve --event-ttl=4s (KUBECONFIG set).
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
event() {  # event NAME
  kubectl create -f - >/dev/null <<YAML
apiVersion: v1
kind: Event
metadata: {name: $1}
involvedObject: {kind: ConfigMap, name: settings, namespace: default, apiVersion: v1}
reason: Checked
message: settings looked at
type: Normal
source: {component: tester}
count: 1
YAML
}
exists() { kubectl get event "$1" -o name 2>/dev/null || true; }

k create configmap settings --from-literal=a=b >/dev/null
event once
event kept
expect "kubectl get events" "Normal Checked configmap/settings settings looked at" \
  "$(k get events --field-selector metadata.name=once --no-headers | awk '{$1=""; print}' | xargs)"

# "kept" is written again every second, "once" never: "once" goes after the TTL, "kept" stays.
(
  for i in $(seq 2 60); do
    kubectl patch event kept --type=merge -p "{\"count\":$i}" >/dev/null 2>&1 || exit 0
    sleep 1
  done
) &
refresher=$!
until_equal "the event expires" "" exists once
expect "an updated event lives on" "event/kept" "$(exists kept)"
[[ $(k get event kept -o jsonpath='{.count}') -ge 3 ]] || fail "kept was updated"
kill "$refresher"
wait "$refresher" 2>/dev/null || true
until_equal "the updated event expires after its last update" "" exists kept

# The cluster's own events too: a pod's scheduling and kubelet events go after the TTL.
k run short --image=nginx >/dev/null
until_equal "scheduler's event" "Scheduled" \
  k get events --field-selector involvedObject.name=short,reason=Scheduled -o jsonpath='{.items[0].reason}'
until_equal "the cluster's events expire" "" bash -c \
  "kubectl get events --field-selector involvedObject.name=short,reason=Scheduled -o name"
expect "the pod itself stays" "pod/short" "$(k get pod short -o name)"
echo "events: ok"
