#!/usr/bin/env bash
# `kube-sandbox store ...` as a user meets it: the real binary on a temp data dir, etcdctl's
# output shapes, exit codes, history, compaction, snapshots, and the refusal while another
# process holds the data dir.
set -euo pipefail
bin=${KS_BINARY:?KS_BINARY must name the kube-sandbox binary}
fail() { echo "FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d)
holder=
cleanup() {
  if [[ -n $holder ]]; then
    kill "$holder" 2>/dev/null || true
    wait "$holder" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

data=$tmp/data
ks() { "$bin" store "$@" --data-dir "$data"; }
# expect WANT_OUTPUT COMMAND...: runs `store COMMAND... --data-dir`, compares stdout exactly.
expect() {
  local want=$1 got
  shift
  got=$(ks "$@") || fail "store $* exited $?"
  [[ $got == "$want" ]] || fail "store $*: got [$got], want [$want]"
}
# expect_error CODE STDERR_FIRST_LINE COMMAND...
expect_error() {
  local want_code=$1 want_err=$2 code err
  shift 2
  set +e
  err=$(ks "$@" 2>&1 >/dev/null)
  code=$?
  set -e
  [[ $code -eq $want_code ]] || fail "store $* exited $code, want $want_code ($err)"
  [[ $(head -n1 <<<"$err") == "$want_err" ]] || fail "store $* said [$err], want [$want_err]"
}

# Reads before anything was written fail without creating the data dir.
expect_error 1 \
  "kube-sandbox store get: no store in $data (nothing was written there yet; see --data-dir)" get k
[[ ! -e $data ]] || fail "a read created the data dir"
expect_error 2 "kube-sandbox store get: missing KEY" get
expect_error 2 \
  "kube-sandbox store compact: REVISION must be a positive integer, got \"x\"" compact x

# put / get. The store starts at revision 1, as etcd does: the first put is revision 2.
expect OK put foo bar                         # rev 2
expect OK put foo/a 1                         # rev 3
expect OK put foo/b 2                         # rev 4
expect OK put foo/b 3                         # rev 5
[[ $(stat -c %a "$data") == 700 ]] || fail "the data dir is not private"
expect $'foo\nbar' get foo
expect "" get nope
expect $'foo/a\n1\nfoo/b\n3' get foo/ --prefix
expect $'foo\nfoo/a\nfoo/b' get foo --prefix --keys-only
expect 3 get "" --prefix --count-only
expect $'foo/a\n1' get foo/a foo/b
expect $'foo/b\n2' get foo/b --rev 4
expect_error 1 "kube-sandbox store get: etcdserver: mvcc: required revision is a future revision" \
  get foo --rev 6

# -o json: etcdctl's shape, base64 keys and values, zero fields left out.
json=$(ks get foo --prefix --limit 1 -o json)
python3 - "$json" <<'EOF' || fail "get -o json: $json"
import base64, json, sys
doc = json.loads(sys.argv[1])
assert doc["header"] == {"revision": 5}, doc
assert doc["count"] == 3 and doc["more"] is True, doc
kv = doc["kvs"][0]
assert base64.b64decode(kv["key"]) == b"foo" and base64.b64decode(kv["value"]) == b"bar", kv
assert (kv["create_revision"], kv["mod_revision"], kv["version"]) == (2, 2, 1), kv
assert "lease" not in kv, kv
EOF

# del
expect 0 del nope
expect $'1\nfoo/a\n1' del foo/a --prev-kv     # rev 6
expect 1 del foo/ --prefix                    # rev 7
expect $'foo\nbar' get "" --prefix

# watch: a replay from a revision (offline: the history, then nothing until interrupted).
got=$(timeout --preserve-status -s INT 1 "$bin" store watch foo --prefix --rev 5 --prev-kv \
  --data-dir "$data") || fail "store watch exited $?: $got"
[[ $got == $'PUT\nfoo/b\n2\nfoo/b\n3\nDELETE\nfoo/a\n1\nfoo/a\n\nDELETE\nfoo/b\n3\nfoo/b' ]] ||
  fail "store watch --rev 5 printed [$got]"

# compact: history below the revision is gone.
expect "compacted revision 6" compact 6
expect_error 1 "kube-sandbox store get: etcdserver: mvcc: required revision has been compacted" \
  get foo/b --rev 5
expect_error 1 \
  "kube-sandbox store compact: etcdserver: mvcc: required revision has been compacted" compact 5
expect_error 1 "kube-sandbox store watch: watch was canceled (etcdserver: mvcc: required revision \
has been compacted)" watch foo --rev 5

# status
status=$(ks status -o json)
python3 - "$status" <<'EOF' || fail "status -o json: $status"
import json, sys
s = json.loads(sys.argv[1])[0]["Status"]
assert s["header"]["revision"] == 7 and s["compactRevision"] == 6 and s["keyCount"] == 1, s
assert s["dbSize"] >= s["dbSizeInUse"] > 0, s
EOF
grep -q '| DB SIZE | DB SIZE IN USE | REVISION | COMPACTED | KEYS |' <<<"$(ks status -o table)" \
  || fail "status -o table lacks the header"
[[ $(ks status) == "$data, "*", 7, 6, 1" ]] || fail "status: $(ks status)"

# snapshot save, more writes, restore: back at the snapshot's revision and data.
snap=$tmp/snap.db
expect "Snapshot saved at $snap" snapshot save "$snap"
expect OK put later x                         # rev 8
expect "Snapshot restored from $snap into $data at revision 7" snapshot restore "$snap"
expect $'foo\nbar' get "" --prefix
expect_error 1 "kube-sandbox store snapshot restore: no snapshot file $tmp/none.db" \
  snapshot restore "$tmp/none.db"

# defrag keeps the data.
expect "Finished defragmenting the store in $data" defrag
expect $'foo\nbar' get foo

# Another process holds the store's lock (as a running server does): every command refuses.
(
  exec 9>"$data/store/LOCK"
  flock 9
  touch "$tmp/held"
  exec sleep 60
) &
holder=$!
for _ in $(seq 100); do
  [[ -e $tmp/held ]] && break
  sleep 0.05
done
[[ -e $tmp/held ]] || fail "the lock holder did not start"
held="the data directory $data is held by another process (a running kube-sandbox server?);"
held+=" stop it first, or use the server's API"
expect_error 1 "kube-sandbox store get: $held" get foo
expect_error 1 "kube-sandbox store put: $held" put foo baz
expect_error 1 "kube-sandbox store snapshot restore: $held" snapshot restore "$snap"
kill "$holder"
wait "$holder" 2>/dev/null || true
holder=
expect $'foo\nbar' get foo

echo "store cli: ok"
