#!/usr/bin/env bash
# The aggregation layer with kubectl 1.32 and a test extension API server over HTTPS
# (extension_server.py, certificates made with the openssl CLI): the local APIServices of the
# built-in groups and of a CRD, the extension-apiserver-authentication ConfigMap, an APIService
# for the extension reached through a selector-less Service and hand-written Endpoints, Available
# True once its discovery answers, kubectl get, api-resources, explain and discovery through it, a
# watch streamed,
# the identity headers the extension receives over the front-proxy client certificate
# (impersonated too), the delegation in /debug/requests, then Available=False with
# FailedDiscoveryCheck and 503 `service unavailable` once the extension stops. Run through
# with_sandbox.sh.
set -euo pipefail
export LC_ALL=C
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

dir=$(mktemp -d)
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect WHAT WANT GOT
  [[ $2 == "$3" ]] || fail "$1: want [$2], got [$3]"
}
contains() { # contains WHAT NEEDLE HAYSTACK
  [[ $3 == *"$2"* ]] || fail "$1: [$2] not in [$3]"
}
# until_equal WHAT WANT COMMAND...: retries COMMAND (up to 60 s) until it prints WANT.
until_equal() {
  local what=$1 want=$2 got=
  shift 2
  for _ in $(seq 1 300); do
    got=$("$@" 2>&1 || true)
    [[ $got == "$want" ]] && return 0
    sleep 0.2
  done
  fail "$what: want [$want], got [$got]"
}
available() {
  k get apiservice "$1" -o jsonpath='{.status.conditions[?(@.type=="Available")].status}/{.status.conditions[?(@.type=="Available")].reason}'
}

# Local APIServices, as the autoregistration controller writes them.
expect "v1.apps" '17800/15/onstart/True/Local/Local APIServices are always available' \
  "$(k get apiservice v1.apps -o jsonpath='{.spec.groupPriorityMinimum}/{.spec.versionPriority}/{.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged}/{.status.conditions[0].status}/{.status.conditions[0].reason}/{.status.conditions[0].message}')"
expect "v1. (core)" '/v1/18000/1' \
  "$(k get apiservice v1. -o jsonpath='{.spec.group}/{.spec.version}/{.spec.groupPriorityMinimum}/{.spec.versionPriority}')"
[[ $(k get apiservices) =~ v1\.apps\ +Local\ +True ]] || fail "kubectl get apiservices: $(k get apiservices)"

# A CRD's group/version gets an automanaged APIService (1000/100) that goes with the CRD.
k apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.tools.example.com}
spec:
  group: tools.example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
YAML
until_equal "CRD APIService" '1000/100/true/True/Local' \
  k get apiservice v1.tools.example.com -o jsonpath='{.spec.groupPriorityMinimum}/{.spec.versionPriority}/{.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged}/{.status.conditions[0].status}/{.status.conditions[0].reason}'
until_equal "gizmos served" 'ok' bash -c 'kubectl get gizmos -A -o name >/dev/null 2>&1 && echo ok'
contains "trace of a custom resource" 'delegated to apiextensions-apiserver (custom resource)' \
  "$(k get --raw '/debug/requests?resource=gizmos&limit=5')"
k delete crd gizmos.tools.example.com >/dev/null
until_equal "CRD APIService deleted" 'NotFound' \
  bash -c 'kubectl get apiservice v1.tools.example.com 2>&1 | grep -o NotFound'

# What extension servers read to trust the front proxy.
auth=$(k -n kube-system get configmap extension-apiserver-authentication -o json)
expect "requestheader keys" '["front-proxy-client"] ["X-Remote-User"] ["X-Remote-Group"] ["X-Remote-Extra-"] True True' \
  "$(python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(d["requestheader-allowed-names"], d["requestheader-username-headers"], d["requestheader-group-headers"], d["requestheader-extra-headers-prefix"], "BEGIN CERTIFICATE" in d["requestheader-client-ca-file"], "BEGIN CERTIFICATE" in d["client-ca-file"])' <<<"$auth")"
# The extension server, reached through a Service and Endpoints, behind its APIService.
start_extension "$dir" "$(dirname "$0")/extension_server.py" api wardle.example.com v1alpha1 \
  "$dir/requests.jsonl"
server=$extension_pid
port=$(cat "$dir/port")
until_equal "extension Available" 'True/Passed' available v1alpha1.wardle.example.com
expect "message" 'all checks passed' \
  "$(k get apiservice v1alpha1.wardle.example.com -o jsonpath='{.status.conditions[0].message}')"

# Discovery: legacy, aggregated (kubectl's), and per group.
until_equal "api-resources" 'flunders fl wardle.example.com/v1alpha1 true Flunder' \
  bash -c 'kubectl api-resources --api-group=wardle.example.com | tail -n +2 | tr -s " "'
contains "legacy /apis" '{"name":"wardle.example.com","versions":[{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}}' \
  "$(k get --raw /apis)"
expect "/apis/<group>" '{"kind":"APIGroup","apiVersion":"v1","name":"wardle.example.com","versions":[{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}}' \
  "$(k get --raw /apis/wardle.example.com)"

# Reads through the proxy.
expect "kubectl get" 'one two' "$(k get flunders -o jsonpath='{.items[*].metadata.name}')"
expect "kubectl get one" 'first' "$(k get flunder one -o jsonpath='{.spec.reference}')"
contains "not found" 'flunders.wardle.example.com "three" not found' \
  "$(k get flunder three 2>&1 || true)"
explain=$(k explain flunders.spec)
contains "explain" 'KIND:       Flunder' "$explain"
contains "explain field" 'reference	<string>' "$explain"
# OpenAPI v2 carries the extension's paths (those of its group/version) and definitions, in JSON
# and in the protobuf form client-go asks for.
v2=$(k get --raw /openapi/v2 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sorted(p for p in d["paths"] if "example.com" in p),
      "com.example.wardle.v1alpha1.Flunder" in d["definitions"],
      "io.k8s.api.core.v1.Pod" in d["definitions"])')
expect "openapi v2 merged" "['/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}'] True True" "$v2"
proto=$(/usr/bin/python3 - <<'PY'
import kubernetes
kubernetes.config.load_kube_config()
c = kubernetes.client.ApiClient()
r = c.call_api("/openapi/v2", "GET", _preload_content=False, auth_settings=["BearerToken"],
               header_params={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
print(r[2]["Content-Type"], b"com.example.wardle.v1alpha1.Flunder" in r[0].data)
PY
)
expect "openapi v2 protobuf merged" "application/com.github.proto-openapi.spec.v2.v1.0+protobuf True" "$proto"

# A watch streams: its first event arrives while the extension keeps the stream open.
watch=$(timeout 5 kubectl get --raw \
  '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true' 2>/dev/null || true)
contains "streamed watch event" '{"type":"ADDED","object":{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder"' \
  "$(tr -d ' ' <<<"$watch")"

# The identity the extension received: the admin's, then an impersonated one; no credentials.
last() { tail -n 1 "$dir/requests.jsonl"; }
k get flunder two >/dev/null
expect "admin identity" 'kube-sandbox-admin ["system:masters", "system:authenticated"] ["front-proxy-client"] None None' \
  "$(last | python3 -c 'import json,sys; e=json.load(sys.stdin); print(e["user"], json.dumps(e["groups"]), json.dumps(e["client_cn"]), e["authorization"], e["impersonate"])')"
k create clusterrole flunder-reader --verb=get,list --resource=flunders.wardle.example.com \
  >/dev/null
k create clusterrolebinding flunder-readers --clusterrole=flunder-reader --group=devs >/dev/null
until_equal "RBAC for devs" 'yes' k auth can-i get flunders.wardle.example.com --as=alice --as-group=devs
k get flunder two --as=alice --as-group=devs --as-group=ops >/dev/null
expect "impersonated identity" 'alice ["devs", "ops", "system:authenticated"]' \
  "$(last | python3 -c 'import json,sys; e=json.load(sys.stdin); print(e["user"], json.dumps(e["groups"]))')"
contains "forbidden before the proxy" 'User "bob" cannot list resource "flunders" in API group "wardle.example.com"' \
  "$(k get flunders --as=bob 2>&1 || true)"

# kube-sandbox itself trusts a front proxy as kube-apiserver does (--requestheader-*): a request
# over the front-proxy client certificate is the user its X-Remote-* headers name; without them
# the certificate alone names nobody (401); the client CA's certificates ignore the headers.
pki=$(dirname "$KUBECONFIG")/pki
whoami_as() {  # whoami_as CERT KEY [HEADER...]: the user a SelfSubjectReview names, or the code
  /usr/bin/python3 - "$(k config view -o jsonpath='{.clusters[0].cluster.server}')" "$pki/ca.crt" "$@" <<'PY'
import json, ssl, sys, urllib.error, urllib.request
server, ca, cert, key = sys.argv[1:5]
ctx = ssl.create_default_context(cafile=ca)
ctx.load_cert_chain(cert, key)
req = urllib.request.Request(server + "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    data=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}).encode(),
    method="POST", headers={"Content-Type": "application/json"})
for header in sys.argv[5:]:
    name, value = header.split(": ", 1)
    req.add_header(name, value)
try:
    with urllib.request.urlopen(req, context=ctx) as r:
        u = json.load(r)["status"]["userInfo"]
        print(u["username"], json.dumps(u.get("groups")), json.dumps(u.get("extra")))
except urllib.error.HTTPError as e:
    print(e.code)
PY
}
expect "front proxy names the user" 'carol ["team-a", "system:authenticated"] {"scopes.example.com/level": ["high"]}' \
  "$(whoami_as "$pki/front-proxy-client.crt" "$pki/front-proxy-client.key" 'X-Remote-User: carol' \
     'X-Remote-Group: team-a' 'X-Remote-Extra-Scopes.example.com%2flevel: high')"
expect "front proxy without a user" '401' \
  "$(whoami_as "$pki/front-proxy-client.crt" "$pki/front-proxy-client.key")"

# The delegation in the trace.
trace=$(k get --raw '/debug/requests?resource=flunders&limit=50')
contains "trace proxy" "kube-aggregator proxied to service default/api at 127.0.0.1:$port (200)" "$trace"
contains "trace watch" "kube-aggregator streams a watch from service default/api at 127.0.0.1:$port (200)" "$trace"
contains "trace local" 'delegated to the local kube-apiserver' \
  "$(k get --raw '/debug/requests?resource=configmaps&limit=50' 2>/dev/null || k get --raw /debug/requests)"

# The extension stops: a proxied request fails, the check marks it unavailable, then 503.
kill "$server"
wait "$server" 2>/dev/null || true
server=
k get flunders >/dev/null 2>&1 || true
until_equal "extension unavailable" 'False/FailedDiscoveryCheck' available v1alpha1.wardle.example.com
contains "failure message" "failing or missing response from https://127.0.0.1:$port/apis/wardle.example.com/v1alpha1: Get \"https://127.0.0.1:$port/apis/wardle.example.com/v1alpha1\": dial tcp 127.0.0.1:$port: connect: connection refused" \
  "$(k get apiservice v1alpha1.wardle.example.com -o jsonpath='{.status.conditions[0].message}')"
expect "503" 'Error from server (ServiceUnavailable): the server is currently unable to handle the request (get flunders.wardle.example.com)' \
  "$(k get flunders 2>&1 || true)"
k get --raw /apis/wardle.example.com/v1alpha1/namespaces/default/flunders -v=8 >"$dir/raw.out" 2>&1 || true
contains "503 plain text" 'Content-Type: text/plain; charset=utf-8' "$(cat "$dir/raw.out")"
contains "503 body" $'\tservice unavailable' "$(cat "$dir/raw.out")"
contains "stale discovery kept" 'wardle.example.com' "$(k get --raw /apis)"
k get configmaps -n default >/dev/null  # the rest of the server is unaffected
echo "aggregator test passed"
