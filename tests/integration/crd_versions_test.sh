#!/usr/bin/env bash
# A CRD served at two versions, with kubectl 1.32 and python3-kubernetes: version priority in
# discovery (v1alpha2 preferred over v1alpha1), per-version printer columns, scale and status,
# the deprecation warning, and conversion on every path: strategy None (only apiVersion
# changes), then strategy Webhook against a test conversion webhook over HTTPS (v1alpha1 keeps
# spec.size as a string, v1alpha2 spec.replicas as an integer), its failures in kube-apiserver's
# words, and a stopped webhook that fails reads without stalling the server. Run through
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

unwarned() { "$@" 2>&1 | grep -v '^Warning: ' || true; }  # output without deprecation warnings

# crd STRATEGY: the Gadget CRD, v1alpha1 (deprecated, size as a string) and v1alpha2 (storage,
# replicas as an integer, columns, status and scale); STRATEGY is the spec.conversion block.
crd() {
  k apply -f - >/dev/null <<YAML
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.test.example.com}
spec:
  group: test.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  conversion:
$1
  versions:
  - name: v1alpha1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
              replicas: {type: integer}
              color: {type: string}
  - name: v1alpha2
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              size: {type: string}
              color: {type: string}
          status:
            type: object
            properties:
              replicas: {type: integer}
YAML
  k wait --for condition=Established crd/gadgets.test.example.com --timeout=30s >/dev/null
}

# --- Strategy None -------------------------------------------------------------------------------
crd "    strategy: None"
expect "api-resources prefers v1alpha2" "gadgets gd test.example.com/v1alpha2 true Gadget" \
  "$(k api-resources --api-group=test.example.com --no-headers | tr -s ' ')"
expect "preferredVersion" "v1alpha2" \
  "$(k get --raw /apis/test.example.com | python3 -c 'import json,sys; print(json.load(sys.stdin)["preferredVersion"]["version"])')"
expect "versions by priority" "v1alpha2 v1alpha1" \
  "$(k get --raw /apis/test.example.com | python3 -c 'import json,sys; print(" ".join(v["version"] for v in json.load(sys.stdin)["versions"]))')"

# Written at v1alpha1 (a deprecated version: kubectl prints the warning), read at both.
warned=$(k apply -f - 2>&1 >/dev/null <<'YAML'
apiVersion: test.example.com/v1alpha1
kind: Gadget
metadata: {name: plain, namespace: default}
spec: {replicas: 2, color: red}
YAML
)
expect "deprecation warning" \
  "Warning: test.example.com/v1alpha1 Gadget is deprecated; use test.example.com/v1alpha2 Gadget" \
  "$warned"
expect "read at the preferred version" "test.example.com/v1alpha2 2 red" \
  "$(k get gadget plain -o jsonpath='{.apiVersion} {.spec.replicas} {.spec.color}')"
expect "read at v1alpha1" "test.example.com/v1alpha1 2" \
  "$(k get gadgets.v1alpha1.test.example.com plain -o jsonpath='{.apiVersion} {.spec.replicas}' 2>/dev/null)"
expect "columns of v1alpha2" "NAME REPLICAS COLOR plain 2 red" \
  "$(k get gadgets plain | tr -s ' \n' ' ' | sed 's/ $//')"
k scale gadget plain --replicas=4 >/dev/null
expect "kubectl scale through v1alpha2" "4" "$(k get gadget plain -o jsonpath='{.spec.replicas}')"
expect "explain uses v1alpha2" "VERSION: v1alpha2" \
  "$(k explain gadgets | grep '^VERSION:' | tr -s ' ')"
# A body naming another served version than its URL is refused, not converted.
case "$(out k create --raw /apis/test.example.com/v1alpha2/namespaces/default/gadgets -f - <<'JSON'
{"apiVersion": "test.example.com/v1alpha1", "kind": "Gadget", "metadata": {"name": "mixed"}}
JSON
)" in
  *'the API version in the data (test.example.com/v1alpha1) does not match the expected API version (test.example.com/v1alpha2)'*) ;;
  *) fail "a body of another version was not refused" ;;
esac
case "$(out k patch gadget plain --type=merge -p '{"apiVersion": "test.example.com/v1alpha1"}')" in
  *'apiVersion: Invalid value: "test.example.com/v1alpha1": must be test.example.com/v1alpha2'*) ;;
  *) fail "a patch to another version was not refused: $(out k patch gadget plain --type=merge -p '{"apiVersion": "test.example.com/v1alpha1"}')" ;;
esac
expect "storedVersions" "v1alpha2" \
  "$(k get crd gadgets.test.example.com -o jsonpath='{.status.storedVersions}' | tr -d '[]"')"

# python3-kubernetes' CustomObjectsApi at both versions: create, get, list, patch, watch.
/usr/bin/python3 - <<'PY'
import kubernetes
kubernetes.config.load_kube_config()
api = kubernetes.client.CustomObjectsApi()
g = "test.example.com"
api.create_namespaced_custom_object(g, "v1alpha2", "default", "gadgets", {
    "apiVersion": g + "/v1alpha2", "kind": "Gadget",
    "metadata": {"name": "py"}, "spec": {"replicas": 1, "color": "blue"}})
old = api.get_namespaced_custom_object(g, "v1alpha1", "default", "gadgets", "py")
assert old["apiVersion"] == g + "/v1alpha1", old
listed = api.list_namespaced_custom_object(g, "v1alpha1", "default", "gadgets")
assert sorted((i["apiVersion"], i["metadata"]["name"]) for i in listed["items"]) == \
    [(g + "/v1alpha1", "plain"), (g + "/v1alpha1", "py")], listed
patched = api.patch_namespaced_custom_object(g, "v1alpha1", "default", "gadgets", "py",
                                             {"spec": {"color": "green"}})
assert patched["apiVersion"] == g + "/v1alpha1" and patched["spec"]["color"] == "green", patched
w = kubernetes.watch.Watch()
seen = [e["object"]["apiVersion"] for e in
        w.stream(api.list_namespaced_custom_object, g, "v1alpha1", "default", "gadgets",
                 timeout_seconds=1)]
assert seen and all(v == g + "/v1alpha1" for v in seen), seen
PY

# --- Strategy Webhook ----------------------------------------------------------------------------
k delete gadgets --all >/dev/null
serving_certs "$dir" conv IP:127.0.0.1,DNS:conv.default.svc
ca=$(base64 -w0 "$dir/ca.crt")
python3 "$(dirname "$0")/conversion_webhook.py" "$dir/server.crt" "$dir/server.key" \
  "$dir/port" "$dir/reviews.jsonl" &
server=$!
for _ in $(seq 1 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
port=$(cat "$dir/port")
webhook() {  # webhook PATH: strategy Webhook to the test server's PATH
  printf '    strategy: Webhook\n    webhook:\n      conversionReviewVersions: ["v1"]\n      clientConfig: {url: "https://127.0.0.1:%s%s", caBundle: "%s"}\n' \
    "$port" "$1" "$ca"
}
crd "$(webhook /convert)"
k apply -f - 2>/dev/null >/dev/null <<'YAML'
apiVersion: test.example.com/v1alpha1
kind: Gadget
metadata: {name: hooked, namespace: default}
spec: {size: "3"}
YAML
expect "stored through the webhook at v1alpha2" "3 webhook" \
  "$(k get gadget hooked -o jsonpath='{.spec.replicas} {.metadata.labels.converted-by}')"
expect "read back at v1alpha1" "3" \
  "$(k get gadgets.v1alpha1.test.example.com hooked -o jsonpath='{.spec.size}' 2>/dev/null)"
review=$(python3 -c '
import json, sys
r = [json.loads(l)["review"] for l in open(sys.argv[1])]
print(r[0]["apiVersion"], r[0]["kind"], r[0]["request"]["desiredAPIVersion"],
      r[0]["request"]["objects"][0]["apiVersion"])
' "$dir/reviews.jsonl")
expect "the first review" \
  "apiextensions.k8s.io/v1 ConversionReview test.example.com/v1alpha2 test.example.com/v1alpha1" \
  "$review"
/usr/bin/python3 - <<'PY'
import kubernetes
kubernetes.config.load_kube_config()
api = kubernetes.client.CustomObjectsApi()
g = "test.example.com"
api.create_namespaced_custom_object(g, "v1alpha1", "default", "gadgets", {
    "apiVersion": g + "/v1alpha1", "kind": "Gadget", "metadata": {"name": "py"},
    "spec": {"size": "5"}})
new = api.get_namespaced_custom_object(g, "v1alpha2", "default", "gadgets", "py")
assert new["spec"] == {"replicas": 5}, new
items = api.list_namespaced_custom_object(g, "v1alpha1", "default", "gadgets")["items"]
assert sorted(i["spec"]["size"] for i in items) == ["3", "5"], items
api.patch_namespaced_custom_object(g, "v1alpha1", "default", "gadgets", "py",
                                   {"spec": {"size": "7"}})
assert api.get_namespaced_custom_object(g, "v1alpha2", "default", "gadgets", "py")["spec"] == \
    {"replicas": 7}
PY

# The same webhook through a Service: a selector-less Service and hand-written Endpoints that
# point at the test server (there is no ClusterIP routing), its certificate checked for
# conv.default.svc.
k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: conv, namespace: default}
spec: {ports: [{name: https, port: 443, targetPort: $port}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: conv, namespace: default}
subsets: [{addresses: [{ip: 127.0.0.1}], ports: [{name: https, port: $port}]}]
YAML
crd "$(printf '    strategy: Webhook\n    webhook:\n      conversionReviewVersions: ["v1beta1", "v1"]\n      clientConfig:\n        caBundle: "%s"\n        service: {namespace: default, name: conv, path: /convert, port: 443}\n' "$ca")"
expect "through the Service" "3" \
  "$(k get gadgets.v1alpha1.test.example.com hooked -o jsonpath='{.spec.size}' 2>/dev/null)"
expect "a v1beta1 review when the CRD lists it first" "apiextensions.k8s.io/v1beta1" \
  "$(tail -1 "$dir/reviews.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["review"]["apiVersion"])')"

# Failures, in kube-apiserver's words; the server keeps serving.
crd "$(webhook /refuse)"
expect "a refusing webhook" \
  "Error from server: conversion for test.example.com/v1alpha2, Kind=Gadget failed: conversion webhook for /, Kind= failed: gadgets cannot go there" \
  "$(unwarned k get gadgets.v1alpha1.test.example.com hooked)"
crd "$(webhook /wrong-uid)"
case "$(unwarned k get gadgets.v1alpha1.test.example.com hooked)" in
  *"conversion webhook for /, Kind= failed: expected response.uid="*) ;;
  *) fail "wrong uid: $(unwarned k get gadgets.v1alpha1.test.example.com hooked)" ;;
esac
crd "$(webhook /convert)"
kill "$server"
wait "$server" 2>/dev/null || true
server=
case "$(out k get gadgets.v1alpha1.test.example.com -n default)" in
  *"Error from server: conversion for test.example.com/v1alpha1, Kind=GadgetList failed: conversion webhook for test.example.com/v1alpha1, Kind=GadgetList failed: Post \"https://127.0.0.1:$port/convert?timeout=30s\": dial tcp 127.0.0.1:$port: connect: connection refused"*) ;;
  *) fail "stopped webhook: $(out k get gadgets.v1alpha1.test.example.com -n default)" ;;
esac
expect "reads at the storage version need no webhook" "hooked py" \
  "$(k get gadgets -o jsonpath='{.items[*].metadata.name}')"
expect "the server still answers" "default" "$(k get ns default -o jsonpath='{.metadata.name}')"
k delete crd gadgets.test.example.com >/dev/null
echo "crd versions: ok"
