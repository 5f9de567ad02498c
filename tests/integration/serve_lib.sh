# Shared by the integration scripts that start `kube-sandbox serve` themselves: source it.
# Sets bin (from KS_BINARY) and tmp (removed on exit, with every server in pids killed); fail
# prints the log of the server being tested ($out) under the message.
bin=${KS_BINARY:?KS_BINARY must name the kube-sandbox binary}
fail() { echo "FAIL: $*" >&2; [[ -f ${out:-} ]] && sed 's/^/  serve: /' "$out" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# wait_for FILE: until FILE exists (bounded), or the last server started died.
wait_for() {
  for _ in $(seq 1 200); do
    [[ -s $1 ]] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || fail "serve exited before it was ready"
    sleep 0.05
  done
  fail "no $1 after 10 s"
}
# json FILE EXPR: a value of a JSON file, e.g. json ready.json '["kubeconfig"]'
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
# serve_ready NAME [FLAGS...]: starts `serve --ephemeral --secure-port 0 --headless FLAGS` with its
# log in $out, waits for its ready file $tmp/NAME.json, then sets url, ca and KUBECONFIG from it.
serve_ready() {
  local ready=$tmp/$1.json
  shift
  "$bin" serve --ephemeral --secure-port 0 --ready-file "$ready" --headless "$@" >"$out" 2>&1 &
  pids+=($!)
  wait_for "$ready"
  url=$(json "$ready" '["url"]')
  ca=$(json "$ready" '["caFile"]')
  KUBECONFIG=$(json "$ready" '["kubeconfig"]')
  export KUBECONFIG
}
