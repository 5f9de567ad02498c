#!/usr/bin/env bash
# `kube-sandbox serve` as a user meets it: the real binary on port 0 with a temp data dir, driven
# by kubectl and curl: ready file, kubeconfig, /version, health endpoints, authentication, body
# limit, the data-dir lock, and a clean stop on SIGTERM; then the same with --ephemeral.
set -euo pipefail
source "$(dirname "$0")/serve_lib.sh"

data=$tmp/data
out=$tmp/serve.out
"$bin" serve --data-dir "$data" --secure-port 0 --ready-file "$tmp/ready.json" \
  --etcd-listen http://127.0.0.1:0 >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/ready.json"
url=$(json "$tmp/ready.json" '["url"]')
ca=$(json "$tmp/ready.json" '["caFile"]')
export KUBECONFIG=$(json "$tmp/ready.json" '["kubeconfig"]')
[[ $KUBECONFIG == "$data/kubeconfig" ]] || fail "kubeconfig at $KUBECONFIG"
grep -q "export KUBECONFIG=$data/kubeconfig" "$out" || fail "serve did not print how to use it"
[[ $(kubectl config current-context) == kube-sandbox ]] || fail "context is not kube-sandbox"
cmp -s <("$bin" kubeconfig --data-dir "$data") "$KUBECONFIG" || fail "kube-sandbox kubeconfig differs"

# /version through kubectl
kubectl version -o json >"$tmp/version.json" || fail "kubectl version"
[[ $(json "$tmp/version.json" '["serverVersion"]["minor"]') == 32 ]] || fail "minor is not 32"
[[ $(json "$tmp/version.json" '["serverVersion"]["gitVersion"]') == v1.32.* ]] || fail "gitVersion"

# health endpoints
[[ $(kubectl get --raw /healthz) == ok ]] || fail "/healthz"
[[ $(kubectl get --raw /livez/etcd) == ok ]] || fail "/livez/etcd"
[[ $(kubectl get --raw '/readyz?verbose' | tail -n1) == "readyz check passed" ]] || fail "/readyz?verbose"
grep -qx '\[+\]etcd ok' <<<"$(kubectl get --raw '/readyz?verbose')" || fail "/readyz lists no etcd check"
if kubectl get --raw /readyz/no-such-check >/dev/null 2>&1; then fail "/readyz/no-such-check"; fi

# authentication: anonymous callers see only the public paths; unknown tokens are refused
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" "$url/version")
[[ $code == 200 ]] || fail "anonymous /version: $code"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" "$url/")
[[ $code == 403 ]] || fail "anonymous /: $code"
[[ $(json "$tmp/body" '["message"]') == 'forbidden: User "system:anonymous" cannot get path "/"' ]] \
  || fail "anonymous / said $(cat "$tmp/body")"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" -H 'Authorization: Bearer nope' "$url/version")
[[ $code == 401 && $(json "$tmp/body" '["reason"]') == Unauthorized ]] || fail "bad token: $code"
token=$(cat "$data/pki/admin.token")
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" -H "Authorization: Bearer $token" "$url/nowhere")
[[ $code == 404 && $(json "$tmp/body" '["message"]') == "the server could not find the requested resource" ]] \
  || fail "admin token /nowhere: $code $(cat "$tmp/body")"

# body limit: 413 as a Status
head -c $((4 * 1024 * 1024)) /dev/zero >"$tmp/big"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' --data-binary "@$tmp/big" "$url/api/v1/namespaces")
[[ $code == 413 && $(json "$tmp/body" '["message"]') == "Request entity too large: limit is 3145728" ]] \
  || fail "4 MiB body: $code $(cat "$tmp/body")"
[[ $(kubectl get --raw /healthz) == ok ]] || fail "server unhealthy after the large body"

# gzip for large responses when asked; small ones stay plain
for i in $(seq 1 300); do
  printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"gz-%s"},"data":{"k":"%0500d"}}\n' "$i" 0
done >"$tmp/many.json"
kubectl create -f "$tmp/many.json" >/dev/null || fail "create 300 configmaps"
curl -s -D "$tmp/headers" -o "$tmp/list.gz" --cacert "$ca" -H "Authorization: Bearer $token" \
  -H 'Accept-Encoding: gzip' "$url/api/v1/configmaps"
grep -qi '^content-encoding: gzip' "$tmp/headers" || fail "a large list was not gzipped"
[[ $(gzip -dc "$tmp/list.gz" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]) >= 300)') == True ]] \
  || fail "gzipped list does not decode"
curl -s -D "$tmp/headers" -o /dev/null --cacert "$ca" -H "Authorization: Bearer $token" \
  -H 'Accept-Encoding: gzip' "$url/version"
! grep -qi '^content-encoding' "$tmp/headers" || fail "a small response was gzipped"

# per-request timeout: ?timeout= shorter than the work gives a 504 Timeout Status
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" -H "Authorization: Bearer $token" \
  "$url/api/v1/configmaps?timeout=1us")
[[ $code == 504 && $(json "$tmp/body" '["reason"]') == Timeout ]] || fail "?timeout=1us: $code $(cat "$tmp/body")"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$ca" -H "Authorization: Bearer $token" \
  "$url/api/v1/configmaps?timeout=soon")
[[ $code == 400 ]] || fail "?timeout=soon: $code"

# the data dir is held: a second server refuses clearly; the store CLI reads the running
# server's store through its etcd endpoint (recorded in the data dir)
set +e
second=$("$bin" serve --data-dir "$data" --secure-port 0 2>&1); second_code=$?
set -e
[[ $second_code -eq 1 && $second == *"in use by another process"* ]] || fail "second serve: $second_code $second"
[[ -s $data/etcd-endpoint ]] || fail "serve recorded no etcd endpoint"
live=$("$bin" store get /registry/namespaces/default --keys-only --data-dir "$data") ||
  fail "store CLI while serve runs: $live"
[[ $live == /registry/namespaces/default ]] || fail "store CLI while serve runs: [$live]"
# store watch shows a kubectl write live: the key, and the value with the object's JSON
"$bin" store watch /registry/configmaps/default/ --prefix --data-dir "$data" >"$tmp/watch.out" 2>&1 &
watch_pid=$!
pids+=("$watch_pid")
sleep 1
kubectl create configmap watched --from-literal=seen=yes >/dev/null
for _ in $(seq 1 100); do grep -q '"seen":"yes"' "$tmp/watch.out" && break; sleep 0.05; done
[[ $(head -n 2 "$tmp/watch.out") == $'PUT\n/registry/configmaps/default/watched' ]] ||
  fail "store watch printed [$(cat "$tmp/watch.out")]"
grep -q '"seen":"yes"' "$tmp/watch.out" || fail "store watch printed no value"
kill -INT "$watch_pid"
wait "$watch_pid" || fail "store watch exited $? on SIGINT"

# SIGTERM: a clean stop, and the store opens offline afterwards
kill -TERM "${pids[0]}"
wait "${pids[0]}" || fail "serve exited $? on SIGTERM"
grep -q "shutting down" "$out" || fail "no shutdown message"
"$bin" store status --data-dir "$data" >/dev/null || fail "store does not open after the stop"
[[ ! -e $data/etcd-endpoint ]] || fail "the etcd endpoint record outlived serve"

# --runtime-config in kube-apiserver's spelling: a bad entry is a usage error
set +e
bad=$("$bin" serve --ephemeral --runtime-config 'storage.k8s.io/v1beta1=maybe' 2>&1); bad_code=$?
set -e
[[ $bad_code -eq 2 && $bad == *"invalid --runtime-config entry"* ]] || fail "bad --runtime-config: $bad_code $bad"

set +e
bad=$("$bin" serve --ephemeral --request-timeout 10 2>&1); bad_code=$?
set -e
[[ $bad_code -eq 2 && $bad == *"--request-timeout must be a positive duration"* ]] || fail "bad --request-timeout: $bad"
printf 'ab,x\n' >"$tmp/bad-tokens.csv"
set +e
bad=$("$bin" serve --ephemeral --token-auth-file "$tmp/bad-tokens.csv" 2>&1); bad_code=$?
set -e
[[ $bad_code -eq 1 && $bad == *"must have at least 3 columns"* ]] || fail "bad --token-auth-file: $bad"

# --ephemeral: nothing kept after exit; --runtime-config turns beta group/versions on (with
# deprecation warnings where upstream gives them);
# --token-auth-file users authenticate; -v=3 logs each request
printf 'tok3n-for-dev,dev-user,1001,"devs,testers"\n' >"$tmp/tokens.csv"
out=$tmp/ephemeral.out
"$bin" serve --ephemeral --secure-port 0 --ready-file "$tmp/eph.json" --headless -v=3 \
  --token-auth-file "$tmp/tokens.csv" --request-timeout 30s \
  --runtime-config storage.k8s.io/v1beta1=true,admissionregistration.k8s.io/v1beta1=true \
  >"$out" 2>&1 &
pids+=($!)
wait_for "$tmp/eph.json"
eph_kubeconfig=$(json "$tmp/eph.json" '["kubeconfig"]')
[[ $(KUBECONFIG=$eph_kubeconfig kubectl get --raw /healthz) == ok ]] || fail "ephemeral /healthz"
versions=$(KUBECONFIG=$eph_kubeconfig kubectl api-versions)
grep -qx storage.k8s.io/v1beta1 <<<"$versions" || fail "--runtime-config did not serve storage.k8s.io/v1beta1"
grep -qx storage.k8s.io/v1 <<<"$versions" || fail "storage.k8s.io/v1 is gone"
# a deprecated version answers with upstream's Warning header (kubectl prints it); v1 does not
warned=$(KUBECONFIG=$eph_kubeconfig kubectl get validatingadmissionpolicies.v1beta1.admissionregistration.k8s.io 2>&1)
[[ $warned == *"Warning: admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is deprecated in v1.31+, unavailable in v1.34+"* ]] ||
  fail "no deprecation warning: $warned"
quiet=$(KUBECONFIG=$eph_kubeconfig kubectl get validatingadmissionpolicies.v1.admissionregistration.k8s.io 2>&1)
[[ $quiet != *Warning* ]] || fail "warning for v1: $quiet"
eph_url=$(json "$tmp/eph.json" '["url"]')
curl -s -o "$tmp/whoami.json" --cacert "$(json "$tmp/eph.json" '["caFile"]')" \
  -H 'Authorization: Bearer tok3n-for-dev' -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
  "$eph_url/apis/authentication.k8s.io/v1/selfsubjectreviews"
[[ $(json "$tmp/whoami.json" '["status"]["userInfo"]["username"]') == dev-user ]] || fail "token file user: $(cat "$tmp/whoami.json")"
[[ $(json "$tmp/whoami.json" '["status"]["userInfo"]["groups"][:2]') == "['devs', 'testers']" ]] || fail "token file groups"
grep -q 'HTTP verb="GET" URI="/healthz"' "$out" || fail "-v=3 did not log requests"
kill -INT "${pids[-1]}"
wait "${pids[-1]}" || fail "ephemeral serve exited $?"
[[ ! -e $eph_kubeconfig ]] || fail "--ephemeral left $eph_kubeconfig behind"
echo "serve: ok"
