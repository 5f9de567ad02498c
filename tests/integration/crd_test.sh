#!/usr/bin/env bash
# CustomResourceDefinitions with kubectl 1.32, as against a real cluster: a CRD is accepted and
# established, its kind is discovered, served, printed with its columns, explained, patched,
# replaced, watched, validated and pruned, and deleting the CRD deletes its objects. Run through
# with_sandbox.sh, which sets KUBECONFIG.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../../fixtures/videoprocessor
tmp=$(mktemp -d)
watch_pid=
trap '[[ -n $watch_pid ]] && kill "$watch_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
k() { kubectl "$@"; }
# out CMD...: stdout and stderr of a command that may fail, captured first (no grep -q on pipes).
out() { "$@" 2>&1 || true; }
expect() {  # expect NAME WANT GOT
  [[ $3 == "$2" ]] || fail "$1: want
$2
got
$3"
}

crd=videoprocessors.media.example.com
expect "apply crd" "customresourcedefinition.apiextensions.k8s.io/$crd created" \
  "$(out k apply -f "$fixtures/00-crd.yaml")"
expect "wait established" "customresourcedefinition.apiextensions.k8s.io/$crd condition met" \
  "$(out k wait --for condition=established --timeout=20s "crd/$crd")"
expect "conditions" "NamesAccepted=True/NoConflicts Established=True/InitialNamesAccepted" \
  "$(k get crd "$crd" -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason}{" "}{end}' | sed 's/ $//')"
expect "acceptedNames and storedVersions" "videoprocessor VideoProcessorList vp [\"v1\"]" \
  "$(k get crd "$crd" -o jsonpath='{.status.acceptedNames.singular} {.status.acceptedNames.listKind} {.status.acceptedNames.shortNames[0]} {.status.storedVersions}')"
expect "api-resources" "videoprocessors   vp    media.example.com/v1   true   VideoProcessor" \
  "$(k api-resources --api-group=media.example.com --no-headers)"
grep -qx 'media.example.com/v1' <<<"$(out k api-versions)" || fail "api-versions lacks media.example.com/v1"

k create namespace media >/dev/null
expect "apply cr" $'videoprocessor.media.example.com/transcode-hd created\nvideoprocessor.media.example.com/thumbnails created' \
  "$(out k apply -f "$fixtures/20-processors.yaml")"
expect "apply again" $'videoprocessor.media.example.com/transcode-hd unchanged\nvideoprocessor.media.example.com/thumbnails unchanged' \
  "$(out k apply -f "$fixtures/20-processors.yaml")"

# a watch started now sees the changes below
k get videoprocessors -n media --watch-only -o custom-columns=NAME:.metadata.name,CODEC:.spec.codec,GEN:.metadata.generation --no-headers >"$tmp/watch.out" 2>&1 &
watch_pid=$!

table=$(k get videoprocessors -n media)
expect "get table header" "NAME           CODEC   REPLICAS   READY   AGE" "$(head -1 <<<"$table")"
grep -Eq '^thumbnails     h264    1                  [0-9]+s$' <<<"$table" || fail "thumbnails row (default replicas): $table"
grep -Eq '^transcode-hd   h265    3                  [0-9]+s$' <<<"$table" || fail "transcode-hd row: $table"
expect "get by short name and category" "$(k get vp -n media -o name)" "$(k get media -n media -o name)"
expect "-o name" $'videoprocessor.media.example.com/thumbnails\nvideoprocessor.media.example.com/transcode-hd' \
  "$(k get vp -n media -o name)"
yaml=$(k get vp transcode-hd -n media -o yaml)
grep -qx 'apiVersion: media.example.com/v1' <<<"$yaml" || fail "-o yaml apiVersion: $yaml"
grep -qx 'kind: VideoProcessor' <<<"$yaml" || fail "-o yaml kind"
grep -qx '  generation: 1' <<<"$yaml" || fail "-o yaml generation"
grep -qx '  codec: h265' <<<"$yaml" || fail "-o yaml spec"
grep -q '    manager: kubectl-client-side-apply' <<<"$(k get vp transcode-hd -n media -o yaml --show-managed-fields)" \
  || fail "managedFields"

# explain reads the published schema
explain=$(out k explain videoprocessor.spec)
grep -q '^GROUP:      media.example.com$' <<<"$explain" || fail "explain group: $explain"
grep -q '^KIND:       VideoProcessor$' <<<"$explain" || fail "explain kind: $explain"
grep -q 'What the pipeline should do.' <<<"$explain" || fail "explain description: $explain"
grep -Eq '^  codec	<string> -required-$' <<<"$explain" || fail "explain codec: $explain"
grep -Eq '^  replicas	<integer>$' <<<"$explain" || fail "explain replicas: $explain"

# patches: merge and JSON patch work, strategic merge patch is refused as upstream
expect "merge patch" "videoprocessor.media.example.com/thumbnails patched" \
  "$(out k patch vp thumbnails -n media --type=merge -p '{"spec":{"replicas":2}}')"
expect "json patch" "videoprocessor.media.example.com/thumbnails patched" \
  "$(out k patch vp thumbnails -n media --type=json -p '[{"op":"replace","path":"/spec/codec","value":"av1"}]')"
expect "generation after two spec changes" "3 2 av1" \
  "$(k get vp thumbnails -n media -o jsonpath='{.metadata.generation} {.spec.replicas} {.spec.codec}')"
expect "strategic merge patch" "error: application/strategic-merge-patch+json is not supported by media.example.com/v1, Kind=VideoProcessor: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" \
  "$(out k patch vp thumbnails -n media -p '{"spec":{"replicas":4}}')"
expect "label patch keeps generation" "3" \
  "$(k label vp thumbnails -n media tier=gold >/dev/null && k get vp thumbnails -n media -o jsonpath='{.metadata.generation}')"

# an edit-style PUT (what kubectl edit sends)
k get vp transcode-hd -n media -o json | python3 -c '
import json, sys
o = json.load(sys.stdin); o["spec"]["resolution"] = "3840x2160"; print(json.dumps(o))' >"$tmp/edited.json"
expect "replace" "videoprocessor.media.example.com/transcode-hd replaced" "$(out k replace -f "$tmp/edited.json")"
expect "replaced" "3840x2160 2" \
  "$(k get vp transcode-hd -n media -o jsonpath='{.spec.resolution} {.metadata.generation}')"
grep -q 'the object has been modified' <<<"$(out k replace -f "$tmp/edited.json")" || fail "stale replace"

# kubectl edit itself (a merge patch for custom resources); an invalid edit is refused
expect "edit" "videoprocessor.media.example.com/thumbnails edited" \
  "$(EDITOR='sed -i s/codec:\ av1/codec:\ h264/' out k edit vp thumbnails -n media)"
expect "edited" "h264 4" "$(k get vp thumbnails -n media -o jsonpath='{.spec.codec} {.metadata.generation}')"
grep -q 'error: videoprocessors.media.example.com "thumbnails" is invalid' \
  <<<"$(EDITOR='sed -i s/codec:\ h264/codec:\ vp9/' out k edit vp thumbnails -n media)" || fail "invalid edit"
EDITOR='sed -i s/codec:\ h264/codec:\ av1/' k edit vp thumbnails -n media >/dev/null

# status subresource: the main resource ignores status; /status changes only status
k patch vp transcode-hd -n media --type=merge -p '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
expect "status ignored through the main resource" "" \
  "$(k get vp transcode-hd -n media -o jsonpath='{.status.conditions}')"
k patch vp transcode-hd -n media --subresource=status --type=merge \
  -p '{"spec":{"codec":"h264"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
expect "status through /status" "True h265 2" \
  "$(k get vp transcode-hd -n media -o jsonpath='{.status.conditions[0].status} {.spec.codec} {.metadata.generation}')"
grep -Eq '^transcode-hd   h265    3          True    [0-9]+s$' <<<"$(k get vp -n media)" || fail "Ready column"

# the scale subresource at the CRD's paths
expect "scale" "videoprocessor.media.example.com/transcode-hd scaled" \
  "$(out k scale vp transcode-hd -n media --replicas=4)"
expect "scaled" "4 3" "$(k get vp transcode-hd -n media -o jsonpath='{.spec.replicas} {.metadata.generation}')"
expect "Scale" '{"replicas":4} {"replicas":0}' \
  "$(k get --raw /apis/media.example.com/v1/namespaces/media/videoprocessors/transcode-hd/scale |
     python3 -c 'import json,sys; s=json.load(sys.stdin); print(json.dumps(s["spec"], separators=(",", ":")), json.dumps(s["status"], separators=(",", ":")))')"

# validation: 422 with the schema's texts; unknown fields refused under kubectl's strict default
cat >"$tmp/bad.yaml" <<'YAML'
apiVersion: media.example.com/v1
kind: VideoProcessor
metadata: {name: bad, namespace: media}
spec: {codec: mpeg2, replicas: 20}
YAML
expect "invalid" 'The VideoProcessor "bad" is invalid: 
* spec.codec: Unsupported value: "mpeg2": supported values: "h264", "h265", "av1"
* spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10' \
  "$(out k apply -f "$tmp/bad.yaml")"
cat >"$tmp/unknown.yaml" <<'YAML'
apiVersion: media.example.com/v1
kind: VideoProcessor
metadata: {name: extra, namespace: media}
spec: {codec: h264, foo: 1}
YAML
expect "unknown field, strict" 'Error from server (BadRequest): error when creating "'"$tmp"'/unknown.yaml": VideoProcessor in version "v1" cannot be handled as a VideoProcessor: strict decoding error: unknown field "spec.foo"' \
  "$(out k create -f "$tmp/unknown.yaml")"
expect "unknown field, warn" $'Warning: unknown field "spec.foo"\nvideoprocessor.media.example.com/extra created' \
  "$(out k create -f "$tmp/unknown.yaml" --validate=warn)"
expect "unknown field pruned" "{\"codec\":\"h264\",\"replicas\":1}" \
  "$(k get vp extra -n media -o jsonpath='{.spec}')"
grep -q 'metadata.name: Invalid value: "Bad_Name"' <<<"$(out k create -f - <<<'{"apiVersion":"media.example.com/v1","kind":"VideoProcessor","metadata":{"name":"Bad_Name","namespace":"media"},"spec":{"codec":"h264"}}')" \
  || fail "name rule"

# server-side apply
cat >"$tmp/ssa.yaml" <<'YAML'
apiVersion: media.example.com/v1
kind: VideoProcessor
metadata: {name: applied, namespace: media}
spec: {codec: av1, replicas: 5}
YAML
expect "server-side apply" "videoprocessor.media.example.com/applied serverside-applied" \
  "$(out k apply --server-side -f "$tmp/ssa.yaml")"
expect "server-side applied" "av1 5" "$(k get vp applied -n media -o jsonpath='{.spec.codec} {.spec.replicas}')"
sed 's/replicas: 5}/replicas: 5, foo: 1}/' "$tmp/ssa.yaml" >"$tmp/ssa-unknown.yaml"
expect "server-side apply is strict" 'Error from server: failed to create typed patch object (media/applied; media.example.com/v1, Kind=VideoProcessor): .spec.foo: field not declared in schema' \
  "$(out k apply --server-side -f "$tmp/ssa-unknown.yaml")"

# a body of another kind decodes (custom resources are unstructured) and validation refuses it
cat >"$tmp/other-kind.json" <<'JSON'
{"apiVersion": "media.example.com/v1", "kind": "AudioProcessor", "metadata": {"name": "other"}, "spec": {"codec": "aac"}}
JSON
expect "another kind" 'The AudioProcessor "other" is invalid: kind: Invalid value: "AudioProcessor": must be VideoProcessor' \
  "$(out k create --raw /apis/media.example.com/v1/namespaces/media/videoprocessors -f "$tmp/other-kind.json")"
expect "another kind stored nothing" "Error from server (NotFound): videoprocessors.media.example.com \"other\" not found" \
  "$(out k get vp other -n media)"

# the watch saw the changes
sleep 1
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
watch_pid=
grep -q '^thumbnails *av1 *5$' "$tmp/watch.out" || fail "watch: $(cat "$tmp/watch.out")"
grep -q '^applied *av1 *1$' "$tmp/watch.out" || fail "watch applied: $(cat "$tmp/watch.out")"

# deleting the CRD deletes its objects, then the CRD; the kind is no longer served
expect "delete crd" "customresourcedefinition.apiextensions.k8s.io \"$crd\" deleted" \
  "$(out k delete crd "$crd" --timeout=30s)"
expect "crd gone" "Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io \"$crd\" not found" \
  "$(out k get crd "$crd")"
# (kubectl still maps the name from its discovery cache, so the list itself answers 404)
expect "kind gone" 'Error from server (NotFound): Unable to list "media.example.com/v1, Resource=videoprocessors": the server could not find the requested resource' \
  "$(out k get videoprocessors -n media)"
expect "group gone" "Error from server (NotFound): the server could not find the requested resource" \
  "$(out k get --raw /apis/media.example.com/v1)"
expect "api-resources gone" "" "$(out k api-resources --api-group=media.example.com --no-headers)"

# created again, it starts empty: the objects were deleted, not just hidden
k apply -f "$fixtures/00-crd.yaml" >/dev/null
k wait --for condition=established --timeout=20s "crd/$crd" >/dev/null
expect "objects gone with the CRD" "No resources found in media namespace." "$(out k get vp -n media)"
echo "crd: ok"
