#!/usr/bin/env bash
# Storage object in-use protection with kubectl 1.32, as on a real cluster: the
# StorageObjectInUseProtection admission plugin puts kubernetes.io/pvc-protection on a claim and
# kubernetes.io/pv-protection on a volume; a claim a running pod uses stays Terminating until the
# pod is gone (the pvc-protection controller), an unused one and an unbound volume go at once.
# Run through with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: PersistentVolume
metadata: {name: disk}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /tmp/disk}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: spare}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: user}
spec:
  containers: [{name: app, image: nginx, volumeMounts: [{name: data, mountPath: /data}]}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
YAML
expect "claim finalizer" "kubernetes.io/pvc-protection" "$(k get pvc data -o jsonpath='{.metadata.finalizers[*]}')"
expect "volume finalizer" "kubernetes.io/pv-protection" "$(k get pv disk -o jsonpath='{.metadata.finalizers[*]}')"
until_equal "pod running" "Running" k get pod user -o jsonpath='{.status.phase}'

k delete pvc spare --timeout=20s >/dev/null || fail "an unused claim is deleted"
k delete pvc data --wait=false >/dev/null
sleep 1
[[ -n $(k get pvc data -o jsonpath='{.metadata.deletionTimestamp}') ]] || fail "the claim in use is gone"
expect "claim in use stays" "kubernetes.io/pvc-protection" "$(k get pvc data -o jsonpath='{.metadata.finalizers[*]}')"
gone=$(k delete pod user --grace-period=0 --force 2>&1) || fail "force delete of the pod: $gone"
until_equal "claim gone with its pod" "" k get pvc -o name
k delete pv disk --timeout=20s >/dev/null || fail "an unbound volume is deleted"
echo "volume protection: ok"
