#!/usr/bin/env bash
# `kube-sandbox console --web` finds the web console of the sandbox serving from a data
# directory: without a display it prints the login URL, which signs a client in; the kubeconfig
# in that directory names it too; once serve stops, it says no web console runs.
set -euo pipefail
source "$(dirname "$0")/serve_lib.sh"
out=$tmp/serve.log
data=$tmp/data

"$bin" serve --data-dir "$data" --secure-port 0 --etcd-listen none --web-listen 127.0.0.1:0 \
  --headless --nodes=0 --ready-file "$tmp/ready.json" >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready.json"
web=$(json "$tmp/ready.json" '["web"]')
[[ $web =~ ^http://127\.0\.0\.1:[0-9]+/$ ]] || fail "ready file's web is \"$web\""
grep -q "web console: ${web}login?token=" "$out" || fail "serve did not print the login URL"
[[ $(cat "$data/web-console") == "$web" ]] || fail "the data directory does not name $web"

printed=$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" console --web --data-dir "$data")
login=${printed##*: }
[[ $login == "${web}login?token=$(cat "$data/pki/web-console.token")" ]] ||
  fail "console --web printed \"$printed\""
code=$(curl -s -o /dev/null -w '%{http_code}' "$login")
[[ $code == 303 ]] || fail "the printed URL answered $code, want 303"
by_kubeconfig=$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" console --web --kubeconfig "$data/kubeconfig")
[[ $by_kubeconfig == "$printed" ]] || fail "console --web --kubeconfig printed \"$by_kubeconfig\""

status=0
"$bin" console --web --kubeconfig "$tmp/elsewhere.yaml" 2>"$tmp/err" || status=$?
[[ $status == 1 ]] && grep -q "is not a kube-sandbox data directory's kubeconfig" "$tmp/err" ||
  fail "console --web on a foreign kubeconfig: exit $status, $(cat "$tmp/err")"

kill -TERM "${pids[0]}"
wait "${pids[0]}" || fail "serve exited $? on SIGTERM"
pids=()
[[ ! -e $data/web-console ]] || fail "serve left web-console behind"
status=0
"$bin" console --web --data-dir "$data" 2>"$tmp/err" || status=$?
[[ $status == 1 ]] && grep -q "no web console is running" "$tmp/err" ||
  fail "console --web with serve stopped: exit $status, $(cat "$tmp/err")"
echo "console --web: ok"
