#!/usr/bin/env bash
# serve on an etcd that takes TLS clients only (Debian's etcd 3.4 with --client-cert-auth), through
# kube-apiserver's --etcd-cafile, --etcd-certfile and --etcd-keyfile: kubectl's writes land in it
# (read back with etcdctl and the same client certificate), and without a client certificate
# serve refuses to start with the reason.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=serve_lib.sh
source "$here/serve_lib.sh"
certs=$tmp/certs
mkdir -p "$certs"
# shellcheck source=test_certs.sh
source "$here/test_certs.sh"
new_ca etcd-ca "/CN=etcd-ca"
new_cert etcd-ca member "/CN=member" serverAuth,clientAuth "IP:127.0.0.1,DNS:localhost"
new_cert etcd-ca apiserver-etcd-client "/CN=kube-apiserver-etcd-client" clientAuth

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
etcd_url=https://127.0.0.1:$port  # (serve_ready sets $url to the API server)
out=$tmp/etcd.out
etcd --name tls --data-dir "$tmp/etcd" --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
  --listen-peer-urls http://127.0.0.1:0 --cert-file "$certs/member.crt" --key-file "$certs/member.key" \
  --client-cert-auth --trusted-ca-file "$certs/etcd-ca.crt" >"$out" 2>&1 &
pids+=($!)
client=(--cacert "$certs/etcd-ca.crt" --cert "$certs/apiserver-etcd-client.crt" --key "$certs/apiserver-etcd-client.key")
for _ in $(seq 1 200); do
  etcdctl --endpoints="$etcd_url" "${client[@]}" endpoint health >/dev/null 2>&1 && break
  sleep 0.05
done
etcdctl --endpoints="$etcd_url" "${client[@]}" endpoint health >/dev/null 2>&1 || fail "etcd with TLS did not start"

out=$tmp/serve.out
serve_ready tls --etcd-servers "$etcd_url" --etcd-cafile "$certs/etcd-ca.crt" \
  --etcd-certfile "$certs/apiserver-etcd-client.crt" --etcd-keyfile "$certs/apiserver-etcd-client.key" \
  --nodes=0 --controllers=
kubectl create configmap over-tls --from-literal=a=b >/dev/null || fail "create over TLS"
rv=$(kubectl get configmap over-tls -o jsonpath='{.metadata.resourceVersion}')
[[ $(etcdctl --endpoints="$etcd_url" "${client[@]}" get /registry/configmaps/default/over-tls -w json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["kvs"][0]["mod_revision"])') == "$rv" ]] ||
  fail "the configmap is not in the TLS etcd at its resourceVersion"
kill -TERM "${pids[-1]}"
wait "${pids[-1]}" || fail "serve exited $? on SIGTERM"
unset 'pids[-1]'

# no client certificate: the member refuses the handshake, serve says so and exits 1
set +e
timeout 60 "$bin" serve --ephemeral --secure-port 0 --headless --nodes=0 --controllers= \
  --etcd-servers "$etcd_url" --etcd-cafile "$certs/etcd-ca.crt" >"$tmp/refused.out" 2>&1
code=$?
set -e
[[ $code == 1 ]] || fail "serve without a client certificate exited $code: $(cat "$tmp/refused.out")"
grep -q -- "--etcd-servers: cannot reach the etcd endpoint $etcd_url" "$tmp/refused.out" ||
  fail "no reason given: $(cat "$tmp/refused.out")"
echo PASS
