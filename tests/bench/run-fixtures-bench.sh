#!/usr/bin/env bash
# Fixture loading rate: the `many` set (fixtures/many/generate.py; 10,000 ConfigMaps in 100
# namespaces by default) loaded (1) at start with `serve --ephemeral --fixtures`, timed from exec
# to the ready file (fixtures load before it appears), and (2) into a running sandbox with
# `kube-sandbox seed` over HTTPS, timed around the command; then seed again, every object
# unchanged. Each report line is counted: the run fails unless every object has the expected
# outcome. Then named snapshots on that sandbox (`kube-sandbox snapshot`, online): save, and
# restores that change nothing, delete everything, write everything back and undo a test's
# deletions; each with the time the server reports for it (reading the snapshot file and the
# store's replace) and the command's wall time. Prints markdown tables.
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
"$bin" snapshot save empty --kubeconfig "$kubeconfig" >/dev/null
start=$(now_ms)
"$bin" seed "$work/many" --kubeconfig "$kubeconfig" >"$work/seed1.out"
seed_ms=$(( $(now_ms) - start ))
expect "$work/seed1.out" created "$objects"
start=$(now_ms)
"$bin" seed "$work/many" --kubeconfig "$kubeconfig" >"$work/seed2.out"
reseed_ms=$(( $(now_ms) - start ))
expect "$work/seed2.out" unchanged "$objects"

# Snapshots. The namespace defaults controller adds two objects per namespace after the seed;
# wait for it, so that the saved state is the settled one.
for _ in $(seq 1 600); do
  [[ $(KUBECONFIG=$kubeconfig kubectl get configmaps -A --field-selector metadata.name=kube-root-ca.crt \
    -o name | wc -l) -ge $((namespaces + 4)) ]] && break
  sleep 0.1
done
start=$(now_ms)
saved=$("$bin" snapshot save many --kubeconfig "$kubeconfig")
save_ms=$(( $(now_ms) - start ))
restore() {  # restore NAME: sets restore_line (the command's report) and restore_wall_ms
  local start
  start=$(now_ms)
  restore_line=$("$bin" snapshot restore "$1" --kubeconfig "$kubeconfig")
  restore_wall_ms=$(( $(now_ms) - start ))
}
row() {  # row LABEL: a table row from the last restore
  [[ $restore_line =~ :\ ([0-9]+)\ written,\ ([0-9]+)\ deleted,\ ([0-9]+)\ unchanged\ in\ ([0-9.]+)\ ms ]] ||
    { echo "run-fixtures-bench: unexpected restore output: $restore_line" >&2; exit 1; }
  echo "| $1 | ${BASH_REMATCH[1]} / ${BASH_REMATCH[2]} / ${BASH_REMATCH[3]} | ${BASH_REMATCH[4]} | $restore_wall_ms |"
}
restore many; rows=$(row "restore \`many\` right after saving it (nothing to change)")
restore empty; rows+=$'\n'$(row "restore \`empty\` (every seeded object deleted)")
restore many; rows+=$'\n'$(row "restore \`many\` into that (every object written)")
KUBECONFIG=$kubeconfig kubectl delete configmaps --all -n many-000 >/dev/null
restore many; rows+=$'\n'$(row "restore \`many\` after a test deleted the ConfigMaps of one namespace")
check_held() {
  local held
  held=$(KUBECONFIG=$kubeconfig kubectl get configmaps -A -l shard -o name --chunk-size=0 | wc -l)
  [[ $held -eq $count ]] ||
    { echo "run-fixtures-bench: the restored sandbox holds $held ConfigMaps of the set, not $count" >&2; exit 1; }
}
check_held

# The same set in a durable sandbox (--data-dir: Durability::Sync, every restore fsynced). It
# starts with the bootstrap objects only (saved as `bare`) and gets the set by restoring `many`
# from the first sandbox; its namespace defaults controller then puts its own CA into every
# kube-root-ca.crt, and once it has, that state is saved as `settled` for the timed restores.
mkdir -p "$work/durable/snapshots"
cp "$(dirname "$kubeconfig")/snapshots/many.snap" "$work/durable/snapshots/"
kill "$server"; wait "$server" || true; server=
"$bin" serve --data-dir "$work/durable" --secure-port 0 --ready-file "$work/ready3.json" --headless \
  >"$work/serve.out" 2>&1 &
server=$!
wait_file "$work/ready3.json"
kubeconfig=$work/durable/kubeconfig
ca_file=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["caFile"])' "$work/ready3.json")
"$bin" snapshot save bare --kubeconfig "$kubeconfig" >/dev/null
restore many; durable_rows=$(row "restore \`many\` into the fresh sandbox (every object written)")
for _ in $(seq 1 600); do
  KUBECONFIG=$kubeconfig kubectl get configmaps -A --field-selector metadata.name=kube-root-ca.crt \
    -o json >"$work/ca.json"
  python3 - "$work/ca.json" "$ca_file" <<'PY' && break
import json, sys
items = json.load(open(sys.argv[1]))["items"]
ca = open(sys.argv[2]).read()
sys.exit(0 if items and all(i["data"]["ca.crt"] == ca for i in items) else 1)
PY
  sleep 0.1
done
"$bin" snapshot save settled --kubeconfig "$kubeconfig" >/dev/null
restore settled; durable_rows+=$'\n'$(row "restore \`settled\` right after saving it (nothing to change)")
KUBECONFIG=$kubeconfig kubectl delete configmaps --all -n many-000 >/dev/null
restore settled; durable_rows+=$'\n'$(row "restore \`settled\` after a test deleted the ConfigMaps of one namespace")
restore bare; durable_rows+=$'\n'$(row "restore \`bare\` (every restored object deleted)")
restore settled; durable_rows+=$'\n'$(row "restore \`settled\` into that (every object written)")
check_held

rate() { python3 -c "print(f'{$objects / ($1 / 1000):,.0f}')"; }
echo "## Fixture loading ($(date -u +%Y-%m-%d), $(nproc) CPUs, $("$bin" version | head -n1))"
echo
echo "| $objects objects ($count ConfigMaps in $namespaces namespaces) | ms | objects/s |"
echo "|---|---:|---:|"
echo "| serve --ephemeral --fixtures: exec → ready file (includes start-up) | $at_start_ms | $(rate "$at_start_ms") |"
echo "| seed over HTTPS into a running sandbox (all created) | $seed_ms | $(rate "$seed_ms") |"
echo "| seed again (all unchanged) | $reseed_ms | $(rate "$reseed_ms") |"
echo
echo "## Snapshots of that sandbox ($saved)"
echo
echo "| operation | written / deleted / unchanged keys | restore in the server, ms | command wall time, ms |"
echo "|---|---:|---:|---:|"
echo "| snapshot save many | | | $save_ms |"
echo "$rows"
echo
echo "The same set in a durable sandbox (\`serve --data-dir\`, every restore fsynced):"
echo
echo "| operation | written / deleted / unchanged keys | restore in the server, ms | command wall time, ms |"
echo "|---|---:|---:|---:|"
echo "$durable_rows"
