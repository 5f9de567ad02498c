#!/usr/bin/env bash
# `kube-sandbox console --web` finds the web console of the sandbox serving from a data
# directory: without a display it prints the login URL, which signs a client in; the kubeconfig
# in that directory names it too; another cluster's kubeconfig gets a console served by the
# command itself (a gateway: its API calls, a watch, a token sign-in as another user); once serve
# stops, it says no web console runs.
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

# Another cluster's kubeconfig (here the same sandbox's, under another name): this process
# serves the console itself and sends the API calls on with the kubeconfig's credentials.
cp "$data/kubeconfig" "$tmp/elsewhere.yaml"
gateway_log=$tmp/gateway.log
env -u DISPLAY -u WAYLAND_DISPLAY "$bin" console --web --kubeconfig "$tmp/elsewhere.yaml" \
  --web-listen 127.0.0.1:0 >"$gateway_log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
  grep -q "open the web console in a browser on this machine: " "$gateway_log" && break
  kill -0 "${pids[-1]}" 2>/dev/null || fail "the gateway exited: $(cat "$gateway_log")"
  sleep 0.05
done
gateway_login=$(sed -n 's/.*open the web console in a browser on this machine: //p' "$gateway_log")
[[ $gateway_login =~ ^http://127\.0\.0\.1:[0-9]+/login\?token=[0-9a-f]{64}$ ]] ||
  fail "the gateway printed: $(cat "$gateway_log")"
grep -q "the web console for context \"" "$gateway_log" || fail "the gateway did not name the context"
gateway=${gateway_login%login\?token=*}
port=${gateway##*:}
port=${port%/}
code=$(curl -s -o /dev/null -w '%{http_code}' "${gateway}api")
[[ $code == 401 ]] || fail "the gateway's API without a session answered $code, want 401"
code=$(curl -s -c "$tmp/jar" -o /dev/null -w '%{http_code}' "$gateway_login")
[[ $code == 303 ]] || fail "the gateway's login URL answered $code, want 303"
curl -s -b "$tmp/jar" "${gateway}api/v1/namespaces" | grep -q '"kube-system"' ||
  fail "the gateway did not list the cluster's namespaces"
csrf=$(awk -v name="ks_csrf_$port" '$6 == name {print $7}' "$tmp/jar")
code=$(curl -s -b "$tmp/jar" -o "$tmp/created" -w '%{http_code}' -X POST \
  -H "Origin: ${gateway%/}" -H "X-CSRF-Token: $csrf" -H 'Content-Type: application/json' \
  -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"via-gateway"}}' \
  "${gateway}api/v1/namespaces/default/configmaps")
[[ $code == 201 ]] || fail "a create through the gateway answered $code: $(cat "$tmp/created")"
KUBECONFIG=$data/kubeconfig kubectl get configmap via-gateway >/dev/null ||
  fail "the object created through the gateway is not in the cluster"
# A watch streams through it.
curl -s -N -b "$tmp/jar" --max-time 20 \
  "${gateway}api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dwatched-via-gateway" \
  >"$tmp/watch" &
watcher=$!
sleep 1
KUBECONFIG=$data/kubeconfig kubectl create configmap watched-via-gateway >/dev/null
for _ in $(seq 1 100); do
  grep -q '"ADDED"' "$tmp/watch" && break
  sleep 0.1
done
kill "$watcher" 2>/dev/null || true
grep -q '"name":"watched-via-gateway"' "$tmp/watch" || fail "no watch event through the gateway"
# A user signing in by token is that user at the cluster (not the kubeconfig's).
KUBECONFIG=$data/kubeconfig kubectl create serviceaccount gateway-reader >/dev/null
sa_token=$(KUBECONFIG=$data/kubeconfig kubectl create token gateway-reader)
code=$(curl -s -c "$tmp/user-jar" -o "$tmp/signed" -w '%{http_code}' -X POST \
  -H "Origin: ${gateway%/}" -H 'Content-Type: application/json' \
  -d "{\"token\":\"$sa_token\"}" "${gateway}login")
[[ $code == 200 ]] && grep -q 'signed in as \\"system:serviceaccount:default:gateway-reader\\"' "$tmp/signed" ||
  fail "token sign-in through the gateway: $code $(cat "$tmp/signed")"
code=$(curl -s -b "$tmp/user-jar" -o "$tmp/forbidden" -w '%{http_code}' "${gateway}api/v1/namespaces")
[[ $code == 403 ]] && grep -q 'User \\"system:serviceaccount:default:gateway-reader\\" cannot list resource \\"namespaces\\"' "$tmp/forbidden" ||
  fail "the signed-in user listed namespaces: $code $(cat "$tmp/forbidden")"
kill -TERM "${pids[-1]}"
wait "${pids[-1]}" || fail "the gateway exited $? on SIGTERM"
unset 'pids[-1]'
grep -q "interrupted\|terminated" "$gateway_log" || fail "the gateway did not say it stopped"

status=0
"$bin" console --web --kubeconfig "$tmp/missing.yaml" 2>"$tmp/err" || status=$?
[[ $status == 1 ]] && grep -q "missing.yaml" "$tmp/err" ||
  fail "console --web on a missing kubeconfig: exit $status, $(cat "$tmp/err")"

kill -TERM "${pids[0]}"
wait "${pids[0]}" || fail "serve exited $? on SIGTERM"
pids=()
[[ ! -e $data/web-console ]] || fail "serve left web-console behind"
status=0
"$bin" console --web --data-dir "$data" 2>"$tmp/err" || status=$?
[[ $status == 1 ]] && grep -q "no web console is running" "$tmp/err" ||
  fail "console --web with serve stopped: exit $status, $(cat "$tmp/err")"
echo "console --web: ok"
