#!/usr/bin/env bash
# CRD features with kubectl 1.32, as against a real cluster: a new CRD is Installing before it is
# Established (seen in a watch), selectableFields work with --field-selector (list and watch),
# allOf/oneOf/not refuse objects with kube-apiserver's messages, and validation ratcheting lets an
# update keep a value the schema now refuses while refusing a new invalid value. Run through
# with_sandbox.sh, which sets KUBECONFIG.
set -euo pipefail
# shellcheck source=cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
# await NAME FILE PATTERN: waits (bounded) until FILE has a line matching PATTERN.
await() {
  for _ in $(seq 100); do
    grep -Eq "$3" "$2" 2>/dev/null && return 0
    sleep 0.2
  done
  fail "$1: no line like '$3' in: $(cat "$2")"
}

crd() {  # crd MAXLEN: the gadgets CRD; spec.name at most MAXLEN characters (0: no limit)
  local limit=""
  [[ $1 != 0 ]] && limit=", maxLength: $1"
  cat <<EOF
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    selectableFields:
    - jsonPath: .spec.color
    - jsonPath: .spec.size
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: integer}
              name: {type: string$limit}
              mode: {type: string, not: {enum: ["off"]}}
              shape:
                type: object
                properties:
                  radius: {type: integer}
                  side: {type: integer}
                oneOf:
                - required: [radius]
                - required: [side]
EOF
}
gadget() {  # gadget NAME SPEC-JSON
  echo "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"$1\"},\"spec\":$2}"
}

# The CRD's Established condition as a watch sees it: Installing first, then established.
k get crd --watch-only -o json >"$tmp/crd-watch.json" 2>&1 &
pids+=($!)
sleep 1
crd 0 >"$tmp/crd.yaml"
expect "create crd" "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created" \
  "$(out k apply -f "$tmp/crd.yaml")"
expect "wait established" "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com condition met" \
  "$(out k wait --for condition=established --timeout=20s crd/gadgets.example.com)"
# established_states: each watched version's Established condition, one per line.
established_states() {
  python3 - "$tmp/crd-watch.json" <<'PY'
import json, sys
text, decoder, at = open(sys.argv[1]).read(), json.JSONDecoder(), 0
while True:
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        break
    crd, at = decoder.raw_decode(text, at)
    for c in crd.get("status", {}).get("conditions", []):
        if c["type"] == "Established":
            print("%s/%s: %s" % (c["status"], c["reason"], c["message"]))
PY
}
until_equal "watch saw Installing, then Established" \
  $'False/Installing: the initial names have been accepted\nTrue/InitialNamesAccepted: the initial names have been accepted' \
  established_states

# selectableFields: list and watch with --field-selector
k get gadgets --field-selector spec.color=red --watch-only -o name >"$tmp/red-watch.out" 2>&1 &
pids+=($!)
sleep 1
for g in "red1 {\"color\":\"red\",\"size\":1}" "blue2 {\"color\":\"blue\",\"size\":2}" \
  "red3 {\"color\":\"red\",\"size\":3}" "plain {}"; do
  set -- $g
  gadget "$1" "$2" | k create -f - >/dev/null
done
expect "select by color" $'gadget.example.com/red1\ngadget.example.com/red3' \
  "$(k get gadgets --field-selector spec.color=red -o name)"
expect "select by size and color" "gadget.example.com/red3" \
  "$(k get gadgets --field-selector spec.size=3,spec.color=red -o name)"
expect "absent field reads as empty" "gadget.example.com/plain" \
  "$(k get gadgets --field-selector spec.color= -o name)"
expect "not equal" $'gadget.example.com/blue2\ngadget.example.com/plain' \
  "$(k get gadgets --field-selector spec.color!=red -o name)"
expect "metadata fields still select" "gadget.example.com/blue2" \
  "$(k get gadgets --field-selector metadata.name=blue2,metadata.namespace=default -o name)"
expect "other fields refused" 'Error from server (BadRequest): Unable to find "example.com/v1, Resource=gadgets" that match label selector "", field selector "spec.name=x": field label not supported: spec.name' \
  "$(out k get gadgets --field-selector spec.name=x)"
await "watch by field" "$tmp/red-watch.out" '^gadget.example.com/red3$'
expect "watch by field saw only red" $'gadget.example.com/red1\ngadget.example.com/red3' \
  "$(cat "$tmp/red-watch.out")"

expect "crd with a bad selectable field" 'The CustomResourceDefinition "gadgets.example.com" is invalid: spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.shape": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.' \
  "$(out k patch crd gadgets.example.com --type=json -p '[{"op":"replace","path":"/spec/versions/0/selectableFields/0/jsonPath","value":".spec.shape"}]')"

# allOf/anyOf/oneOf/not
expect "oneOf refused" 'The Gadget "both" is invalid: <nil>: Invalid value: "": "spec.shape" must validate one and only one schema (oneOf). Found 2 valid alternatives' \
  "$(gadget both '{"shape":{"radius":1,"side":2}}' | out k create -f -)"
expect "not refused" 'The Gadget "off" is invalid: <nil>: Invalid value: "": "spec.mode" must not validate the schema (not)' \
  "$(gadget off '{"mode":"off"}' | out k create -f -)"
expect "oneOf and not pass" "gadget.example.com/round created" \
  "$(gadget round '{"shape":{"radius":1},"mode":"on"}' | out k create -f -)"

# ratcheting: a name stored before the schema limited it stays while other fields change
gadget legacy '{"name":"a-very-long-name","size":1}' | k create -f - >/dev/null
crd 5 | k apply -f - >/dev/null
# once the controller serves the new schema, a create with a long name is refused
gadget fresh '{"name":"a-very-long-name"}' >"$tmp/fresh.json"
until_equal "new schema applies to creates" \
  'The Gadget "fresh" is invalid: spec.name: Too long: may not be more than 5 bytes' \
  k create --dry-run=server -f "$tmp/fresh.json"
expect "unchanged invalid value kept" "gadget.example.com/legacy patched" \
  "$(out k patch gadget legacy --type=merge -p '{"spec":{"size":2}}')"
expect "new invalid value refused" 'The Gadget "legacy" is invalid: spec.name: Too long: may not be more than 5 bytes' \
  "$(out k patch gadget legacy --type=merge -p '{"spec":{"name":"another-long-name"}}')"
expect "valid value accepted" "gadget.example.com/legacy patched" \
  "$(out k patch gadget legacy --type=merge -p '{"spec":{"name":"short"}}')"
echo "crd gaps: ok"
