#!/usr/bin/env bash
# Makes docs/images/console.png: a sandbox seeded with fixtures/basics and a few deployments, the
# console scripted to show them while kubectl changes some (with a few kinds pinned as
# favourites, and the scale-up of demo/api opened from the watch events as a diff), and the frame
# saved at 1280x800.
#   docs/images/console-screenshot.sh KUBE_SANDBOX_BINARY
# Needs xvfb-run, kubectl and ImageMagick's convert (to shrink the PNG to 256 colours).
set -euo pipefail
bin=${1:?usage: $0 KUBE_SANDBOX_BINARY}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

"$bin" serve --ephemeral --headless --secure-port 0 --ready-file "$tmp/ready.json" \
  --fixtures "$root/fixtures/basics" >"$tmp/serve.out" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [[ -s $tmp/ready.json ]] && break; sleep 0.05; done
KUBECONFIG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kubeconfig"])' \
  "$tmp/ready.json")
export KUBECONFIG
for d in api:3 worker:2 cache:1 frontend:4 batch-runner:1; do
  kubectl create deployment "${d%%:*}" -n demo --image="registry.example/${d%%:*}:1.4" \
    --replicas="${d##*:}" >/dev/null
done

cat >"$tmp/script.txt" <<EOF
timeout 30
favourite deployments on
favourite services on
favourite configmaps on
select-kind deployments
namespace demo
wait-rows 6
dump-state $tmp/opened.json
wait-event ADDED deployments demo/payments
wait-event MODIFIED deployments demo/api
wait-event DELETED deployments demo/batch-runner
open demo/api
sort Name
select-event MODIFIED deployments demo/api
frames 5
screenshot console
EOF
LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1400x900x24" "$bin" console \
  --window-size 1280x800 --script "$tmp/script.txt" --screenshot-dir "$tmp" &
console=$!
for _ in $(seq 1 400); do [[ -s $tmp/opened.json ]] && break; sleep 0.05; done
kubectl create deployment payments -n demo --image=registry.example/payments:2.0 --replicas=2 \
  >/dev/null
kubectl scale deployment api -n demo --replicas=5 >/dev/null
kubectl delete deployment batch-runner -n demo >/dev/null
wait "$console"
convert "$tmp/console.png" -dither None -colors 256 -define png:compression-level=9 -strip \
  "$root/docs/images/console.png"
echo "wrote docs/images/console.png"
