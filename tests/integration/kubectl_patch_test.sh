#!/usr/bin/env bash
# Every way kubectl changes an object, against a sandbox: label/annotate, patch in the three
# client patch types, client-side apply, server-side apply with conflicts and force, diff, edit,
# scale, set image, apply -k and server-side dry runs. Run through with_sandbox.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k() { kubectl "$@"; }
out() { "$@" 2>&1 || true; }
jp() { kubectl get "$1" -o jsonpath="$2"; }

k create namespace patching >/dev/null
k config set-context --current --namespace=patching >/dev/null

# label and annotate: add, refuse to overwrite, overwrite, remove
k create configmap tags --from-literal=a=b >/dev/null
k label configmap tags tier=web >/dev/null
k annotate configmap tags note=hi >/dev/null
grep -q "already has a value" <<<"$(out k label configmap tags tier=db)" || fail "label without --overwrite"
k label configmap tags tier=db --overwrite >/dev/null
[[ $(jp configmap/tags '{.metadata.labels.tier}') == db ]] || fail "label --overwrite"
k label configmap tags tier- >/dev/null
k annotate configmap tags note- >/dev/null
[[ -z $(jp configmap/tags '{.metadata.labels.tier}{.metadata.annotations.note}') ]] || fail "key removal"

# kubectl patch in the three client types
cat >"$tmp/deploy.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        env:
        - {name: MODE, value: fast}
YAML
[[ $(k apply -f "$tmp/deploy.yaml") == "deployment.apps/web created" ]] || fail "apply: created"
[[ $(k apply -f "$tmp/deploy.yaml") == "deployment.apps/web unchanged" ]] || fail "apply: unchanged"
[[ $(k apply -f "$tmp/deploy.yaml") == "deployment.apps/web unchanged" ]] || fail "apply: unchanged twice"
sed -i 's/replicas: 2/replicas: 3/' "$tmp/deploy.yaml"
[[ $(k apply -f "$tmp/deploy.yaml") == "deployment.apps/web configured" ]] || fail "apply: configured"
[[ $(jp deployment/web '{.spec.replicas}') == 3 ]] || fail "apply did not set replicas"
k patch deployment web --type=json -p '[{"op":"replace","path":"/spec/replicas","value":1}]' >/dev/null
[[ $(jp deployment/web '{.spec.replicas}') == 1 ]] || fail "patch --type=json"
grep -q 'Invalid\|rejected' <<<"$(out k patch deployment web --type=json -p '[{"op":"test","path":"/spec/replicas","value":9}]')" \
  || fail "a failed json patch test is not a 422"
k patch deployment web --type=merge -p '{"spec":{"paused":true}}' >/dev/null
[[ $(jp deployment/web '{.spec.paused}') == true ]] || fail "patch --type=merge"
k patch deployment web --type=strategic \
  -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"LEVEL","value":"2"}]}]}}}}' >/dev/null
[[ $(jp deployment/web '{.spec.template.spec.containers[0].env[*].name}') == *MODE* ]] || fail "strategic patch lost env"
[[ $(jp deployment/web '{.spec.template.spec.containers[0].env[*].name}') == *LEVEL* ]] || fail "strategic patch did not merge env"
k set image deployment/web app=nginx:1.26 >/dev/null
[[ $(jp deployment/web '{.spec.template.spec.containers[0].image}') == nginx:1.26 ]] || fail "set image"
k scale deployment web --replicas=4 >/dev/null
[[ $(jp deployment/web '{.spec.replicas}') == 4 ]] || fail "scale"
k get --raw /apis/apps/v1/namespaces/patching/deployments/web/scale | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["kind"] == "Scale" and s["spec"]["replicas"] == 4 and s["status"]["selector"] == "app=web", s' \
  || fail "scale subresource"

# edit with a scripted editor
printf '#!/bin/sh\nsed -i "s/a: b/a: edited/" "$1"\n' >"$tmp/editor.sh"
chmod +x "$tmp/editor.sh"
EDITOR=$tmp/editor.sh k edit configmap tags >/dev/null
[[ $(jp configmap/tags '{.data.a}') == edited ]] || fail "edit"

# server-side apply: ownership, conflict, force, managedFields, diff
cat >"$tmp/ssa.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
data:
  a: "1"
  b: "2"
YAML
k apply --server-side -f "$tmp/ssa.yaml" >/dev/null
k patch configmap owned --type=merge -p '{"data":{"a":"changed"}}' >/dev/null
conflict=$(out k apply --server-side -f "$tmp/ssa.yaml")
grep -q 'conflict with "kubectl-patch"' <<<"$conflict" || fail "no conflict: $conflict"
grep -q '\.data\.a' <<<"$conflict" || fail "conflict names no field: $conflict"
k apply --server-side --force-conflicts -f "$tmp/ssa.yaml" >/dev/null || fail "--force-conflicts"
[[ $(jp configmap/owned '{.data.a}') == 1 ]] || fail "force did not take the field"
managers=$(k get configmap owned -o jsonpath='{.metadata.managedFields[*].manager}' --show-managed-fields)
[[ $managers == kubectl ]] || fail "managedFields after force: $managers"
set +e
k diff --server-side -f "$tmp/ssa.yaml" >/dev/null; same=$?
sed -i 's/b: "2"/b: "3"/' "$tmp/ssa.yaml"
k diff --server-side -f "$tmp/ssa.yaml" >/dev/null; changed=$?
set -e
[[ $same == 0 && $changed == 1 ]] || fail "diff --server-side exit codes: $same $changed"
sed -i '/b: "3"/d' "$tmp/ssa.yaml"
k apply --server-side -f "$tmp/ssa.yaml" >/dev/null
[[ -z $(jp configmap/owned '{.data.b}') ]] || fail "a field dropped from the applied config stayed"

# dry runs change nothing
k create configmap ghost --dry-run=server --from-literal=a=b >/dev/null || fail "create --dry-run=server"
! k get configmap ghost >/dev/null 2>&1 || fail "a dry-run create was stored"
k delete configmap tags --dry-run=server >/dev/null
k get configmap tags >/dev/null || fail "a dry-run delete deleted"
k scale deployment web --replicas=9 --dry-run=server >/dev/null
[[ $(jp deployment/web '{.spec.replicas}') == 4 ]] || fail "a dry-run scale changed replicas"

# apply -k (kustomize)
mkdir "$tmp/kustomize"
printf 'resources:\n- cm.yaml\nnamePrefix: k-\n' >"$tmp/kustomize/kustomization.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\ndata:\n  x: "1"\n' >"$tmp/kustomize/cm.yaml"
[[ $(k apply -k "$tmp/kustomize") == "configmap/k-base created" ]] || fail "apply -k"
[[ $(k apply -k "$tmp/kustomize") == "configmap/k-base unchanged" ]] || fail "apply -k twice"
echo "kubectl patch/apply: ok"
