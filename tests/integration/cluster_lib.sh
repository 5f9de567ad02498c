# Helpers of the cluster's kubectl scenarios (sourced): fail, k, out, expect, and until_equal,
# which waits for a controller to get somewhere.
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
