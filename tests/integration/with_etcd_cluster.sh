#!/usr/bin/env bash
# Runs a command beside a fresh 3-member etcd 3.4 cluster (Debian's etcd-server) on loopback:
# exports KS_ETCD_ENDPOINTS (the members' client URLs, comma-separated), KS_ETCD_PIDS (their
# process IDs, space-separated) and KS_SERVE_FLAGS += --etcd-servers, so that with_sandbox.sh
# starts serve on the cluster. Stops the members afterwards.
#   with_etcd_cluster.sh COMMAND [ARGS...]
set -euo pipefail
command -v etcd >/dev/null || { echo "etcd is not installed (Debian: etcd-server)" >&2; exit 1; }
tmp=$(mktemp -d)
members=()
cleanup() {
  for p in "${members[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
declare -A client peer
cluster=
for n in m1 m2 m3; do
  client[$n]=$(free_port)
  peer[$n]=$(free_port)
  cluster+="${cluster:+,}$n=http://127.0.0.1:${peer[$n]}"
done
endpoints=
for n in m1 m2 m3; do
  etcd --name "$n" --data-dir "$tmp/$n" --initial-cluster "$cluster" \
    --initial-cluster-state new --initial-cluster-token ks-test \
    --listen-client-urls "http://127.0.0.1:${client[$n]}" \
    --advertise-client-urls "http://127.0.0.1:${client[$n]}" \
    --listen-peer-urls "http://127.0.0.1:${peer[$n]}" \
    --initial-advertise-peer-urls "http://127.0.0.1:${peer[$n]}" >"$tmp/$n.log" 2>&1 &
  members+=($!)
  endpoints+="${endpoints:+,}http://127.0.0.1:${client[$n]}"
done
for _ in $(seq 1 200); do
  etcdctl --endpoints="$endpoints" endpoint health >/dev/null 2>&1 && break
  sleep 0.1
done
etcdctl --endpoints="$endpoints" endpoint health >/dev/null 2>&1 ||
  { echo "the etcd cluster did not turn healthy" >&2; cat "$tmp"/m*.log >&2; exit 1; }
export KS_ETCD_ENDPOINTS=$endpoints
export KS_ETCD_PIDS="${members[*]}"
export KS_SERVE_FLAGS="${KS_SERVE_FLAGS:-} --etcd-servers=$endpoints"
status=0
"$@" || status=$?
exit $status
