# Helpers of the cluster's kubectl scenarios (sourced): fail, k, out, expect, until_equal, which
# waits for a controller to get somewhere, serving_certs, and start_extension, which puts a test
# extension API server behind an APIService.
fail() { echo "FAIL: $*" >&2; exit 1; }
k() { kubectl "$@"; }
out() { "$@" 2>&1 || true; }
expect() {  # expect NAME WANT GOT
  [[ $3 == "$2" ]] || fail "$1: want
$2
got
$3"
}
# until_equal NAME WANT CMD...: retries CMD (up to 40 s) until its output is WANT.
until_equal() {
  local name=$1 want=$2 got
  shift 2
  for _ in $(seq 1 200); do
    got=$("$@" 2>&1 || true)
    [[ $got == "$want" ]] && return 0
    sleep 0.2
  done
  fail "$name: want
$want
got
$got"
}
# serving_certs DIR CN SAN: a test CA (DIR/ca.crt, ca.key) and a server certificate it signed
# (DIR/server.crt, server.key) for the subjectAltName SAN, e.g. "IP:127.0.0.1,DNS:x.default.svc".
serving_certs() {
  local dir=$1 cn=$2 san=$3
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout "$dir/ca.key" \
    -out "$dir/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$cn" -keyout "$dir/server.key" \
    -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=%s\n' "$san" >"$dir/san.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 2 -extfile "$dir/san.ext" -out "$dir/server.crt" 2>/dev/null
}
# start_extension DIR SCRIPT SERVICE GROUP VERSION [ARG...]: starts the test extension API server
# SCRIPT (python3; its arguments: CERT KEY FRONT_PROXY_CA PORT_FILE, then the ARGs) with a
# certificate for SERVICE.default.svc made in DIR, and points a selector-less Service SERVICE, its
# hand-written Endpoints and the APIService VERSION.GROUP at it (priorities 1000 and 15). Sets
# extension_pid; the caller stops it.
start_extension() {
  local dir=$1 script=$2 service=$3 group=$4 version=$5 port
  shift 5
  kubectl -n kube-system get configmap extension-apiserver-authentication \
    -o jsonpath='{.data.requestheader-client-ca-file}' >"$dir/front-proxy-ca.crt"
  serving_certs "$dir" "$service" "DNS:$service.default.svc"
  python3 "$script" "$dir/server.crt" "$dir/server.key" "$dir/front-proxy-ca.crt" "$dir/port" "$@" &
  extension_pid=$!
  for _ in $(seq 1 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
  port=$(cat "$dir/port")
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: $service, namespace: default}
spec:
  ports: [{name: https, port: 443, targetPort: $port}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: $service, namespace: default}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: $port}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: $version.$group}
spec:
  group: $group
  version: $version
  service: {namespace: default, name: $service, port: 443}
  caBundle: "$(base64 -w0 "$dir/ca.crt")"
  groupPriorityMinimum: 1000
  versionPriority: 15
YAML
}
