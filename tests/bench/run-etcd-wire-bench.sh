#!/usr/bin/env bash
# The etcd wire API side by side: starts `kube-sandbox etcd` (durable: fsync per group commit)
# and then Debian's etcd 3.4 (durable: WAL fsync), each alone on loopback with a fresh data dir,
# drives each with the same gRPC client (ks_etcd_wire_bench) and prints the markdown table.
# Builds nothing.
#
#   tests/bench/run-etcd-wire-bench.sh [-- bench flags...]   e.g. -- --seconds 3 --clients 1,16
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=build/default/tests/bench/ks_etcd_wire_bench
sandbox=build/default/sandbox/kube-sandbox
[[ ${1:-} == -- ]] && shift
die() { echo "run-etcd-wire-bench: $*" >&2; exit 2; }
[[ -x $bench && -x $sandbox ]] || die "build first: cmake --build --preset default"
command -v etcd >/dev/null || die "etcd is not installed (Debian: etcd-server)"

port=${KS_BENCH_ETCD_PORT:-23790}
tmp=$(mktemp -d)
pid=
stop() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
  fi
}
trap 'stop; rm -rf "$tmp"' EXIT INT TERM
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

wait_healthy() {
  for _ in $(seq 200); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  die "$1 did not turn healthy"
}

"$sandbox" etcd --name bench --data-dir "$tmp/ks" \
  --listen-client-urls "http://127.0.0.1:$port" >"$tmp/ks.log" 2>&1 &
pid=$!
wait_healthy kube-sandbox
"$bench" --target "127.0.0.1:$port" --label kube-sandbox --server-pid "$pid" "$@" \
  >"$tmp/results.jsonl"
stop

etcd --name bench --data-dir "$tmp/etcd" \
  --listen-client-urls "http://127.0.0.1:$port" --advertise-client-urls "http://127.0.0.1:$port" \
  --listen-peer-urls "http://127.0.0.1:$((port + 1))" \
  --initial-advertise-peer-urls "http://127.0.0.1:$((port + 1))" \
  --initial-cluster "bench=http://127.0.0.1:$((port + 1))" >"$tmp/etcd.log" 2>&1 &
pid=$!
wait_healthy etcd
"$bench" --target "127.0.0.1:$port" --label "etcd $(etcd --version | head -n1 | awk '{print $3}')" \
  --server-pid "$pid" "$@" >>"$tmp/results.jsonl"
stop

python3 - "$tmp/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
servers = list(dict.fromkeys(r["server"] for r in rows))
def cell(r):
    if r["workload"] == "puts":
        return f'{r["per_second"]:,.0f}/s (p50 {r["p50_ms"]:.2f} ms, p99 {r["p99_ms"]:.2f} ms)'
    if r["workload"].startswith("range"):
        return f'{r["per_second"]:,.1f}/s (p50 {r["p50_ms"]:.1f} ms)'
    return f'{r["per_second"]:,.0f} events/s'
keys = list(dict.fromkeys((r["workload"], r["clients"]) for r in rows))
print("| workload | " + " | ".join(servers) + " | ratio |")
print("|---|" + "---:|" * (len(servers) + 1))
for workload, clients in keys:
    found = {r["server"]: r for r in rows if (r["workload"], r["clients"]) == (workload, clients)}
    plural = "client" if clients == 1 else "clients"
    name = f"durable puts, {clients} {plural}" if workload == "puts" else workload
    cells = [cell(found[s]) if s in found else "—" for s in servers]
    ratio = "—"
    if len(servers) == 2 and all(s in found for s in servers) and found[servers[1]]["per_second"]:
        ratio = f'{found[servers[0]]["per_second"] / found[servers[1]]["per_second"]:.1f}x'
    errors = sum(found[s]["errors"] for s in found)
    print(f"| {name} | " + " | ".join(cells) + f" | {ratio} |" + (f" ({errors} errors)" if errors else ""))
print()
print("| CPU per durable put (µs) | " + " | ".join(f"{s}: server | {s}: client" for s in servers) + " |")
print("|---|" + "---:|" * (2 * len(servers)))
for workload, clients in keys:
    if workload != "puts":
        continue
    found = {r["server"]: r for r in rows if (r["workload"], r["clients"]) == (workload, clients)}
    def us(r, side):
        v = r.get(f"{side}_cpu_us_per_op")
        return f"{v:.0f}" if v is not None else "—"
    cells = [f"{us(found[s], 'server')} | {us(found[s], 'client')}" if s in found else "— | —"
             for s in servers]
    print(f"| {clients} client{'' if clients == 1 else 's'} | " + " | ".join(cells) + " |")
PY
