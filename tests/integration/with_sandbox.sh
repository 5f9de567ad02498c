#!/usr/bin/env bash
# Runs a command against a fresh sandbox: starts `kube-sandbox serve --ephemeral` on port 0,
# waits for its ready file, runs COMMAND with KUBECONFIG (and the kubeconfig path as its last
# argument when it ends in .py; KS_READY_FILE names the ready file), then stops the sandbox with
# SIGTERM and checks it exits 0.
# KS_SERVE_FLAGS, when set, adds flags to serve (word-split).
#   with_sandbox.sh COMMAND [ARGS...]
set -euo pipefail
bin=${KS_BINARY:?KS_BINARY must name the kube-sandbox binary}
tmp=$(mktemp -d)
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck disable=SC2086
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/ready.json" ${KS_SERVE_FLAGS:-} \
  >"$tmp/serve.out" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  [[ -s $tmp/ready.json ]] && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/serve.out" >&2; exit 1; }
  sleep 0.05
done
[[ -s $tmp/ready.json ]] || { echo "sandbox not ready after 10 s" >&2; exit 1; }
KUBECONFIG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kubeconfig"])' "$tmp/ready.json")
export KUBECONFIG
export KS_READY_FILE=$tmp/ready.json
status=0
"$@" "$KUBECONFIG" || status=$?
kill -TERM "$pid"
wait "$pid" || { echo "sandbox exited $? on SIGTERM" >&2; status=1; }
pid=
exit $status
