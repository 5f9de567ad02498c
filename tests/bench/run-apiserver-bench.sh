#!/usr/bin/env bash
# Runs the API server benchmark: builds ks_apiserver_bench (only that target) in the default tree
# and runs it against build/default/sandbox/kube-sandbox, which it starts and stops itself (on a
# free loopback port, with temporary data directories). Prints the markdown table; the exit code
# is the benchmark's (1 on any HTTP error or a server that fails to start or stop cleanly).
#
#   tests/bench/run-apiserver-bench.sh [KUBE_SANDBOX_BINARY] [-- bench flags...]
#
# KUBE_SANDBOX_BINARY defaults to build/default/sandbox/kube-sandbox (build it first). Example
# smoke run:
#   tests/bench/run-apiserver-bench.sh -- --modes ephemeral --ready-runs 1 --creates 500 \
#     --gets 500 --updates 200 --list-items 300 --list-rounds 3 --watchers 20 --watch-writes 20
set -euo pipefail
cd "$(dirname "$0")/../.."

server=build/default/sandbox/kube-sandbox
if [[ $# -gt 0 && $1 != -- ]]; then
  server=$1
  shift
fi
[[ ${1:-} == -- ]] && shift
die() { echo "run-apiserver-bench: $*" >&2; exit 2; }
[[ -x $server ]] || die "no kube-sandbox binary at $server (cmake --build --preset default)"
[[ -f build/default/build.ninja ]] || die "no build/default tree (cmake --preset default)"

cmake --build build/default --target ks_apiserver_bench >&2
bench=build/default/tests/bench/ks_apiserver_bench

# One socket per watcher and client on each side.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

version=$("$server" version | head -n1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
echo "## API server benchmark ($(date -u +%Y-%m-%d), $(nproc) CPUs: ${cpu:-unknown}, $version)"
echo
"$bench" "$server" "$@"
