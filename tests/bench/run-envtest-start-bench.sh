#!/usr/bin/env bash
# How fast envtest's control plane comes up: starts it as controller-runtime's envtest does
# (tests/integration/with_envtest.sh: etcd, then kube-apiserver, each polled for health) RUNS
# times with kube-sandbox linked in, and as many times with a stock etcd and kube-apiserver when
# STOCK_KUBE_APISERVER names one, then prints the medians as a markdown table. Builds nothing.
#   STOCK_KUBE_APISERVER=/path/to/kube-apiserver tests/bench/run-envtest-start-bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
export KS_BINARY=${KS_BINARY:-$PWD/build/default/sandbox/kube-sandbox}
[[ -x $KS_BINARY ]] || { echo "build first: cmake --build --preset default" >&2; exit 2; }

# measure LABEL [ENV=VALUE...]: the median etcd and kube-apiserver start times of RUNS starts.
measure() {
  local label=$1
  shift
  local etcd=() apiserver=()
  for _ in $(seq 1 "$runs"); do
    local out
    out=$(env "$@" bash tests/integration/with_envtest.sh true 2>&1) || { echo "$out" >&2; exit 1; }
    etcd+=("$(sed -n 's/^etcd healthy \([0-9]*\) ms.*/\1/p' <<<"$out")")
    apiserver+=("$(sed -n 's/^kube-apiserver healthy \([0-9]*\) ms.*/\1/p' <<<"$out")")
  done
  median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
  echo "| $label | $(median "${etcd[@]}") ms | $(median "${apiserver[@]}") ms |"
}

echo "| control plane ($runs starts, median) | etcd healthy | kube-apiserver healthy |"
echo "|---|---|---|"
measure "kube-sandbox as etcd and kube-apiserver"
if [[ -n ${STOCK_KUBE_APISERVER:-} ]]; then
  measure "etcd $(etcd --version | sed -n 's/^etcd Version: //p') and kube-apiserver $("$STOCK_KUBE_APISERVER" --version | sed 's/Kubernetes //')" \
    ENVTEST_ETCD="$(command -v etcd)" ENVTEST_KUBE_APISERVER="$STOCK_KUBE_APISERVER"
fi
