#!/usr/bin/env bash
# Runs a command against the control plane controller-runtime's envtest starts, started exactly as
# envtest starts it: a directory of binaries (KUBEBUILDER_ASSETS) where kube-sandbox is linked as
# `etcd` and `kube-apiserver`; each asked `--help` first (etcd for --unsafe-no-fsync,
# kube-apiserver for --insecure-port); envtest's flags as --flag=value, sorted; its certificates
# (ECDSA P-256 from two small CAs: one signs the serving certificate, one the client
# certificates); the health checks it polls (etcd GET /health, kube-apiserver GET /healthz with
# no client certificate); then the admin user it provisions (CN admin, O system:masters) in a
# kubeconfig. COMMAND runs with KUBECONFIG, ETCD_URL, ASSETS and CERTS set (the kubeconfig path as its
# last argument when it ends in .py); both processes must then stop on SIGTERM with status 0.
#   with_envtest.sh COMMAND [ARGS...]
# ENVTEST_ETCD / ENVTEST_KUBE_APISERVER name other binaries to put in the directory instead (a
# stock etcd and kube-apiserver, to check what a test expects against them); ENVTEST_ETCD_URL
# names a running etcd to use instead of starting one.
set -euo pipefail
bin=${KS_BINARY:?KS_BINARY must name the kube-sandbox binary}
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for log in "$tmp"/*.out; do [[ -f $log ]] && sed "s|^|  $(basename "$log" .out): |" "$log" >&2; done
  exit 1
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

assets=$tmp/assets
mkdir -p "$assets"
ln -s "${ENVTEST_ETCD:-$bin}" "$assets/etcd"
ln -s "${ENVTEST_KUBE_APISERVER:-$bin}" "$assets/kube-apiserver"

# What was started, for the stop: names and whether a binary of our own was replaced.
names=()
overrides=()

# etcd, as controlplane/etcd.go starts it.
if [[ -n ${ENVTEST_ETCD_URL:-} ]]; then
  ETCD_URL=$ENVTEST_ETCD_URL
else
  nofsync=()
  if grep -q -- '--unsafe-no-fsync' <<<"$("$assets/etcd" --help 2>&1)"; then
    nofsync=(--unsafe-no-fsync=true)
  fi
  [[ -n ${ENVTEST_ETCD:-} || ${#nofsync[@]} == 1 ]] || fail "etcd --help names no --unsafe-no-fsync"
  ETCD_URL=http://127.0.0.1:$(free_port)
  peer_url=http://127.0.0.1:$(free_port)
  etcd_started=$(date +%s%N)
  "$assets/etcd" --advertise-client-urls="$ETCD_URL" --data-dir="$tmp/etcd" \
    --listen-client-urls="$ETCD_URL" --listen-peer-urls="$peer_url" \
    "${nofsync[@]}" >"$tmp/etcd.out" 2>&1 &
  pids+=($!)
  names+=(etcd)
  overrides+=("${ENVTEST_ETCD:-}")
  for _ in $(seq 1 2000); do
    curl -sf "$ETCD_URL/health" >/dev/null 2>&1 && break
    kill -0 "${pids[-1]}" 2>/dev/null || fail "etcd exited"
    sleep 0.01
  done
  curl -sf "$ETCD_URL/health" >/dev/null || fail "etcd: no /health after 20 s"
  echo "etcd healthy $((($(date +%s%N) - etcd_started) / 1000000)) ms after its start"
fi
curl -sf "$ETCD_URL/health" >/dev/null || fail "etcd: no /health"

# The certificates envtest writes into the kube-apiserver's cert dir.
certs=$tmp/certs
mkdir -p "$certs"
# shellcheck source=test_certs.sh
source "$(dirname "$0")/test_certs.sh"
new_ca serving-ca
new_cert serving-ca apiserver "/O=envtest/CN=localhost" serverAuth "DNS:localhost,IP:127.0.0.1,IP:::1"
new_ca sa-signer
new_ca client-cert-auth-ca
new_cert client-cert-auth-ca admin "/O=system:masters/CN=admin" clientAuth

# kube-apiserver, as controlplane/apiserver.go starts it (defaultArgs, sorted by name).
if grep -q -- '--insecure-port' <<<"$("$assets/kube-apiserver" --help 2>&1)"; then
  insecure=(--insecure-port=0)
else
  insecure=()
fi
port=$(free_port)
started=$(date +%s%N)
"$assets/kube-apiserver" --allow-privileged=true --authorization-mode=RBAC --bind-address=127.0.0.1 \
  --cert-dir="$certs" --client-ca-file="$certs/client-cert-auth-ca.crt" \
  --disable-admission-plugins=ServiceAccount --etcd-servers="$ETCD_URL" "${insecure[@]}" \
  --secure-port="$port" --service-account-issuer="https://127.0.0.1:$port/" \
  --service-account-key-file="$certs/sa-signer.crt" \
  --service-account-signing-key-file="$certs/sa-signer.key" \
  --service-cluster-ip-range=10.0.0.0/24 >"$tmp/kube-apiserver.out" 2>&1 &
pids+=($!)
names+=(kube-apiserver)
overrides+=("${ENVTEST_KUBE_APISERVER:-}")
server=https://127.0.0.1:$port
for _ in $(seq 1 6000); do
  [[ $(curl -sk "$server/healthz" 2>/dev/null) == ok ]] && break
  kill -0 "${pids[-1]}" 2>/dev/null || fail "kube-apiserver exited"
  sleep 0.01
done
[[ $(curl -sk "$server/healthz") == ok ]] || fail "kube-apiserver: no /healthz after 60 s"
echo "kube-apiserver healthy $((($(date +%s%N) - started) / 1000000)) ms after its start"

KUBECONFIG=$tmp/kubeconfig
cat >"$KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 "$certs/serving-ca.crt")
users:
- name: envtest
  user:
    client-certificate-data: $(base64 -w0 "$certs/admin.crt")
    client-key-data: $(base64 -w0 "$certs/admin.key")
contexts:
- name: envtest
  context: {cluster: envtest, user: envtest}
current-context: envtest
EOF
export KUBECONFIG ETCD_URL ASSETS=$assets CERTS=$certs
status=0
if [[ $1 == *.py || ${2:-} == *.py ]]; then
  "$@" "$KUBECONFIG" || status=$?
else
  "$@" || status=$?
fi
# kube-sandbox stops gracefully with status 0 (a stock etcd's status is its signal's).
for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
  kill -TERM "${pids[$i]}"
  code=0
  wait "${pids[$i]}" || code=$?
  if [[ $code != 0 && -z ${overrides[$i]} ]]; then
    echo "${names[$i]} exited $code on SIGTERM" >&2
    status=1
  fi
done
pids=()
[[ $status == 0 ]] || fail "the command failed"
exit 0
