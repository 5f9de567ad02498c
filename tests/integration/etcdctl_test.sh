#!/usr/bin/env bash
# Debian's etcdctl 3.4 against the store's etcd v3 endpoint, every command a learner uses: the
# key and revision a kubectl command wrote, put/get/del with their flags, watch, txn, leases,
# compaction, snapshot, defrag, endpoint status/health/hashkv and member list; then the same
# endpoint over TLS with the data directory's certificates, and `kube-sandbox etcd` alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=serve_lib.sh
source "$here/serve_lib.sh"
out=$tmp/serve.out

serve_ready main --etcd-listen http://127.0.0.1:0 --nodes=0 --controllers=
etcd=$(json "$tmp/main.json" '["etcd"]')
[[ $etcd == http://127.0.0.1:* ]] || fail "ready file etcd: [$etcd]"
grep -q "etcdctl --endpoints=$etcd" "$out" || fail "serve did not print the etcdctl line"
e() { etcdctl --endpoints="$etcd" --dial-timeout=5s --command-timeout=20s "$@"; }
# expect WANT COMMAND...: etcdctl's stdout, exactly.
expect() {
  local want=$1 got
  shift
  got=$(e "$@" 2>&1) || fail "etcdctl $* exited $?: $got"
  [[ $got == "$want" ]] || fail "etcdctl $*: got [$got], want [$want]"
}
# expect_error MESSAGE COMMAND...: etcdctl fails and says MESSAGE.
expect_error() {
  local want=$1 got
  shift
  if got=$(e "$@" 2>&1); then fail "etcdctl $* succeeded: $got"; fi
  [[ $got == *"$want"* ]] || fail "etcdctl $*: said [$got], want [$want]"
}

# The key a kubectl command wrote, with the revision its resourceVersion names.
kubectl create configmap learn --from-literal=greeting=hello >/dev/null
rv=$(kubectl get configmap learn -o jsonpath='{.metadata.resourceVersion}')
value=$(e get /registry/configmaps/default/learn --print-value-only)
[[ $value == *'"greeting":"hello"'* ]] || fail "the ConfigMap's value in etcd: $value"
mod=$(e get /registry/configmaps/default/learn -w json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
[[ $mod == "$rv" ]] || fail "mod_revision $mod, resourceVersion $rv"
grep -qx /registry/namespaces/default <<<"$(e get /registry/namespaces --prefix --keys-only)" ||
  fail "no /registry/namespaces/default"

# put, get and its flags, del. (Output is matched from a capture, never through a pipe into
# `grep -q`: under pipefail, grep's early exit fails the writer with SIGPIPE.)
expect OK put /demo/a 1
expect OK put /demo/b 2
expect OK put /demo/c 3
first=$(e get /demo/a -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
expect OK put /demo/a 10
expect $'/demo/a\n10\n/demo/b\n2\n/demo/c\n3' get /demo --prefix
expect $'/demo/a\n\n/demo/b\n\n/demo/c' get /demo --prefix --keys-only  # a blank value line each
expect $'/demo/a\n10' get /demo --prefix --limit=1
expect $'/demo/a\n10\n/demo/c\n3\n/demo/b\n2' get /demo --prefix --sort-by=MODIFY --order=DESCEND
expect $'/demo/b\n2\n/demo/c\n3' get /demo/b --from-key --limit=2  # then /registry/...
expect $'/demo/a\n1' get /demo/a --rev="$first"
grep -q '^"Value" : "10"$' <<<"$(e get /demo/a -w fields)" || fail "get -w fields"
expect 1 del /demo/c
expect 0 del /demo/c
expect 2 del /demo --prefix

# watch: live with the previous value, and replayed from a revision.
e watch /demo --prefix --prev-kv >"$tmp/watch.out" 2>&1 &
watcher=$!
pids+=("$watcher")
sleep 1
expect OK put /demo/w one
expect OK put /demo/w two
for _ in $(seq 1 100); do
  [[ $(grep -c PUT "$tmp/watch.out") -ge 2 ]] && break
  sleep 0.05
done
kill "$watcher"
want_watch=$'PUT\n/demo/w\none\nPUT\n/demo/w\none\n/demo/w\ntwo'
[[ $(cat "$tmp/watch.out") == "$want_watch" ]] || fail "watch printed [$(cat "$tmp/watch.out")]"
rev=$(e get /demo/w -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])')
timeout 5 etcdctl --endpoints="$etcd" watch /demo/w --rev=$((rev - 1)) >"$tmp/replay.out" 2>&1 || true
[[ $(head -n 6 "$tmp/replay.out") == $'PUT\n/demo/w\none\nPUT\n/demo/w\ntwo' ]] ||
  fail "watch --rev printed [$(cat "$tmp/replay.out")]"

# txn: the comparison picks the branch.
got=$(printf 'value("/demo/w") = "two"\n\nput /demo/t yes\n\nput /demo/t no\n\n' | e txn) ||
  fail "txn exited $?"
[[ $got == $'SUCCESS\n\nOK' ]] || fail "txn printed [$got]"
expect $'/demo/t\nyes' get /demo/t

# Leases.
grant=$(e lease grant 60)
[[ $grant =~ ^lease\ ([0-9a-f]+)\ granted\ with\ TTL\(60s\)$ ]] || fail "lease grant: $grant"
lease=${BASH_REMATCH[1]}
expect OK put /demo/leased x --lease="$lease"
grep -q "attached keys(\[/demo/leased\])" <<<"$(e lease timetolive "$lease" --keys)" ||
  fail "lease timetolive: $(e lease timetolive "$lease" --keys)"
grep -qx "$lease" <<<"$(e lease list)" || fail "lease list: $(e lease list)"
grep -q "lease $lease keepalived with TTL(60)" <<<"$(e lease keep-alive --once "$lease")" ||
  fail "lease keep-alive"
expect "lease $lease revoked" lease revoke "$lease"
expect "" get /demo/leased

# Compaction, then a read below it.
now=$(e get /demo/t -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
expect "compacted revision $now" compaction "$now"
expect_error "etcdserver: mvcc: required revision has been compacted" get /demo/a --rev="$first"

# Maintenance and cluster.
e snapshot save "$tmp/snap.db" >"$tmp/snap.out" 2>&1 || fail "snapshot save: $(cat "$tmp/snap.out")"
grep -q "Snapshot saved at $tmp/snap.db" "$tmp/snap.out" || fail "snapshot save: $(cat "$tmp/snap.out")"
[[ $(( $(stat -c %s "$tmp/snap.db") % 512 )) -eq 32 ]] || fail "snapshot size"
expect "Finished defragmenting etcd member[$etcd]" defrag
status=$(e endpoint status -w json)
python3 - "$status" <<'PY' || fail "endpoint status: $status"
import json, sys
s = json.loads(sys.argv[1])[0]["Status"]
assert s["version"] == "3.5.17", s
assert s["leader"] == s["header"]["member_id"], s
assert s["dbSize"] > 0, s
PY
grep -q "^$etcd is healthy: successfully committed proposal" <<<"$(e endpoint health 2>&1)" ||
  fail "endpoint health: $(e endpoint health 2>&1)"
e endpoint hashkv | grep -Eq "^$etcd, [0-9]+$" || fail "endpoint hashkv: $(e endpoint hashkv)"
e member list | grep -Eq "^[0-9a-f]+, started, kube-sandbox, , $etcd, false$" ||
  fail "member list: $(e member list)"

# TLS: the data directory's serving certificate, and client certificates its CA signed.
out=$tmp/tls.out
serve_ready tls --etcd-listen https://127.0.0.1:0 --nodes=0 --controllers=
secure=$(json "$tmp/tls.json" '["etcd"]')
pki=$(dirname "$ca")
etcdctl --endpoints="$secure" --cacert="$ca" --cert="$pki/admin.crt" --key="$pki/admin.key" \
  put /tls ok >/dev/null || fail "etcdctl with the admin certificate"
if etcdctl --endpoints="$secure" --cacert="$ca" --dial-timeout=2s --command-timeout=3s \
  get /tls >/dev/null 2>&1; then
  fail "a client without a certificate was served"
fi

# `kube-sandbox etcd`: the store alone, with etcd's flags; its data outlives it.
out=$tmp/etcd.out
"$bin" etcd --name solo --data-dir "$tmp/solo" --listen-client-urls http://127.0.0.1:0 \
  --listen-peer-urls http://localhost:0 --initial-cluster solo=http://localhost:2380 \
  --unsafe-no-fsync >"$out" 2>&1 &
pids+=($!)
solo_pid=$!
for _ in $(seq 1 100); do grep -q 'serving the etcd v3 API at' "$out" && break; sleep 0.05; done
solo=$(sed -n 's/.* at \(http:[^ ]*\) .*/\1/p' "$out")
[[ -n $solo ]] || fail "kube-sandbox etcd printed no URL"
[[ $(curl -sf "$solo/health") == '{"health":"true","reason":""}' ]] || fail "etcd /health"
etcdctl --endpoints="$solo" put /solo 1 >/dev/null || fail "put on kube-sandbox etcd"
grep -q ', started, solo, , ' <<<"$(etcdctl --endpoints="$solo" member list)" || fail "solo member list"
kill -TERM "$solo_pid"
wait "$solo_pid" || fail "kube-sandbox etcd exited $? on SIGTERM"
[[ -f $tmp/solo/store/data.mdb ]] || fail "no store in the data dir"
code=0
"$bin" etcd --initial-cluster a=http://x:1,b=http://y:2 --name a >/dev/null 2>&1 || code=$?
[[ $code -eq 2 ]] || fail "a two-member --initial-cluster exited $code, want 2"
echo "PASS"
