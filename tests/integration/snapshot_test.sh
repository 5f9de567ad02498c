#!/usr/bin/env bash
# Named snapshots for resets between tests (`kube-sandbox snapshot`): a sandbox seeded with
# fixtures/basics is saved online, changed with kubectl (create, delete, edit, scale), and
# restored online while a kubectl watch and a raw watch are open. Afterwards kubectl sees exactly
# the saved objects (same uids and contents), both watches ended with a 410 Expired error, and
# the resourceVersions read after the restore are greater than every one read before. Then the
# offline mode on the stopped server's data directory: refused while a server holds it, a
# save/restore round trip whose revision keeps growing; and snapshots of an --ephemeral server.
set -uo pipefail
source "$(dirname "$0")/serve_lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
stop_server() {
  kill -TERM "$server"
  wait "$server" || fail "serve exited $? on SIGTERM"
}
start() {  # start NAME [serve flags...]: a server on $tmp/data whose ready file is $tmp/NAME.json
  local name=$1
  shift
  out=$tmp/$name.out
  "$bin" serve --data-dir "$tmp/data" --secure-port 0 --ready-file "$tmp/$name.json" --headless \
    "$@" >"$out" 2>&1 &
  server=$!
  pids+=($server)
  wait_for "$tmp/$name.json"
}
# Every object of the kinds the fixtures and the test touch: kind, namespace, name, uid and
# content (not the resourceVersion), sorted; plus the highest resourceVersion read, in $seen_rv.
kinds=configmaps,secrets,deployments,services,serviceaccounts,namespaces
state() {
  kubectl get "$kinds" -A -o json >"$tmp/state.json" || fail "kubectl get $kinds"
  python3 - "$tmp/state.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for item in sorted(doc["items"], key=lambda i: (i["kind"], i["metadata"].get("namespace", ""), i["metadata"]["name"])):
    m = item["metadata"]
    body = {k: v for k, v in item.items() if k not in ("metadata", "status")}
    print(item["kind"], m.get("namespace", ""), m["name"], m["uid"], json.dumps(body, sort_keys=True))
PY
}
max_rv() {  # the highest resourceVersion in a list and its items
  kubectl get "$kinds" -A -o json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
rvs = [int(i["metadata"]["resourceVersion"]) for i in doc["items"]]
print(max(rvs + [int(doc["metadata"].get("resourceVersion") or 0)]))'
}
list_rv() { kubectl get --raw "/api/v1/$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])'; }

start first --fixtures "$root/fixtures/basics"
export KUBECONFIG=$tmp/data/kubeconfig
# The namespace defaults controller fills demo in (kube-root-ca.crt, the default ServiceAccount)
# right after it is created; save once that is done, or the restore would be followed by it.
for _ in $(seq 1 100); do
  kubectl get configmap kube-root-ca.crt -n demo >/dev/null 2>&1 &&
    kubectl get serviceaccount default -n demo >/dev/null 2>&1 && break
  sleep 0.05
done

# online save: KUBECONFIG is set, so the command goes through the server's API
saved=$("$bin" snapshot save base 2>&1) || fail "snapshot save: $saved"
[[ $saved == 'snapshot "base" saved at revision '* ]] || fail "snapshot save said: $saved"
listed=$("$bin" snapshot list -o name) || fail "snapshot list"
[[ $listed == base ]] || fail "snapshot list: $listed"
expected=$(state)

# change things: create, delete, edit, scale
kubectl create configmap extra -n demo --from-literal=a=b >/dev/null || fail "create"
kubectl delete secret web-credentials -n demo >/dev/null || fail "delete"
cat >"$tmp/editor.sh" <<'SH'
#!/bin/sh
sed -i 's/LOG_LEVEL: info/LOG_LEVEL: debug/' "$1"
SH
chmod +x "$tmp/editor.sh"
EDITOR=$tmp/editor.sh kubectl edit configmap web-config -n demo >/dev/null || fail "edit"
[[ $(kubectl get configmap web-config -n demo -o jsonpath='{.data.LOG_LEVEL}') == debug ]] ||
  fail "the edit did not land"
kubectl scale deployment web -n demo --replicas=5 >/dev/null || fail "scale"
kubectl delete configmap web-config -n demo >/dev/null || fail "delete web-config"
kubectl create configmap web-config -n demo --from-literal=LOG_LEVEL=trace >/dev/null ||
  fail "recreate web-config"  # same name, another uid
changed=$(state)
[[ $changed != "$expected" ]] || fail "the changes did not change anything"
seen_rv=$(max_rv)
cm_rv=$(list_rv namespaces/demo/configmaps)
(( cm_rv > seen_rv )) && seen_rv=$cm_rv

# watches open across the restore: kubectl's, and a raw one from the last resourceVersion
kubectl get configmaps -n demo -w --output-watch-events >"$tmp/kubectl-watch.out" 2>&1 &
kubectl_watch=$!
pids+=($kubectl_watch)
kubectl get --raw "/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=$cm_rv" \
  >"$tmp/raw-watch.out" 2>&1 &
raw_watch=$!
pids+=($raw_watch)
for _ in $(seq 1 100); do grep -q web-config "$tmp/kubectl-watch.out" && break; sleep 0.05; done
sleep 0.2  # the raw watch has nothing to print before the restore; give it time to connect

restored=$("$bin" snapshot restore base 2>&1) || fail "snapshot restore: $restored"
[[ $restored =~ ^snapshot\ \"base\"\ restored\ at\ revision\ ([0-9]+):\ ([0-9]+)\ written,\ ([0-9]+)\ deleted,\ ([0-9]+)\ unchanged\ in\ ([0-9.]+)\ ms$ ]] ||
  fail "snapshot restore said: $restored"
restore_rv=${BASH_REMATCH[1]}
echo "online restore: ${BASH_REMATCH[2]} written, ${BASH_REMATCH[3]} deleted in ${BASH_REMATCH[5]} ms (server side)"
(( restore_rv > seen_rv )) || fail "restored at revision $restore_rv, not above $seen_rv seen before"

# exactly the snapshot: same objects, same uids, same contents
after=$(state)
[[ $after == "$expected" ]] || fail "state after restore differs from the snapshot:
$(diff <(echo "$expected") <(echo "$after"))"
[[ $(kubectl get configmap web-config -n demo -o jsonpath='{.data.LOG_LEVEL}') == info ]] ||
  fail "web-config is not back to its saved content"
kubectl get configmap extra -n demo >/dev/null 2>&1 && fail "extra survived the restore"
[[ $(kubectl get deployment web -n demo -o jsonpath='{.spec.replicas}') == 2 ]] || fail "replicas"
after_rv=$(list_rv namespaces/demo/configmaps)
(( after_rv > seen_rv )) || fail "list resourceVersion $after_rv after restore, $seen_rv seen before"
(( $(kubectl get secret web-credentials -n demo -o jsonpath='{.metadata.resourceVersion}') > seen_rv )) ||
  fail "a restored object's resourceVersion is not above those seen before"

# both watches ended with 410 Expired
for _ in $(seq 1 100); do kill -0 "$raw_watch" 2>/dev/null || break; sleep 0.05; done
kill -0 "$raw_watch" 2>/dev/null && fail "the raw watch is still open after the restore"
grep -q '"type":"ERROR"' "$tmp/raw-watch.out" && grep -q '"code":410' "$tmp/raw-watch.out" &&
  grep -q '"reason":"Expired"' "$tmp/raw-watch.out" ||
  fail "the raw watch got no 410 Expired: $(cat "$tmp/raw-watch.out")"
for _ in $(seq 1 100); do grep -qi 'expired\|too old\|410' "$tmp/kubectl-watch.out" && break; sleep 0.05; done
grep -qi 'expired\|too old\|410' "$tmp/kubectl-watch.out" ||
  fail "kubectl's watch saw no expiry: $(cat "$tmp/kubectl-watch.out")"
kill "$kubectl_watch" 2>/dev/null
# a watch from a resourceVersion of before the restore is refused the same way
stale=$(kubectl get --raw "/api/v1/namespaces/demo/configmaps?watch=true&resourceVersion=$cm_rv&timeoutSeconds=5")
[[ $stale == *'"code":410'* ]] || fail "a watch from before the restore: $stale"

# the admin endpoint's errors
missing=$("$bin" snapshot restore nope 2>&1); code=$?
[[ $code -eq 1 && $missing == *'snapshots "nope" not found (HTTP 404)'* ]] || fail "unknown name: $code $missing"
refused=$("$bin" snapshot save base --data-dir "$tmp/data" 2>&1); code=$?
[[ $code -eq 1 && $refused == *"is held by a running kube-sandbox server"* ]] ||
  fail "offline save beside a running server: $code $refused"
stop_server

# offline: a round trip on the stopped server's data directory
unset KUBECONFIG
"$bin" snapshot save offline --data-dir "$tmp/data" >/dev/null || fail "offline save"
start second
export KUBECONFIG=$tmp/data/kubeconfig
offline_state=$(state)  # what the data directory held when it was saved
kubectl delete namespace demo --wait=false >/dev/null || fail "delete demo"
kubectl create configmap offline-extra >/dev/null || fail "create"
stop_server
unset KUBECONFIG
before_rev=$("$bin" store status -o json --data-dir "$tmp/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
restored=$("$bin" snapshot restore offline --data-dir "$tmp/data") || fail "offline restore: $restored"
[[ $before_rev =~ ^[0-9]+$ ]] || fail "store status gave no revision: $before_rev"
[[ $restored =~ restored\ at\ revision\ ([0-9]+): ]] || fail "offline restore said: $restored"
(( BASH_REMATCH[1] > before_rev )) || fail "offline restore at ${BASH_REMATCH[1]}, the store was at $before_rev"
start third
export KUBECONFIG=$tmp/data/kubeconfig
[[ $(state) == "$offline_state" ]] || fail "state after the offline restore differs from the snapshot"
[[ $("$bin" snapshot list -o name | tr '\n' ' ') == "base offline " ]] || fail "both modes see both snapshots"
"$bin" snapshot delete offline >/dev/null || fail "online delete"
[[ $("$bin" snapshot list -o name --data-dir "$tmp/data" 2>/dev/null) == base ]] ||
  fail "offline list after an online delete"
stop_server

# --ephemeral: snapshots live in the temporary data directory
out=$tmp/ephemeral.out
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ephemeral.json" --headless >"$out" 2>&1 &
server=$!
pids+=($server)
wait_for "$tmp/ephemeral.json"
export KUBECONFIG=$(json "$tmp/ephemeral.json" '["kubeconfig"]')
"$bin" snapshot save clean >/dev/null || fail "ephemeral save"
kubectl create configmap temp >/dev/null || fail "ephemeral create"
"$bin" snapshot restore clean >/dev/null || fail "ephemeral restore"
kubectl get configmap temp >/dev/null 2>&1 && fail "ephemeral restore kept a later object"
[[ -f $(dirname "$KUBECONFIG")/snapshots/clean.snap ]] || fail "no snapshot in the ephemeral dir"
stop_server
echo "snapshot: ok"
