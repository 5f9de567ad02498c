# shellcheck shell=bash
# The sourcing script sets bench_name and work, and uses what these functions set.
# shellcheck disable=SC2154,SC2034
# Sourced by the console benchmarks (run-console-bench.sh, run-web-console-bench.sh): a sandbox
# holding COUNT ConfigMaps in NAMESPACES namespaces (the `many` fixtures, in the store before the
# server is ready) and the load that patches RATE of them a second through the API with curl.
#
# The sourcing script sets `bench_name` (for messages) and calls bench_begin first. Each
# function dies on a failure.

now_ms() { date +%s%3N; }

die() { echo "$bench_name: $*" >&2; exit 2; }

# bench_args [KUBE_SANDBOX_BINARY] [COUNT] [RATE] [SECONDS]: the benchmarks' arguments, with
# their defaults, into bin, count, rate and seconds; the ConfigMaps go in 100 namespaces.
bench_args() {
  bin=${1:-build/default/sandbox/kube-sandbox}
  count=${2:-50000}
  rate=${3:-100}
  seconds=${4:-30}
  namespaces=100
}

# bench_begin TOOL...: checks the arguments and that the tools are installed; makes the scratch
# directory $work and an EXIT trap (on an interrupt or TERM too) that stops $client (the process
# group of the console measured, started with setsid) and $server, and removes $work.
bench_begin() {
  local tool
  [[ -x $bin ]] || die "no kube-sandbox binary at $bin"
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
  done
  ((count >= namespaces && rate > 0 && seconds > 0)) || die "COUNT >= $namespaces, RATE > 0, SECONDS > 0"
  work=$(mktemp -d)
  server=
  client=
  trap bench_cleanup EXIT
  # Stopped by a signal, the script exits (after the command in the foreground, which is
  # bounded), so the EXIT trap runs.
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

bench_cleanup() {
  [[ -n $client ]] && kill -- -"$client" 2>/dev/null && wait "$client" 2>/dev/null
  [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}

# wait_client SECONDS: until $client ends (within SECONDS), which must succeed; its output
# ($work/client.out) is shown when it does not.
wait_client() {
  timeout "$1" tail --pid="$client" -f /dev/null || die "the console measured did not end"
  wait "$client" || { cat "$work/client.out" >&2; die "the console measured failed"; }
  client=
}

# wait_file FILE SECONDS PID: until FILE exists, PID is alive and the time is not up.
wait_file() {
  local deadline=$(( $(now_ms) + $2 * 1000 ))
  until [[ -s $1 ]]; do
    kill -0 "$3" 2>/dev/null || { tail -n 20 "$work"/*.out >&2; die "process $3 ended early"; }
    (( $(now_ms) < deadline )) || die "no $(basename "$1") after $2 s"
    sleep 0.01
  done
}

# start_configmap_sandbox BINARY COUNT NAMESPACES [SERVE FLAGS...]: starts `serve` (ephemeral,
# headless, port 0) on the generated fixtures; sets server (its pid) and ready (its ready file,
# once written), then url and kubeconfig (the admin's), and writes curl's view of the admin
# credentials into $work/curl.args (the server's CA, and the kubeconfig's token or client
# certificate).
start_configmap_sandbox() {
  local bin=$1 count=$2 namespaces=$3
  shift 3
  echo "$bench_name: loading $count ConfigMaps" >&2
  python3 fixtures/many/generate.py "$work/many" --count "$count" --namespaces "$namespaces"
  ready=$work/ready.json
  "$bin" serve --ephemeral --secure-port 0 --headless --ready-file "$ready" \
    --fixtures "$work/many" "$@" >"$work/serve.out" 2>&1 &
  server=$!
  wait_file "$ready" 600 "$server"
  python3 - "$ready" "$work" >"$work/curl.args" <<'EOF'
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
    "$ready")
}

# plan_patches COUNT NAMESPACES UPDATES: appends to $work/curl.args UPDATES merge patches of
# distinct ConfigMaps spread over the namespaces (a step coprime with the total), each giving its
# object a new data key (one MODIFIED event each); sets total (the ConfigMaps generated).
plan_patches() {
  local count=$1 namespaces=$2 updates=$3
  local per_namespace=$((count / namespaces))
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
}

# run_patches RATE SECONDS UPDATES: sends the planned patches on one keep-alive connection, at
# most RATE starts a second, within a time limit; every one must answer 200.
run_patches() {
  local rate=$1 seconds=$2 updates=$3 ok
  echo "$bench_name: $updates patches at $rate/s" >&2
  timeout $((seconds * 3 + 30)) curl -s --rate "$rate/s" -K "$work/curl.args" >"$work/codes.out" \
    || die "the load generator failed ($(sort "$work/codes.out" | uniq -c | tr '\n' ' '))"
  ok=$(grep -c '^200$' "$work/codes.out" || true)
  ((ok == updates)) || die "$ok of $updates patches answered 200"
}
