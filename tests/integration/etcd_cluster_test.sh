#!/usr/bin/env bash
# The store in a real etcd cluster: three etcd 3.4 members (with_etcd_cluster.sh) on loopback,
# serve --etcd-servers naming all three, driven with kubectl and etcdctl. Every acknowledged write is read
# back after one member is killed, and after serve restarts on the same cluster.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=serve_lib.sh
source "$here/serve_lib.sh"
out=$tmp/serve.out
endpoints=${KS_ETCD_ENDPOINTS:?run it through with_etcd_cluster.sh}
read -r -a members <<<"${KS_ETCD_PIDS:?}"
IFS=, read -r -a urls <<<"$endpoints"

serve_ready first --etcd-servers "$endpoints" --etcd-prefix /registry --nodes=0 --controllers=
first_serve=${pids[-1]}
grep -q "etcd v3 API" "$out" && fail "serve opened an etcd endpoint of its own for a cluster"
kubectl create configmap before --from-literal=a=1 >/dev/null
[[ $(etcdctl --endpoints="$endpoints" get /registry/configmaps/default/before --print-value-only) \
  == *'"a":"1"'* ]] || fail "the ConfigMap is not in the etcd cluster"
rv=$(kubectl get configmap before -o jsonpath='{.metadata.resourceVersion}')
mod=$(etcdctl --endpoints="$endpoints" get /registry/configmaps/default/before -w json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
[[ $rv == "$mod" ]] || fail "resourceVersion $rv, etcd mod_revision $mod"

# Named snapshots need the embedded store: the server says so (a 400 with the reason).
if kubectl create --raw /admin/snapshots/before -f <(echo '{}') >"$tmp/snapshot.out" 2>&1; then
  fail "a named snapshot was taken of an etcd cluster"
fi
grep -q 'named snapshots need the embedded store' "$tmp/snapshot.out" ||
  fail "snapshot refusal: $(cat "$tmp/snapshot.out")"

# A watch sees a write; then one member (the first, the one serve talks to) is killed.
kubectl get configmaps --watch-only -o name >"$tmp/watch.out" 2>&1 &
watcher=$!
pids+=("$watcher")
sleep 1
kubectl create configmap watched >/dev/null
for _ in $(seq 1 100); do grep -q configmap/watched "$tmp/watch.out" && break; sleep 0.05; done
grep -q configmap/watched "$tmp/watch.out" || fail "the watch saw no event"
kill "$watcher"

kill -9 "${members[0]}"
acked=()
for i in $(seq 1 20); do
  if kubectl create configmap "after-$i" --from-literal=i="$i" >/dev/null 2>&1; then
    acked+=("after-$i")
  fi
done
[[ ${#acked[@]} -ge 15 ]] || fail "only ${#acked[@]} of 20 writes succeeded with one member down"
for name in "${acked[@]}"; do
  kubectl get configmap "$name" >/dev/null 2>&1 || fail "acknowledged $name was lost"
done

# serve restarts on the two members left: everything acknowledged is still there.
kill -TERM "$first_serve" 2>/dev/null || true
out=$tmp/serve2.out
rest="${urls[1]},${urls[2]}"
serve_ready second --etcd-servers "$rest" --nodes=0 --controllers=
for name in before watched "${acked[@]}"; do
  kubectl get configmap "$name" >/dev/null 2>&1 || fail "$name missing after the restart"
done
echo PASS
