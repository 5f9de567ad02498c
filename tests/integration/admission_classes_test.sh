#!/usr/bin/env bash
# The default-on admission plugins that fill in classes, with kubectl 1.32 as on a real cluster:
# DefaultStorageClass and StorageObjectInUseProtection on a claim, PersistentVolumeClaimResize
# refusing to grow a bound claim whose class does not allow it (and allowing it where the class
# does), RuntimeClass setting a pod's overhead and node selector (and refusing a class that does
# not exist), DefaultIngressClass on an Ingress; the messages are upstream's. Run through
# with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

k apply -f - >/dev/null <<'YAML'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/disk
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: elastic}
provisioner: example.com/disk
allowVolumeExpansion: true
YAML
claim() {  # name [storageClassName]
  cat <<YAML
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $1}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
${2:+  storageClassName: $2}
YAML
}
claim data | k create -f - >/dev/null
expect "default class and protection" "standard kubernetes.io/pvc-protection" \
  "$(k get pvc data -o jsonpath='{.spec.storageClassName} {.metadata.finalizers[0]}')"
grep -qE '^data +Pending +standard ' <<<"$(k get pvc data --no-headers)" ||
  fail "pvc row: $(k get pvc data)"
# The request's trace says which plugin set what, and why.
trace=$(k get --raw '/debug/requests?verb=create&resource=persistentvolumeclaims&limit=1')
grep -qF 'DefaultStorageClass: set spec.storageClassName; the default StorageClass is \"standard\"' \
  <<<"$trace" || fail "trace: $trace"
grep -qF 'StorageObjectInUseProtection: set metadata.finalizers; kubernetes.io/pvc-protection' \
  <<<"$trace" || fail "trace: $trace"
expect "grow while pending" 'Error from server (Forbidden): persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded' \
  "$(out k patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}')"
# No binder runs here: the claims are marked Bound through /status, as the binder would.
k patch pvc data --subresource=status --type=merge -p '{"status":{"phase":"Bound"}}' >/dev/null
expect "grow without expansion" 'Error from server (Forbidden): persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize' \
  "$(out k patch pvc data -p '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}')"
claim grows elastic | k create -f - >/dev/null
k patch pvc grows --subresource=status --type=merge -p '{"status":{"phase":"Bound"}}' >/dev/null
expect "grow with expansion" "persistentvolumeclaim/grows patched" \
  "$(out k patch pvc grows -p '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}')"
expect "grown" "2Gi" "$(k get pvc grows -o jsonpath='{.spec.resources.requests.storage}')"

k apply -f - >/dev/null <<'YAML'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead:
  podFixed: {cpu: 250m, memory: 120Mi}
scheduling:
  nodeSelector: {sandbox.example.com/runtime: gvisor}
  tolerations:
  - {key: sandbox.example.com/runtime, operator: Exists, effect: NoSchedule}
YAML
k run sandboxed --image=nginx --overrides='{"spec":{"runtimeClassName":"gvisor"}}' >/dev/null
expect "runtime class applied" "250m 120Mi gvisor sandbox.example.com/runtime" \
  "$(k get pod sandboxed -o jsonpath='{.spec.overhead.cpu} {.spec.overhead.memory} {.spec.nodeSelector.sandbox\.example\.com/runtime} {.spec.tolerations[?(@.effect=="NoSchedule")].key}')"
expect "missing runtime class" 'Error from server (Forbidden): pods "kata" is forbidden: pod rejected: RuntimeClass "kata" not found' \
  "$(out k run kata --image=nginx --overrides='{"spec":{"runtimeClassName":"kata"}}')"
expect "node selector conflict" 'Error from server (Forbidden): pods "elsewhere" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.example.com/runtime] = gvisor; pod.spec.nodeSelector[sandbox.example.com/runtime] = runc' \
  "$(out k run elsewhere --image=nginx --overrides='{"spec":{"runtimeClassName":"gvisor","nodeSelector":{"sandbox.example.com/runtime":"runc"}}}')"

k apply -f - >/dev/null <<'YAML'
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec: {controller: example.com/ingress-nginx}
YAML
k create ingress web --rule='example.com/=web:80' >/dev/null
expect "default ingress class" "nginx" "$(k get ingress web -o jsonpath='{.spec.ingressClassName}')"
k create ingress chosen --class=other --rule='example.com/=web:80' >/dev/null
expect "named ingress class" "other" "$(k get ingress chosen -o jsonpath='{.spec.ingressClassName}')"
echo "admission classes: ok"
