#!/usr/bin/env bash
# Harness mode, as other projects' test suites use it: `serve --ephemeral --secure-port 0
# --ready-file F --headless`. 20 instances start side by side and each serves kubectl through the
# kubeconfig its ready file names; --exit-with-parent stops an instance when its parent dies and
# when the parent closes the instance's piped stdin; nothing is left behind.
set -uo pipefail
bin=${KS_BINARY:?KS_BINARY must name the kube-sandbox binary}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
cleanup() {
  pkill -f "ready-file $tmp/" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
wait_file() {
  for _ in $(seq 1 400); do [[ -s $1 ]] && return 0; sleep 0.05; done
  return 1
}

# 20 instances at once, each answering kubectl on its own port
for i in $(seq 1 20); do
  "$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready-$i.json" --headless \
    >"$tmp/out-$i" 2>&1 &
done
ports=()
for i in $(seq 1 20); do
  wait_file "$tmp/ready-$i.json" || fail "instance $i not ready: $(cat "$tmp/out-$i")"
  kc=$(json "$tmp/ready-$i.json" '["kubeconfig"]')
  KUBECONFIG=$kc kubectl create configmap "only-in-$i" >/dev/null || fail "instance $i: create"
  [[ $(KUBECONFIG=$kc kubectl get configmaps -o name | grep -c only-in-) -eq 1 ]] ||
    fail "instance $i sees another instance's objects"
  ports+=("$(json "$tmp/ready-$i.json" '["url"]')")
done
[[ $(printf '%s\n' "${ports[@]}" | sort -u | wc -l) -eq 20 ]] || fail "instances share a port"
dirs=()
for i in $(seq 1 20); do dirs+=("$(dirname "$(json "$tmp/ready-$i.json" '["kubeconfig"]')")"); done
pkill -TERM -f "ready-file $tmp/ready-" || true
for _ in $(seq 1 100); do pgrep -f "ready-file $tmp/ready-" >/dev/null || break; sleep 0.05; done
pgrep -f "ready-file $tmp/ready-" >/dev/null && fail "instances still running after SIGTERM"
for d in "${dirs[@]}"; do [[ ! -e $d ]] || fail "--ephemeral left $d behind"; done

# --exit-with-parent: the parent shell exits, the instance follows
bash -c "'$bin' serve --ephemeral --secure-port 0 --ready-file '$tmp/orphan.json' --headless \
  --exit-with-parent >'$tmp/orphan.out' 2>&1 & for _ in \$(seq 1 200); do [[ -s '$tmp/orphan.json' ]] && exit 0; sleep 0.05; done"
wait_file "$tmp/orphan.json" || fail "orphan instance never ready"
for _ in $(seq 1 100); do pgrep -f "ready-file $tmp/orphan.json" >/dev/null || break; sleep 0.05; done
pgrep -f "ready-file $tmp/orphan.json" >/dev/null && fail "--exit-with-parent: still running after its parent exited"
grep -q "shutting down" "$tmp/orphan.out" || fail "--exit-with-parent: no graceful stop"

# --exit-with-parent: the end of a piped stdin stops it too
exec {feed}> >("$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/piped.json" --headless \
  --exit-with-parent >"$tmp/piped.out" 2>&1)
wait_file "$tmp/piped.json" || fail "piped instance never ready"
exec {feed}>&-
for _ in $(seq 1 100); do pgrep -f "ready-file $tmp/piped.json" >/dev/null || break; sleep 0.05; done
pgrep -f "ready-file $tmp/piped.json" >/dev/null && fail "--exit-with-parent: still running after stdin closed"
echo "harness: ok"
