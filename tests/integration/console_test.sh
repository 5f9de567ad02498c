#!/usr/bin/env bash
# The desktop console against a real sandbox, under a virtual display with Mesa's software GL:
# kubectl creates ConfigMaps before and while the console runs; the console's state dump must
# show them (rows and their ADDED events), an edit applied in the console (first refused with a
# field-manager conflict, then forced) must be what kubectl reads back, and a delete confirmed in
# the console must remove the object. The screenshots must be real PNGs of the window's size. A
# CRD applied while the console runs must bring its kind into the tree, its objects into the
# table, and take the kind away when it is deleted.
# A wait that is never met must fail the run with exit code 1 and say which line.
# Skips (77) only when xvfb-run is missing.
set -uo pipefail
source "$(dirname "$0")/serve_lib.sh"
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run is not installed"; exit 77; }
export LIBGL_ALWAYS_SOFTWARE=1
export XDG_CONFIG_HOME=$tmp/config  # where an interactive console keeps console.ini

out=$tmp/serve.out
"$bin" serve --ephemeral --headless --secure-port 0 --ready-file "$tmp/ready.json" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready.json"
export KUBECONFIG=$(json "$tmp/ready.json" '["kubeconfig"]')

kubectl create namespace team >/dev/null || fail "create namespace"
kubectl create configmap before-1 --from-literal=key=one >/dev/null || fail "create before-1"
kubectl create configmap before-2 -n team --from-literal=key=two >/dev/null ||
  fail "create before-2"

# xvfb-run gets an auth file of ours: with a temporary directory of its own, a failure to remove
# that directory (seen on a loaded machine) made it exit 5 instead of with the console's status.
xvfb() {
  xvfb-run -a -f "$(mktemp "$tmp/xauth.XXXXXX")" -s "-screen 0 1400x900x24" "$@"
}
console() {
  xvfb "$bin" console --window-size 1280x800 "$@"
}

cat >"$tmp/script.txt" <<EOF
# Opens configmaps and tells the test (ready.json) when the watch runs.
timeout 30
select-kind configmaps
wait-rows >=2
dump-state $tmp/opened.json
wait-event ADDED configmaps default/live-1
wait-event ADDED configmaps team/live-2
screenshot all-namespaces
namespace default
filter live
wait-rows 1
filter
open default/before-1
edit
edit-set data.key edited-in-console
apply
expect-apply Conflict
screenshot conflict
force on
apply
expect-apply ok
wait-field default/before-1 data.key edited-in-console
screenshot applied
select-event MODIFIED configmaps default/before-1
screenshot history
dump-state $tmp/history.json
cancel
new
edit-set data.key from-template
screenshot new-object
create
expect-apply ok
wait-event ADDED configmaps default/new-configmap
open default/new-configmap
duplicate
create
expect-apply ok
wait-event ADDED configmaps default/new-configmap-copy
open default/before-1
edit
edit-text "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before-1\n  namespace: default\n  resourceVersion: \"1\"\ndata:\n  key: stale\n"
replace
expect-apply Conflict
screenshot replace-conflict
cancel
edit
edit-set data.key replaced-in-console
replace
expect-apply ok
wait-field default/before-1 data.key replaced-in-console
open default/live-1
delete
screenshot confirm-delete
confirm
expect-apply ok
wait-event DELETED configmaps default/live-1
help on
screenshot help
dump-state
quit
EOF

console --script "$tmp/script.txt" --screenshot-dir "$tmp/shots" --state-dump "$tmp/state.json" \
  >"$tmp/console.out" 2>&1 &
console_pid=$!
pids+=($console_pid)
for _ in $(seq 1 600); do
  [[ -s $tmp/opened.json ]] && break
  kill -0 "$console_pid" 2>/dev/null || break
  sleep 0.05
done
[[ -s $tmp/opened.json ]] ||
  { cat "$tmp/console.out" >&2; fail "the console did not open configmaps"; }
kubectl create configmap live-1 --from-literal=key=a >/dev/null || fail "create live-1"
kubectl create configmap live-2 -n team --from-literal=key=b >/dev/null || fail "create live-2"
wait "$console_pid"
status=$?
unset 'pids[-1]'
[[ $status -eq 0 ]] || { cat "$tmp/console.out" >&2; fail "console exited $status"; }

# what the console saw
state=$tmp/state.json
check() { python3 - "$state" "$@" || { cat "$tmp/console.out" >&2; fail "state: $*"; }; }
check <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["connection"] == "connected", s["connection"]
assert s["serverVersion"].startswith("v1.32."), s["serverVersion"]
assert s["discovered"] and s["discovery"]["resources"] > 20, s["discovery"]
cm = s["kinds"]["core/configmaps"]
assert cm["state"] == "watching", cm
assert cm["columns"] == ["Name", "Data", "Age"], cm["columns"]
assert "default/before-1" in cm["visible"] and "default/live-1" not in cm["visible"], cm["visible"]
assert s["namespace"] == "default"
assert "team" in s["namespaces"]
events = [(e["type"], e["kind"], e["namespace"], e["name"]) for e in s["events"]["list"]]
for wanted in [("ADDED", "ConfigMap", "default", "live-1"),
               ("ADDED", "ConfigMap", "team", "live-2"),
               ("MODIFIED", "ConfigMap", "default", "before-1"),
               ("DELETED", "ConfigMap", "default", "live-1")]:
    assert wanted in events, (wanted, events)
assert s["lastAction"]["action"] == "delete" and s["lastAction"]["ok"], s["lastAction"]
PY
python3 - "$tmp/opened.json" <<'PY' || fail "opened.json"
import json, sys
s = json.load(open(sys.argv[1]))
rows = s["kinds"]["core/configmaps"]["visible"]
assert "default/before-1" in rows and "team/before-2" in rows, rows
PY

# the history of the edit, as the watch window's event opened it: the version and its diff
python3 - "$tmp/history.json" <<'PY' || fail "history.json"
import json, sys
h = json.load(open(sys.argv[1]))["history"]
assert h["event"]["type"] == "MODIFIED" and h["event"]["name"] == "before-1", h["event"]
assert h["found"] and "key: edited-in-console" in h["yaml"], h
assert h["previousResourceVersion"] and h["previousResourceVersion"] != h["event"]["resourceVersion"], h
assert "-  key: one" in h["diff"] and "+  key: edited-in-console" in h["diff"], h["diff"]
PY
python3 - "$state" <<'PY' || fail "the history stayed open after cancel"
import json, sys
assert json.load(open(sys.argv[1]))["history"] is None
PY

# what kubectl sees
[[ $(kubectl get configmap before-1 -o jsonpath='{.data.key}') == replaced-in-console ]] ||
  fail "the applied, then replaced, edit is not what kubectl reads"
[[ $(kubectl get configmap new-configmap -o jsonpath='{.data.key}') == from-template ]] ||
  fail "the object created from the template is not what kubectl reads"
[[ $(kubectl get configmap new-configmap-copy -o jsonpath='{.data.key}') == from-template ]] ||
  fail "the duplicate is not what kubectl reads"
managers=$(kubectl get configmap before-1 -o jsonpath='{.metadata.managedFields[*].manager}')
grep -qw kube-sandbox-console <<<"$managers" ||
  fail "no kube-sandbox-console field manager: $managers"
if kubectl get configmap live-1 >/dev/null 2>&1; then fail "live-1 survived the delete"; fi
[[ $(kubectl get configmap live-2 -n team -o jsonpath='{.data.key}') == b ]] || fail "live-2"

# the screenshots: PNGs of the window's size
for shot in all-namespaces conflict applied history new-object replace-conflict confirm-delete \
  help; do
  python3 - "$tmp/shots/$shot.png" <<'PY' || fail "screenshot $shot"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert (width, height) == (1280, 800), (width, height)
assert len(data) > 20000, "suspiciously small: %d bytes" % len(data)
PY
done

# a wait that is never met fails the run and names the line
printf 'timeout 1\nselect-kind configmaps\nwait-rows 999\n' >"$tmp/never.txt"
console --script "$tmp/never.txt" >"$tmp/never.out" 2>&1
status=$?
[[ $status -eq 1 ]] || fail "a failed wait exited $status"
expected='script line 3 (wait-rows 999): timed out after 1 s: the table shows [0-9]* rows'
grep -q "$expected" "$tmp/never.out" ||
  fail "failed wait message: $(cat "$tmp/never.out")"

# interactive: the window opens with no script; the mouse drags the splitter right of the tree;
# Ctrl+Q quits (0), writes the dump, and console.ini keeps the new width
if command -v xdotool >/dev/null; then
  cat >"$tmp/interactive.sh" <<EOF
"$bin" console --state-dump "$tmp/interactive.json" &
pid=\$!
wid=\$(timeout 30 xdotool search --sync --name "kube-sandbox console") || exit 3
sleep 1
# the splitter between the tree (about 245 wide in a 1440 window) and the table, 100 to the right
xdotool mousemove --sync 245 400; sleep 0.3
xdotool mousedown 1; sleep 0.2
xdotool mousemove --sync 300 400; sleep 0.2
xdotool mousemove --sync 345 400; sleep 0.3
xdotool mouseup 1; sleep 0.3
xdotool key --window "\$wid" ctrl+q
wait "\$pid"
EOF
  timeout 60 xvfb-run -a -f "$(mktemp "$tmp/xauth.XXXXXX")" -s "-screen 0 1400x900x24" \
    bash "$tmp/interactive.sh" \
    >"$tmp/interactive.out" 2>&1
  status=$?
  [[ $status -eq 0 ]] || fail "interactive console exited $status: $(cat "$tmp/interactive.out")"
  [[ $(json "$tmp/interactive.json" '["server"]') == "$(json "$tmp/ready.json" '["url"]')" ]] ||
    fail "interactive state dump"
  ini=$tmp/config/kube-sandbox/console.ini
  grep -qx 'window-size=1440x900' "$ini" ||
    fail "the interactive console kept no console.ini in XDG_CONFIG_HOME"
  tree_width=$(sed -n 's/^tree-width=//p' "$ini")
  [[ -n $tree_width && $tree_width -ge 330 && $tree_width -le 360 ]] ||
    fail "the dragged splitter: tree-width '$tree_width' in $(cat "$ini")"
else
  echo "console: xdotool is not installed; the interactive check is skipped"
fi

# a script that does not parse fails before any window opens
printf 'select-kind configmaps\nfrobnicate\n' >"$tmp/bad.txt"
"$bin" console --script "$tmp/bad.txt" >"$tmp/bad.out" 2>&1
[[ $? -eq 1 ]] || fail "a bad script did not exit 1"
expected="kube-sandbox console: script $tmp/bad.txt: line 2: unknown command \"frobnicate\""
grep -qxF "$expected" "$tmp/bad.out" ||
  fail "bad script message: $(cat "$tmp/bad.out")"
# a CRD created and deleted while the console runs: its kind enters the tree, its objects are
# listed, and the kind leaves the tree with the CRD
fixtures=$(cd "$(dirname "$0")/../../fixtures/videoprocessor" && pwd)
cat >"$tmp/crd.txt" <<EOF
timeout 30
wait-no-kind videoprocessors
dump-state $tmp/crd-before.json
wait-kind videoprocessors
select-kind vp
wait-rows 2
dump-state $tmp/crd-listed.json
wait-no-kind videoprocessors
dump-state
quit
EOF
console --script "$tmp/crd.txt" --state-dump "$tmp/crd-state.json" >"$tmp/crd.out" 2>&1 &
console_pid=$!
pids+=($console_pid)
wait_for_dump() {
  for _ in $(seq 1 600); do
    [[ -s $1 ]] && return 0
    kill -0 "$console_pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$tmp/crd.out" >&2
  fail "the console did not write $1"
}
wait_for_dump "$tmp/crd-before.json"
kubectl apply -f "$fixtures/00-crd.yaml" -f "$fixtures/10-media-namespace.yaml" >/dev/null ||
  fail "apply the CRD"
kubectl wait --for condition=established --timeout=20s crd/videoprocessors.media.example.com \
  >/dev/null || fail "the CRD was not established"
kubectl apply -f "$fixtures/20-processors.yaml" >/dev/null || fail "apply the VideoProcessors"
wait_for_dump "$tmp/crd-listed.json"
kubectl delete crd videoprocessors.media.example.com --timeout=20s >/dev/null ||
  fail "delete the CRD"
wait "$console_pid"
status=$?
unset 'pids[-1]'
[[ $status -eq 0 ]] || { cat "$tmp/crd.out" >&2; fail "the CRD console run exited $status"; }
python3 - "$tmp/crd-listed.json" <<'PY' || fail "crd-listed.json"
import json, sys
s = json.load(open(sys.argv[1]))
vp = s["kinds"]["media.example.com/videoprocessors"]
assert sorted(vp["visible"]) == ["media/thumbnails", "media/transcode-hd"], vp["visible"]
assert vp["columns"] == ["Namespace", "Name", "Codec", "Replicas", "Ready", "Age"], vp["columns"]
PY
echo "console: ok"
