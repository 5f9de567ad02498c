#!/usr/bin/env bash
# Console frame time: the real console (`kube-sandbox console` under xvfb-run, Mesa's software GL)
# showing ConfigMaps in all namespaces of a sandbox holding COUNT of them, scrolling through the
# table, first with no changes arriving and then while a load generator patches RATE ConfigMaps
# a second through the API (each patch one MODIFIED event on the console's watch). The console
# records every frame (`--frame-stats`); this prints p50/p99/max frame times of each stretch, the
# UI thread's CPU per frame, the frame rate, and the console's memory.
#
#   tests/bench/run-console-bench.sh [KUBE_SANDBOX_BINARY] [COUNT] [RATE] [SECONDS]
#
# Defaults: build/default/sandbox/kube-sandbox, 50000 ConfigMaps (in 100 namespaces), 100
# patches/s for 30 s. The load is bounded (RATE x SECONDS patches, each object once, and a time
# limit), as is every wait. Needs xvfb-run, curl (7.84 or later, for --rate) and python3 with
# PyYAML. Takes about two minutes for 50,000 (most of it loading them at start).
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_name=run-console-bench
# shellcheck source=tests/bench/configmap_load.sh
source tests/bench/configmap_load.sh
bench_args "$@"
fps=60
bench_begin xvfb-run curl python3

start_configmap_sandbox "$bin" "$count" "$namespaces"
updates=$((rate * seconds))
plan_patches "$count" "$namespaces" "$updates"

# The console: list, scroll down for 10 s with nothing arriving, then back up while the load
# runs. The marker files tell this script where each stretch starts.
step=$(( (total + fps * seconds - 1) / (fps * seconds) ))
idle_frames=$((fps * 10))
cat >"$work/console.script" <<EOF
timeout 600
select-kind configmaps
namespace all
wait-rows >=$total
frames 30
dump-state $work/idle.json
scroll $step $idle_frames
dump-state $work/load.json
scroll -$step $((fps * seconds + fps))
quit
EOF
echo "run-console-bench: starting the console" >&2
listing_start=$(now_ms)
LIBGL_ALWAYS_SOFTWARE=1 setsid xvfb-run -a -s "-screen 0 1600x1000x24" \
  "$bin" console --kubeconfig "$kubeconfig" --script "$work/console.script" \
  --frame-stats "$work/frames.tsv" --state-dump "$work/final.json" >"$work/client.out" 2>&1 &
client=$!
wait_file "$work/idle.json" 600 "$client"
idle_start=$(now_ms)
wait_file "$work/load.json" 600 "$client"
load_start=$(now_ms)
run_patches "$rate" "$seconds" "$updates"
load_end=$(now_ms)
wait_client 600

python3 - "$work/frames.tsv" "$work/final.json" "$listing_start" "$idle_start" "$load_start" \
  "$load_end" "$count" "$updates" "$rate" <<'EOF'
import json, math, sys
frames_path, dump_path = sys.argv[1], sys.argv[2]
listing, idle, load, end = (int(v) for v in sys.argv[3:7])
count, updates, rate = (int(v) for v in sys.argv[7:10])
frames, tail = [], {}
for line in open(frames_path):
    fields = line.split()
    if line.startswith("# ") and len(fields) == 3:
        tail[fields[1]] = int(fields[2])
    elif not line.startswith("#"):
        frames.append((int(fields[1]), float(fields[2]), float(fields[3]), int(fields[4])))
dump = json.load(open(dump_path))
kind = dump["kinds"]["core/configmaps"]
if dump["droppedMessages"] != 0 or kind["events"] < updates:
    sys.exit(f"run-console-bench: the console saw {kind['events']} events, dropped "
             f"{dump['droppedMessages']} messages")

def pct(values, p):
    values = sorted(values)
    return values[min(len(values), max(1, math.ceil(p / 100 * len(values)))) - 1]

def row(name, start, stop):
    chosen = [f for f in frames if start <= f[0] < stop]
    wall = [f[1] for f in chosen]
    cpu = [f[2] for f in chosen]
    over = sum(1 for w in wall if w > 16.0)
    seconds = (stop - start) / 1000
    print(f"| {name} | {len(chosen)} | {len(chosen) / seconds:.1f} | {pct(wall, 50):.2f} | "
          f"{pct(wall, 99):.2f} | {max(wall):.2f} | {pct(cpu, 50):.2f} | {pct(cpu, 99):.2f} | "
          f"{over} |")

print(f"Console frame time: {count} ConfigMaps (all namespaces), {kind['rows']} rows; "
      f"first LIST shown after {(idle - listing) / 1000:.1f} s")
print()
print("| stretch | frames | frames/s | wall p50 ms | wall p99 ms | wall max ms | "
      "UI CPU p50 ms | UI CPU p99 ms | frames > 16 ms |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
row("scrolling, no changes", idle, load)
row(f"scrolling, {rate} patches/s ({updates} MODIFIED events)", load, end)
print()
print(f"Console memory: peak RSS {tail['peak_rss_kib'] / 1024:.0f} MiB (the first LIST's decoding "
      f"included), RSS at the end {tail['rss_kib'] / 1024:.0f} MiB")
EOF
