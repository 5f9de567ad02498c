#!/usr/bin/env bash
# The desktop console as a user RBAC restricts: `kube-sandbox console --kubeconfig F` with the
# bearer token of a --token-auth-file user, alice, who may only read ConfigMaps in default.
# The console must say who it is connected as, fall back to the kubeconfig's namespace when the
# namespace list is refused, list the ConfigMaps, grey out Edit, Delete and New with the reason,
# show a refused apply and the refused pod list with the server's own 403 message, and mark the
# kinds alice may not list. The admin, against the same server, has nothing greyed out.
# Screenshots go to $KS_SHOT_DIR when it is set (to look at them).
# Skips (77) only when xvfb-run is missing.
set -uo pipefail
source "$(dirname "$0")/serve_lib.sh"
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run is not installed"; exit 77; }
export LIBGL_ALWAYS_SOFTWARE=1
export XDG_CONFIG_HOME=$tmp/config

echo 'alice-token,alice,alice-uid,"devs"' >"$tmp/users.csv"
out=$tmp/serve.out
"$bin" serve --ephemeral --headless --secure-port 0 --ready-file "$tmp/ready.json" \
  --token-auth-file "$tmp/users.csv" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready.json"
export KUBECONFIG=$(json "$tmp/ready.json" '["kubeconfig"]')

kubectl create role configmap-reader -n default --verb=get,list,watch --resource=configmaps \
  >/dev/null || fail "create role"
kubectl create rolebinding alice-reads -n default --role=configmap-reader --user=alice \
  >/dev/null || fail "create rolebinding"
kubectl create configmap settings -n default --from-literal=mode=slow >/dev/null ||
  fail "create configmap"

# alice's kubeconfig: the same cluster, her token, namespace default
alice=$tmp/alice.kubeconfig
cluster=$(kubectl config view -o jsonpath='{.contexts[0].context.cluster}')
kubectl config view --raw --minify >"$alice" || fail "copy kubeconfig"
KUBECONFIG=$alice kubectl config set-credentials alice --token=alice-token >/dev/null &&
  KUBECONFIG=$alice kubectl config set-context alice --cluster="$cluster" --user=alice \
    --namespace=default >/dev/null &&
  KUBECONFIG=$alice kubectl config use-context alice >/dev/null || fail "alice's kubeconfig"
[[ $(KUBECONFIG=$alice kubectl auth whoami -o jsonpath='{.status.userInfo.username}') == alice ]] ||
  fail "alice's kubeconfig does not authenticate"

cat >"$tmp/script.txt" <<EOF
timeout 40
wait-access
select-kind configmaps
wait-rows >=1
open default/settings
wait-access
frames 10
screenshot greyed
dump-state $tmp/greyed.json
edit
edit-set data.mode fast
apply
expect-apply Forbidden
screenshot apply-refused
dump-state $tmp/apply.json
cancel
select-kind pods
frames 10
screenshot pods-refused
dump-state $tmp/pods.json
EOF
unset KUBECONFIG
xvfb-run -a -f "$(mktemp "$tmp/xauth.XXXXXX")" -s "-screen 0 1400x900x24" \
  "$bin" console --kubeconfig "$alice" --window-size 1280x800 --script "$tmp/script.txt" \
  --screenshot-dir "$tmp/shots" >"$tmp/console.out" 2>&1 ||
  fail "console run: $(cat "$tmp/console.out")"

python3 - "$tmp" <<'PY' || fail "state dumps"
import json, sys
tmp = sys.argv[1]
greyed = json.load(open(tmp + "/greyed.json"))
access = greyed["access"]
assert access["user"] == "alice", access
assert greyed["namespace"] == "default", greyed["namespace"]
assert access["namespacesDenied"] == ('namespaces is forbidden: User "alice" cannot list resource '
                                      '"namespaces" in API group "" at the cluster scope'), access
assert "default/settings" in greyed["kinds"]["core/configmaps"]["visible"], greyed["kinds"]
for verb, key in (("patch", "edit"), ("delete", "delete"), ("create", "create")):
    want = ('User "alice" cannot %s resource "configmaps" in API group "" in the namespace '
            '"default"' % verb)
    assert access[key] == {"allowed": False, "reason": want}, (key, access[key])
# the server's 403 to a count, or the rules' verdict worded the same way until it comes
assert access["listDenied"]["core/pods"].endswith(
    'User "alice" cannot list resource "pods" in API group "" in the namespace "default"'), access
assert "core/configmaps" not in access["listDenied"], access["listDenied"]
error = json.load(open(tmp + "/apply.json"))["lastAction"]["error"]
assert error["httpStatus"] == 403 and error["reason"] == "Forbidden", error
assert error["message"] == (
    'configmaps "settings" is forbidden: User "alice" cannot patch resource "configmaps" in API '
    'group "" in the namespace "default"'), error
pods = json.load(open(tmp + "/pods.json"))["kinds"]["core/pods"]
assert pods["refused"] == 403 and pods["scope"] == "default", pods
assert pods["error"] == ('pods is forbidden: User "alice" cannot list resource "pods" in API '
                         'group "" in the namespace "default"'), pods
PY
for shot in greyed apply-refused pods-refused; do
  python3 - "$tmp/shots/$shot.png" <<'PY' || fail "screenshot $shot"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
assert struct.unpack(">II", data[16:24]) == (1280, 800)
PY
  if [[ -n ${KS_SHOT_DIR:-} ]]; then
    mkdir -p "$KS_SHOT_DIR" && cp "$tmp/shots/$shot.png" "$KS_SHOT_DIR/"
  fi
done
[[ $(kubectl --kubeconfig "$(json "$tmp/ready.json" '["kubeconfig"]')" get configmap settings \
  -o jsonpath='{.data.mode}') == slow ]] || fail "the refused apply changed the object"

# the admin (system:masters) against the same server: nothing greyed out, every kind listable
cat >"$tmp/admin.txt" <<EOF
timeout 40
namespace default
wait-access
select-kind configmaps
open default/settings
wait-access
dump-state $tmp/admin.json
EOF
xvfb-run -a -f "$(mktemp "$tmp/xauth.XXXXXX")" -s "-screen 0 1400x900x24" \
  "$bin" console --kubeconfig "$(json "$tmp/ready.json" '["kubeconfig"]')" \
  --window-size 1280x800 --script "$tmp/admin.txt" >"$tmp/admin.out" 2>&1 ||
  fail "admin console run: $(cat "$tmp/admin.out")"
python3 - "$tmp/admin.json" <<'PY' || fail "admin state dump"
import json, sys
access = json.load(open(sys.argv[1]))["access"]
assert access["rulesKnown"] and "system:masters" in access["groups"], access
for key in ("edit", "delete", "create"):
    assert access[key] == {"allowed": True, "reason": ""}, (key, access[key])
assert access["listDenied"] == {} and access["namespacesDenied"] == "", access
PY
echo PASS
