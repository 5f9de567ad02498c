#!/usr/bin/env bash
# Web console performance: the console `kube-sandbox serve --web-listen` serves, in Debian's
# Chromium (headless, no GPU: it paints in software) driven by playwright-core
# (console/web/bench/web_console.bench.mjs), against a sandbox holding COUNT ConfigMaps. It
# opens ConfigMaps in all namespaces from a deep link (time to the first rows, and to the whole
# list), scrolls the table for SECONDS with nothing changing, then again while a load generator
# patches RATE ConfigMaps a second through the API (each patch one MODIFIED event on the page's
# watch), and prints p50/p99/max frame times of each stretch, the page's main-thread tasks and
# its JS heap. The sandbox and the load are run-console-bench.sh's (configmap_load.sh).
#
#   tests/bench/run-web-console-bench.sh [KUBE_SANDBOX_BINARY] [COUNT] [RATE] [SECONDS]
#
# Defaults: build/default/sandbox/kube-sandbox, 50000 ConfigMaps (in 100 namespaces), 100
# patches/s for 30 s. Every wait is bounded. Needs node, Debian's chromium, the web console's
# npm packages (`npm ci` in console/web), curl (7.84 or later, for --rate) and python3 with
# PyYAML. Takes about two minutes for 50,000.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_name=run-web-console-bench
# shellcheck source=tests/bench/configmap_load.sh
source tests/bench/configmap_load.sh
bench_args "$@"
bench_begin node curl python3 "${KS_CHROMIUM:-/usr/bin/chromium}"
[[ -d console/web/node_modules/playwright-core ]] \
  || die "no playwright-core: run npm ci --no-audit --no-fund in console/web"

start_configmap_sandbox "$bin" "$count" "$namespaces" --web-listen 127.0.0.1:0
updates=$((rate * seconds))
plan_patches "$count" "$namespaces" "$updates"

# The login URL: the web address from the ready file, the token beside the CA file.
read -r web ca < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["web"], r["caFile"])' "$ready")
token=$(cat "$(dirname "$ca")/web-console.token")

echo "$bench_name: starting Chromium" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
KS_WEB_LOGIN="${web}login?token=${token}" KS_BENCH_DIR=$work KS_BENCH_SECONDS=$seconds \
  KS_BENCH_RATE=$rate KS_BENCH_UPDATES=$updates \
  setsid node console/web/bench/web_console.bench.mjs >"$work/report.md" 2>"$work/client.out" &
client=$!
# The page lists, scrolls SECONDS with nothing changing, then asks for the load.
wait_file "$work/load.start" $((seconds + 600)) "$client"
run_patches "$rate" "$seconds" "$updates"
touch "$work/load.end"
wait_client $((seconds + 180))

# Other work on the machine shows in frame times (the painting is software, on the same cores):
# the load average says how busy it was.
echo "Machine: $(nproc) cores, $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
  "load average $load_before before the browser, $(cut -d' ' -f1-3 /proc/loadavg) after"
cat "$work/report.md"
