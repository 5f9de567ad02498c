#!/usr/bin/env bash
# Fixture loading at start (`serve --fixtures`): the basics and rbac sets land before the server
# turns ready and read back through kubectl; a second start on the same data directory reports
# every object unchanged; the videoprocessor set's custom resources load once their CRD is
# Established (and again, unchanged, after a restart); the generated `many` set loads (scaled
# down); `seed` does the same through the REST API of a running sandbox; a bad document (an
# undeclared field, the second of three) is reported with its file:line and the server's reason,
# the others load, and the command exits 1.
set -uo pipefail
source "$(dirname "$0")/serve_lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
stop_last() {
  kill -TERM "${pids[-1]}"
  wait "${pids[-1]}" || fail "serve exited $? on SIGTERM"
  unset 'pids[-1]'
}
sets="$root/fixtures/basics,$root/fixtures/rbac"

# first start: everything created, visible once the ready file exists
out=$tmp/first.out
"$bin" serve --data-dir "$tmp/data" --secure-port 0 --ready-file "$tmp/ready1.json" --headless \
  --fixtures "$sets" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready1.json"
[[ $(grep -c ' created$' "$out") -eq 15 ]] || fail "expected 15 objects created"
grep -q 'basics/20-web.yaml:1: deployment.apps/web created' "$out" || fail "no file:line report"
export KUBECONFIG=$tmp/data/kubeconfig
[[ $(kubectl get deployment web -n demo -o jsonpath='{.spec.replicas}') == 2 ]] || fail "deployment"
[[ $(kubectl get secret web-credentials -n demo -o jsonpath='{.data.password}' | base64 -d) == not-a-real-password ]] ||
  fail "secret stringData was not folded into data"
[[ -n $(kubectl get service web -n demo -o jsonpath='{.spec.clusterIP}') ]] || fail "service has no clusterIP"
[[ $(kubectl get rolebinding deployer-can-deploy -n team-a -o jsonpath='{.roleRef.name}') == app-deployer ]] ||
  fail "rolebinding"
kubectl get clusterrole workload-viewer >/dev/null || fail "clusterrole"
stop_last

# second start on the same data: nothing changes
out=$tmp/second.out
"$bin" serve --data-dir "$tmp/data" --secure-port 0 --ready-file "$tmp/ready2.json" --headless \
  --fixtures "$sets" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready2.json"
[[ $(grep -c ' unchanged$' "$out") -eq 15 ]] || fail "a second load did not report 15 unchanged"
stop_last

# the generated `many` set, scaled down: namespaces first, then their ConfigMaps
python3 "$root/fixtures/many/generate.py" "$tmp/many" --count 200 --namespaces 4 || fail "generate.py"
out=$tmp/many.out
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready3.json" --headless \
  --fixtures "$tmp/many" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready3.json"
KUBECONFIG=$(json "$tmp/ready3.json" '["kubeconfig"]')
export KUBECONFIG
[[ $(kubectl get configmaps -A -l shard=3 -o name | wc -l) -eq 20 ]] || fail "many: 20 ConfigMaps with shard=3"
[[ $(kubectl get configmap item-0049 -n many-003 -o jsonpath='{.data.index}') == 199 ]] || fail "many: last item"
stop_last

# a CRD and its custom resources: the loader waits for the CRD to be Established; on a restart
# the kind is served again before readiness, and every object is unchanged
for run in 1 2; do
  out=$tmp/crd$run.out
  "$bin" serve --data-dir "$tmp/crd" --secure-port 0 --ready-file "$tmp/ready-crd$run.json" --headless \
    --fixtures "$root/fixtures/videoprocessor" >"$out" 2>&1 &
  pids+=($!)
  wait_for "$tmp/ready-crd$run.json"
  want=$([[ $run == 1 ]] && echo created || echo unchanged)
  [[ $(grep -c " $want\$" "$out") -eq 4 ]] || fail "videoprocessor run $run: expected 4 $want: $(cat "$out")"
  grep -q "videoprocessor/20-processors.yaml:13: videoprocessor.media.example.com/thumbnails $want" "$out" ||
    fail "videoprocessor run $run: no report for thumbnails: $(cat "$out")"
  [[ $(KUBECONFIG=$tmp/crd/kubeconfig kubectl get vp thumbnails -n media -o jsonpath='{.spec.replicas}') == 1 ]] ||
    fail "videoprocessor run $run: the schema's default replicas"
  stop_last
done

# seed: the same through the REST API of a running sandbox, with its kubeconfig
out=$tmp/seeded.out
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready4.json" --headless >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready4.json"
kc=$(json "$tmp/ready4.json" '["kubeconfig"]')
seeded=$("$bin" seed "$root/fixtures/basics" --kubeconfig "$kc") || fail "seed exited $?: $seeded"
[[ $(grep -c ' created$' <<<"$seeded") -eq 5 ]] || fail "seed: expected 5 created: $seeded"
seeded=$(KUBECONFIG=$kc "$bin" seed "$root/fixtures/basics") || fail "second seed exited $?"
[[ $(grep -c ' unchanged$' <<<"$seeded") -eq 5 ]] || fail "second seed: expected 5 unchanged: $seeded"
[[ $(KUBECONFIG=$kc kubectl get deployment web -n demo -o jsonpath='{.spec.replicas}') == 2 ]] ||
  fail "seed: deployment not visible to kubectl"
cat >"$tmp/bad-seed.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: fine
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: wrong
data: {a: b}
notAField: 1
YAML
seeded=$("$bin" seed "$tmp/bad-seed.yaml" --kubeconfig "$kc"); code=$?
[[ $code -eq 1 ]] || fail "seed of a bad document exited $code"
grep -q "bad-seed.yaml:6: configmap/wrong failed: .*notAField: field not declared in schema" <<<"$seeded" ||
  fail "seed: bad document not reported: $seeded"
grep -q "bad-seed.yaml:1: configmap/fine created" <<<"$seeded" || fail "seed: good document not applied"
missing=$("$bin" seed "$tmp/bad-seed.yaml" --kubeconfig "$tmp/none" 2>&1); code=$?
[[ $code -eq 1 && $missing == *"cannot be read"* ]] || fail "seed without a kubeconfig: $code $missing"
stop_last

# a bad document: reported with file:line and reason; the others load; exit 1
cat >"$tmp/three.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  a: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: second
spec:
  replicas: 3
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: third
YAML
out=$tmp/bad.out
"$bin" serve --data-dir "$tmp/bad" --secure-port 0 --headless --fixtures "$tmp/three.yaml" \
  >"$out" 2>&1
code=$?
[[ $code -eq 1 ]] || fail "serve with a bad fixture exited $code"
grep -q "three.yaml:8: configmap/second failed: .*\.spec: field not declared in schema" "$out" ||
  fail "the bad document is not reported with file:line and reason"
grep -q "three.yaml:1: configmap/first created" "$out" || fail "first document not loaded"
grep -q "three.yaml:15: configmap/third created" "$out" || fail "third document not loaded"
grep -q "some fixtures did not load" "$out" || fail "no summary of the failure"
echo "fixtures: ok"
