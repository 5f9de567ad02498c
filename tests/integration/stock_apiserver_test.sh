#!/usr/bin/env bash
# A stock kube-apiserver and kube-sandbox on one store, one after the other: `kube-sandbox etcd`
# holds it; kube-sandbox (kube-apiserver mode, protobuf storage) writes objects, a stock
# kube-apiserver reads them back and writes its own (protobuf, its default), then kube-sandbox
# reads those. Each API server is started by with_envtest.sh (envtest's flags and certificates).
# Needs KS_STOCK_KUBE_APISERVER (a kube-apiserver binary, e.g. v1.20.2 built by the reference
# scripts); without it the test is skipped (exit 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stock=${KS_STOCK_KUBE_APISERVER:-}
if [[ -z $stock ]]; then
  echo "SKIP: KS_STOCK_KUBE_APISERVER names no kube-apiserver binary"
  exit 77
fi
# shellcheck source=serve_lib.sh
source "$here/serve_lib.sh"
out=$tmp/etcd.out
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export ENVTEST_ETCD_URL=http://127.0.0.1:$port
"$bin" etcd --data-dir "$tmp/store" --listen-client-urls "$ENVTEST_ETCD_URL" >"$out" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do curl -sf "$ENVTEST_ETCD_URL/health" >/dev/null && break; sleep 0.05; done

# What a phase reads: one line per object, `kind/name uid resourceVersion data replicas ports`.
cat >"$tmp/read_back.sh" <<'EOF'
for o in configmap/from-sandbox secret/from-sandbox deployment/from-sandbox service/from-sandbox \
  configmap/from-stock deployment/from-stock; do
  kubectl get -n default "$o" -o json 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)
spec = o.get("spec", {})
print(sys.argv[1], o["metadata"]["uid"], o["metadata"]["resourceVersion"],
      json.dumps(o.get("data"), sort_keys=True), spec.get("replicas"),
      json.dumps([{k: p.get(k) for k in ("port", "targetPort", "protocol")}
                  for p in spec.get("ports", [])]))' "$o" 2>/dev/null || echo "$o missing"
done
EOF
cat >"$tmp/sandbox_writes.sh" <<'EOF'
set -e
kubectl create configmap from-sandbox --from-literal=a=b >/dev/null
kubectl create secret generic from-sandbox --from-literal=p=s3cret >/dev/null
kubectl create deployment from-sandbox --image=nginx --replicas=2 >/dev/null
kubectl create service clusterip from-sandbox --tcp=80:8080 >/dev/null
etcdctl --endpoints="$ETCD_URL" get /registry/configmaps/default/from-sandbox --print-value-only |
  head -c 3 | grep -qx k8s || { echo "not stored as protobuf" >&2; exit 1; }
EOF
cat >"$tmp/stock_writes.sh" <<'EOF'
set -e
kubectl create configmap from-stock --from-literal=c=d >/dev/null
kubectl create deployment from-stock --image=nginx --replicas=3 >/dev/null
EOF
phase() {  # phase NAME BINARY COMMANDS
  ENVTEST_KUBE_APISERVER=$2 bash "$here/with_envtest.sh" bash -c "$3" || fail "phase $1"
}
phase sandbox-writes "$bin" "bash $tmp/sandbox_writes.sh && bash $tmp/read_back.sh >$tmp/sandbox-1"
phase stock-reads-and-writes "$stock" \
  "bash $tmp/read_back.sh >$tmp/stock-1 && bash $tmp/stock_writes.sh && bash $tmp/read_back.sh >$tmp/stock-2"
# v1.20 stores EndpointSlices, FlowSchemas and PriorityLevelConfigurations at versions v1.32 no
# longer has (discovery.k8s.io/v1beta1, flowcontrol.apiserver.k8s.io/v1beta1): no v1.32 server
# reads them, so they go, as a storage migration before such an upgrade would rewrite them.
for prefix in endpointslices flowschemas prioritylevelconfigurations; do
  etcdctl --endpoints="$ENVTEST_ETCD_URL" del "/registry/$prefix/" --prefix >/dev/null
done
phase sandbox-reads "$bin" "bash $tmp/read_back.sh >$tmp/sandbox-2"

# The stock server reads what kube-sandbox stored as kube-sandbox does (same uid, revision, data)
diff <(head -4 "$tmp/sandbox-1") <(head -4 "$tmp/stock-1") >&2 ||
  fail "the stock kube-apiserver reads kube-sandbox's objects differently"
# and kube-sandbox reads everything as the stock server does, its protobuf objects included.
diff "$tmp/stock-2" "$tmp/sandbox-2" >&2 || fail "kube-sandbox reads the stock kube-apiserver's objects differently"
if grep missing "$tmp/sandbox-2" >&2; then fail "objects missing"; fi
echo PASS
