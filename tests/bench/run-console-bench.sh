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
bin=${1:-build/default/sandbox/kube-sandbox}
count=${2:-50000}
rate=${3:-100}
seconds=${4:-30}
namespaces=100
fps=60
die() { echo "run-console-bench: $*" >&2; exit 2; }
[[ -x $bin ]] || die "no kube-sandbox binary at $bin"
for tool in xvfb-run curl python3; do
  command -v $tool >/dev/null || die "$tool is not installed"
done
((count >= namespaces && rate > 0 && seconds > 0)) || die "COUNT >= $namespaces, RATE > 0, SECONDS > 0"

work=$(mktemp -d)
server=
console=
cleanup() {
  [[ -n $console ]] && kill -- -"$console" 2>/dev/null && wait "$console" 2>/dev/null
  [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
now_ms() { date +%s%3N; }
# wait_file FILE SECONDS PID: until FILE exists, PID is alive and the time is not up.
wait_file() {
  local deadline=$(( $(now_ms) + $2 * 1000 ))
  until [[ -s $1 ]]; do
    kill -0 "$3" 2>/dev/null || { tail -n 20 "$work"/*.out >&2; die "process $3 ended early"; }
    (( $(now_ms) < deadline )) || die "no $(basename "$1") after $2 s"
    sleep 0.01
  done
}

echo "run-console-bench: loading $count ConfigMaps" >&2
python3 fixtures/many/generate.py "$work/many" --count "$count" --namespaces "$namespaces"
"$bin" serve --ephemeral --secure-port 0 --headless --ready-file "$work/ready.json" \
  --fixtures "$work/many" >"$work/serve.out" 2>&1 &
server=$!
wait_file "$work/ready.json" 600 "$server"

# curl's view of the admin credentials: the server's URL and CA, and the kubeconfig's token or
# client certificate.
python3 - "$work/ready.json" "$work" >"$work/curl.args" <<'EOF'
import base64, json, sys, yaml
ready = json.load(open(sys.argv[1]))
config = yaml.safe_load(open(ready["kubeconfig"]))
user = config["users"][0]["user"]
print(f'cacert = "{ready["caFile"]}"')
if user.get("token"):
    print(f'header = "Authorization: Bearer {user["token"]}"')
else:
    for key, flag in (("client-certificate-data", "cert"), ("client-key-data", "key")):
        path = f"{sys.argv[2]}/{flag}.pem"
        open(path, "wb").write(base64.b64decode(user[key]))
        print(f'{flag} = "{path}"')
print(ready["url"])
EOF
url=$(tail -n 1 "$work/curl.args")
sed -i '$d' "$work/curl.args"
kubeconfig=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kubeconfig"])' \
  "$work/ready.json")

# The patches: RATE x SECONDS distinct objects spread over the namespaces (a step coprime with
# COUNT), each given a new data key, one keep-alive connection, at most RATE starts a second.
updates=$((rate * seconds))
per_namespace=$((count / namespaces))
total=$((per_namespace * namespaces))
((updates <= total)) || die "RATE x SECONDS ($updates) is more than the $total ConfigMaps"
python3 - "$url" "$per_namespace" "$total" "$updates" >>"$work/curl.args" <<'EOF'
import math, sys
url, per, total, updates = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
step = 7919
while math.gcd(step, total) != 1:
    step += 2
print('request = "PATCH"')
print('header = "Content-Type: application/merge-patch+json"')
print('data = "{\\"data\\":{\\"bench\\":\\"patched\\"}}"')
print('write-out = "%{http_code}\\n"')
for k in range(updates):
    i = k * step % total
    print(f'url = "{url}/api/v1/namespaces/many-{i // per:03d}/configmaps/item-{i % per:04d}"')
    print('output = "/dev/null"')
EOF

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
  --frame-stats "$work/frames.tsv" --state-dump "$work/final.json" >"$work/console.out" 2>&1 &
console=$!
wait_file "$work/idle.json" 600 "$console"
idle_start=$(now_ms)
wait_file "$work/load.json" 600 "$console"
load_start=$(now_ms)
echo "run-console-bench: $updates patches at $rate/s" >&2
timeout $((seconds * 3 + 30)) curl -s --rate "$rate/s" -K "$work/curl.args" >"$work/codes.out" \
  || die "the load generator failed ($(sort "$work/codes.out" | uniq -c | tr '\n' ' '))"
load_end=$(now_ms)
ok=$(grep -c '^200$' "$work/codes.out" || true)
((ok == updates)) || die "$ok of $updates patches answered 200"
timeout 600 tail --pid="$console" -f /dev/null || die "the console did not end"
wait "$console" || { cat "$work/console.out" >&2; die "the console failed"; }
console=

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
