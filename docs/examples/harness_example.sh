#!/usr/bin/env bash
# A throw-away Kubernetes API for one test run, from a shell script, seeded with fixtures.
# Usage: harness_example.sh [FIXTURES_DIR]   (KS_BINARY names the binary; default kube-sandbox)
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Harness mode: a fresh store and PKI, a free port, the ready file once it serves (fixtures are
# already loaded by then); --exit-with-parent ends it if this script dies.
"${KS_BINARY:-kube-sandbox}" serve --ephemeral --secure-port 0 --ready-file "$work/ready.json" \
  --headless --exit-with-parent ${1:+--fixtures "$1"} >"$work/sandbox.log" 2>&1 &
sandbox=$!
trap 'kill "$sandbox" 2>/dev/null; wait "$sandbox"; rm -rf "$work"' EXIT
until [[ -s $work/ready.json ]]; do
  kill -0 "$sandbox" || { cat "$work/sandbox.log"; exit 1; }
  sleep 0.01
done
export KUBECONFIG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kubeconfig"])' "$work/ready.json")

kubectl create namespace it-works
kubectl get namespaces -o name
echo "shell example: ok"
