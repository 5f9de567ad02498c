#!/usr/bin/env bash
# kubectl 1.32 against a sandbox, as a user types it. Run through with_sandbox.sh, which sets
# KUBECONFIG and passes it as the last argument.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k() { kubectl "$@"; }
# out CMD...: the command's stdout (so that grep -q cannot cut a pipe under pipefail).
out() { "$@" 2>&1 || true; }

# discovery
grep -qx v1 <<<"$(out k api-versions)" || fail "api-versions lacks v1"
grep -qx apps/v1 <<<"$(out k api-versions)" || fail "api-versions lacks apps/v1"
grep -q '^pods .*po .*v1 .*true .*Pod$' <<<"$(out k api-resources --no-headers)" || fail "api-resources pods row"
grep -q '^deployments .*deploy .*apps/v1 .*true .*Deployment$' <<<"$(out k api-resources --no-headers)" \
  || fail "api-resources deployments row"

# componentstatuses: computed on each request, with the deprecation warning
cs=$(out k get componentstatuses)
grep -q 'Warning: v1 ComponentStatus is deprecated in v1.19+' <<<"$cs" || fail "get cs warning: $cs"
for component in scheduler controller-manager etcd-0; do
  grep -q "^$component  *Healthy  *ok" <<<"$cs" || fail "get cs $component: $cs"
done
grep -q 'Component not found: kube-proxy' <<<"$(out k get cs kube-proxy)" || fail "get cs kube-proxy"

# create from a file, read back in every output format
cat >"$tmp/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {tier: web}
data:
  mode: fast
YAML
[[ $(k create -f "$tmp/cm.yaml") == "configmap/settings created" ]] || fail "create -f"
grep -q 'AlreadyExists\|already exists' <<<"$(out k create -f "$tmp/cm.yaml" 2>&1)" || fail "second create"
grep -q '^  mode: fast$' <<<"$(out k get configmap settings -o yaml)" || fail "-o yaml"
[[ $(k get configmap settings -o jsonpath='{.data.mode}') == fast ]] || fail "-o jsonpath"
[[ $(k get configmap settings -o name) == configmap/settings ]] || fail "-o name"
k get configmap settings -o json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["metadata"]["uid"]' \
  || fail "-o json"
grep -q '^settings ' <<<"$(out k get configmaps -l tier=web --no-headers)" || fail "-l"
[[ -z $(k get configmaps -l tier=db --no-headers 2>/dev/null) ]] || fail "-l tier=db matched"
grep -q '^settings ' <<<"$(out k get configmaps --field-selector metadata.name=settings --no-headers)" \
  || fail "--field-selector"

# paging
for i in 1 2 3 4 5; do k create configmap "page-$i" >/dev/null; done
[[ $(k get configmaps --chunk-size=2 --no-headers | wc -l) -ge 6 ]] || fail "--chunk-size"

# replace with a stale object: Conflict
k get configmap settings -o yaml >"$tmp/stale.yaml"
sed 's/mode: fast/mode: slow/' "$tmp/stale.yaml" >"$tmp/fresh.yaml"
[[ $(k replace -f "$tmp/fresh.yaml") == "configmap/settings replaced" ]] || fail "replace"
grep -q 'the object has been modified' <<<"$(out k replace -f "$tmp/stale.yaml" 2>&1)" || fail "stale replace"

# a value of the wrong type is refused (typed clients could not read it back)
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: typed}\ndata: {a: [1, 2]}\n' >"$tmp/typed.yaml"
grep -q 'cannot unmarshal array into Go struct field ConfigMap.data of type string' \
  <<<"$(out k create -f "$tmp/typed.yaml")" || fail "wrong type accepted by create"
grep -q 'not found' <<<"$(out k get configmap typed)" || fail "wrong type stored"
grep -q 'Invalid value.*cannot unmarshal number into Go struct field ConfigMap.data of type string' \
  <<<"$(out k patch configmap settings --type=merge -p '{"data":{"mode":7}}')" \
  || fail "wrong type accepted by patch"

# typed creates (protobuf bodies)
k create namespace team >/dev/null || fail "create namespace"
k create configmap -n team conf --from-literal=a=b >/dev/null || fail "create configmap"
k create secret generic -n team pass --from-literal=password=s3cret >/dev/null || fail "create secret"
[[ $(k get secret -n team pass -o jsonpath='{.data.password}' | base64 -d) == s3cret ]] || fail "secret data"
k create deployment -n team web --image=nginx --replicas=2 >/dev/null || fail "create deployment"
grep -qx RollingUpdate <<<"$(out k get deployment -n team web -o jsonpath='{.spec.strategy.type}')" || fail "deployment defaults"
k get all -n team >/dev/null || fail "get all"
grep -q '^team ' <<<"$(out k get configmaps -A --no-headers)" || fail "-A"

# what the controllers put in every namespace: the default ServiceAccount and the cluster CA
k wait --for=jsonpath='{.metadata.name}'=default -n team serviceaccount/default --timeout=10s >/dev/null \
  || fail "no default ServiceAccount in a new namespace"
grep -q 'BEGIN CERTIFICATE' <<<"$(k get configmap -n team kube-root-ca.crt -o jsonpath='{.data.ca\.crt}')" \
  || fail "no kube-root-ca.crt in a new namespace"
k delete serviceaccount -n team default >/dev/null
k wait --for=jsonpath='{.metadata.name}'=default -n team serviceaccount/default --timeout=10s >/dev/null \
  || fail "the default ServiceAccount was not recreated"

# wait, watch
k wait --for=jsonpath='{.data.a}'=b -n team configmap/conf --timeout=10s >/dev/null || fail "wait"
timeout 10 kubectl get configmaps -n team -w --output-watch-events --request-timeout=3s >"$tmp/watch.out" 2>&1 &
watch_pid=$!
sleep 1
k create configmap -n team late >/dev/null
wait $watch_pid || true
grep -q 'ADDED.*late' "$tmp/watch.out" || fail "get -w --output-watch-events: $(cat "$tmp/watch.out")"

# raw endpoints, explain, can-i
[[ $(k get --raw /healthz) == ok ]] || fail "/healthz"
k get --raw /openapi/v2 | python3 -c 'import json,sys; assert json.load(sys.stdin)["swagger"]' || fail "/openapi/v2"
k get --raw /openapi/v3 | python3 -c 'import json,sys; assert "apis/apps/v1" in json.load(sys.stdin)["paths"]' || fail "/openapi/v3"
k explain pods.spec.containers >/dev/null || fail "explain"
# the v2 form of explain reads /openapi/v2 as gnostic protobuf
grep -q 'FIELD: *replicas <integer>' <<<"$(k explain deployment.spec.replicas --output=plaintext-openapiv2)" ||
  fail "explain --output=plaintext-openapiv2"
[[ $(k auth can-i create pods) == yes ]] || fail "auth can-i"

# the trace of the create of configmap team/conf: each pipeline stage, then the store transaction
k get --raw '/debug/requests?verb=create&resource=configmaps&limit=200' | python3 -c '
import json, sys
items = [t for t in json.load(sys.stdin)["items"] if t["namespace"] == "team" and t["code"] == 201]
assert items, "no trace of the create"
t = items[0]
assert [s["stage"] for s in t["stages"]] == ["request info", "authentication", "authorization", "handler"], t
assert t["user"] == "kube-sandbox-admin", t
assert any(n["text"].startswith("txn if /registry/configmaps/team/conf absent then put") for n in t["notes"]), t
' || fail "/debug/requests"
# a request the server refuses from its header alone is traced too
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
[[ $(curl -sk -o /dev/null -w '%{http_code}' "$server/api/v1/namespaces/team/secrets") == 403 ]] || fail "anonymous list"
k get --raw '/debug/requests?user=system:anonymous&resource=secrets' | python3 -c '
import json, sys
t = json.load(sys.stdin)["items"][-1]
assert t["code"] == 403 and t["stages"][-1]["stage"] == "authorization", t
assert t["stages"][-1]["decision"].startswith("forbid"), t
' || fail "/debug/requests of a refused request"

# delete a namespace: its content goes, then the namespace
k delete namespace team --timeout=30s >/dev/null || fail "delete ns"
! k get namespace team >/dev/null 2>&1 || fail "namespace team still there"
echo "kubectl: ok"
