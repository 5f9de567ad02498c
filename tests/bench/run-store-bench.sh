#!/usr/bin/env bash
# Runs the store benchmark: starts a throwaway etcd 3.4 on loopback ports with a temp data dir,
# runs ks_store_bench against it and the embedded store, prints the markdown table, and stops
# etcd again. Builds nothing.
#
#   tests/bench/run-store-bench.sh [BENCH_BINARY] [-- bench flags...]
#
# BENCH_BINARY defaults to build/default/tests/bench/ks_store_bench. Ports: KS_BENCH_ETCD_PORT
# (default 23790) for clients and the next one for peers. Example smoke run:
#   tests/bench/run-store-bench.sh -- --puts 100 --writers 1,16 --watchers 50 --watch-rounds 5
set -euo pipefail
cd "$(dirname "$0")/../.."

bench=build/default/tests/bench/ks_store_bench
if [[ $# -gt 0 && $1 != -- ]]; then
  bench=$1
  shift
fi
[[ ${1:-} == -- ]] && shift
die() { echo "run-store-bench: $*" >&2; exit 2; }
[[ -x $bench ]] || die "no bench binary at $bench (build it first)"
command -v etcd >/dev/null || die "etcd is not installed (Debian: etcd-server)"
command -v curl >/dev/null || die "curl is not installed"

client_port=${KS_BENCH_ETCD_PORT:-23790}
peer_port=$((client_port + 1))
data=$(mktemp -d)
etcd_pid=
cleanup() {
  if [[ -n $etcd_pid ]]; then
    kill "$etcd_pid" 2>/dev/null || true
    wait "$etcd_pid" 2>/dev/null || true
  fi
  rm -rf "$data"
}
trap cleanup EXIT INT TERM

# One socket per watcher on each side.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

etcd --name bench --data-dir "$data/etcd" \
  --listen-client-urls "http://127.0.0.1:$client_port" \
  --advertise-client-urls "http://127.0.0.1:$client_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "bench=http://127.0.0.1:$peer_port" \
  >"$data/etcd.log" 2>&1 &
etcd_pid=$!

for _ in $(seq 100); do
  if curl -sf "http://127.0.0.1:$client_port/health" 2>/dev/null | grep -q '"health":"true"'; then
    break
  fi
  if ! kill -0 "$etcd_pid" 2>/dev/null; then
    cat "$data/etcd.log" >&2
    die "etcd exited (its log is above)"
  fi
  sleep 0.1
done
curl -sf "http://127.0.0.1:$client_port/health" >/dev/null || die "etcd did not become healthy"

echo "## Store benchmark ($(date -u +%Y-%m-%d), $(nproc) CPUs, $(etcd --version | head -n1))"
echo
"$bench" --etcd "127.0.0.1:$client_port" "$@"
