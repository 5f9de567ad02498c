#!/usr/bin/env bash
# The v1.32 bootstrap roles as upstream documents them, checked for users of a token file bound
# to each: `kubectl auth can-i` and the real request agree with the expected table
# (bootstrap_roles_test.py holds it and its sources).
set -euo pipefail
source "$(dirname "$0")/serve_lib.sh"
out=$tmp/serve.out
users=(root admin edit view nobody rs-controller job-controller ns-controller)
for u in "${users[@]}"; do echo "token-$u,$u,uid-$u"; done >"$tmp/tokens.csv"
serve_ready ready --nodes 1 --token-auth-file "$tmp/tokens.csv"
kubectl create namespace team >/dev/null
kubectl create clusterrolebinding root --clusterrole=cluster-admin --user=root >/dev/null
for role in admin edit view; do
  kubectl create rolebinding "$role" -n team --clusterrole="$role" --user="$role" >/dev/null
done
for pair in replicaset:rs job:job namespace:ns; do
  kubectl create clusterrolebinding "${pair%%:*}" \
    --clusterrole="system:controller:${pair%%:*}-controller" --user="${pair##*:}-controller" >/dev/null
done
/usr/bin/python3 "$(dirname "$0")/bootstrap_roles_test.py" "$url" "$ca" || fail "bootstrap roles"
