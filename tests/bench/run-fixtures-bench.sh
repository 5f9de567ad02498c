#!/usr/bin/env bash
# Fixture loading rate: the `many` set (fixtures/many/generate.py; 10,000 ConfigMaps in 100
# namespaces by default) loaded (1) at start with `serve --ephemeral --fixtures`, timed from exec
# to the ready file (fixtures load before it appears), and (2) into a running sandbox with
# `kube-sandbox seed` over HTTPS, timed around the command; then seed again, every object
# unchanged. Each report line is counted: the run fails unless every object has the expected
# outcome. Prints a markdown table.
#
#   tests/bench/run-fixtures-bench.sh [KUBE_SANDBOX_BINARY] [COUNT] [NAMESPACES]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/default/sandbox/kube-sandbox}
count=${2:-10000}
namespaces=${3:-100}
[[ -x $bin ]] || { echo "run-fixtures-bench: no kube-sandbox binary at $bin" >&2; exit 2; }
work=$(mktemp -d)
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
now_ms() { date +%s%3N; }
wait_file() {
  until [[ -s $1 ]]; do
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.out" >&2; exit 1; }
    sleep 0.01
  done
}
expect() {  # expect FILE WORD N: N report lines end in WORD
  local got
  got=$(grep -c " $2\$" "$1" || true)
  [[ $got -eq $3 ]] || { echo "run-fixtures-bench: $got objects $2, wanted $3" >&2; exit 1; }
}

python3 fixtures/many/generate.py "$work/many" --count "$count" --namespaces "$namespaces"
objects=$((count + namespaces))

start=$(now_ms)
"$bin" serve --ephemeral --secure-port 0 --ready-file "$work/ready.json" --headless \
  --fixtures "$work/many" >"$work/serve.out" 2>&1 &
server=$!
wait_file "$work/ready.json"
at_start_ms=$(( $(now_ms) - start ))
expect "$work/serve.out" created "$objects"
kill "$server"; wait "$server" || true; server=

"$bin" serve --ephemeral --secure-port 0 --ready-file "$work/ready2.json" --headless \
  >"$work/serve.out" 2>&1 &
server=$!
wait_file "$work/ready2.json"
kubeconfig=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kubeconfig"])' "$work/ready2.json")
start=$(now_ms)
"$bin" seed "$work/many" --kubeconfig "$kubeconfig" >"$work/seed1.out"
seed_ms=$(( $(now_ms) - start ))
expect "$work/seed1.out" created "$objects"
start=$(now_ms)
"$bin" seed "$work/many" --kubeconfig "$kubeconfig" >"$work/seed2.out"
reseed_ms=$(( $(now_ms) - start ))
expect "$work/seed2.out" unchanged "$objects"

rate() { python3 -c "print(f'{$objects / ($1 / 1000):,.0f}')"; }
echo "## Fixture loading ($(date -u +%Y-%m-%d), $(nproc) CPUs, $("$bin" version | head -n1))"
echo
echo "| $objects objects ($count ConfigMaps in $namespaces namespaces) | ms | objects/s |"
echo "|---|---:|---:|"
echo "| serve --ephemeral --fixtures: exec → ready file (includes start-up) | $at_start_ms | $(rate "$at_start_ms") |"
echo "| seed over HTTPS into a running sandbox (all created) | $seed_ms | $(rate "$seed_ms") |"
echo "| seed again (all unchanged) | $reseed_ms | $(rate "$reseed_ms") |"
