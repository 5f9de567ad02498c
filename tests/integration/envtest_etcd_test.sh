#!/usr/bin/env bash
# kube-sandbox linked as `etcd` in a directory of binaries, started exactly as
# controller-runtime's envtest starts etcd: it asks `etcd --help` for --unsafe-no-fsync, passes
# its four flags (and that one) as --flag=value, and waits for GET /health on the client URL.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=serve_lib.sh
source "$here/serve_lib.sh"
out=$tmp/etcd.out

assets=$tmp/assets
mkdir -p "$assets"
ln -s "$bin" "$assets/etcd"
"$assets/etcd" --help | grep -q -- '--unsafe-no-fsync' || fail "etcd --help names no --unsafe-no-fsync"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
"$assets/etcd" --listen-peer-urls=http://localhost:0 --advertise-client-urls="$url" \
  --listen-client-urls="$url" --data-dir="$tmp/etcd-data" --unsafe-no-fsync=true >"$out" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
  curl -sf "$url/health" >/dev/null 2>&1 && break
  kill -0 "${pids[-1]}" 2>/dev/null || fail "etcd exited"
  sleep 0.05
done
[[ $(curl -s "$url/health") == '{"health":"true","reason":""}' ]] || fail "/health"
etcdctl --endpoints="$url" put /envtest ok >/dev/null || fail "etcdctl put"
[[ $(etcdctl --endpoints="$url" get /envtest --print-value-only) == ok ]] || fail "etcdctl get"
kill -TERM "${pids[-1]}"
wait "${pids[-1]}" || fail "etcd exited $? on SIGTERM"
echo PASS
