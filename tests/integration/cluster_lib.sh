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
