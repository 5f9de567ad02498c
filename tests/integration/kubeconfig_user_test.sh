#!/usr/bin/env bash
# `kube-sandbox kubeconfig --user NAME --group G`: a kubeconfig for another user in one command,
# signed by the sandbox's CA; kubectl 1.32 is known as that user and group and, unbound, gets
# kube-apiserver's 403. Run through with_sandbox.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data_dir=$(dirname "$KUBECONFIG")
out() { "$@" 2>&1 || true; }

# One command: a kubeconfig for alice in devs, from the sandbox's CA.
"$KS_BINARY" kubeconfig --user alice --group devs --data-dir "$data_dir" \
  --output "$tmp/alice.kubeconfig" || fail "kubeconfig --user"
[[ $(stat -c %a "$tmp/alice.kubeconfig") == 600 ]] || fail "mode"
who=$(kubectl --kubeconfig "$tmp/alice.kubeconfig" auth whoami)
grep -qE '^Username +alice$' <<<"$who" || fail "alice whoami: $who"
grep -qE '^Groups +\[devs system:authenticated\]$' <<<"$who" || fail "alice groups: $who"
refusal=$(out kubectl --kubeconfig "$tmp/alice.kubeconfig" get pods)
[[ $refusal == 'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"' ]] ||
  fail "refusal: $refusal"
# To stdout, and refused without --user.
"$KS_BINARY" kubeconfig --user bob --data-dir "$data_dir" >"$tmp/bob.kubeconfig" || fail "stdout"
[[ $(kubectl --kubeconfig "$tmp/bob.kubeconfig" auth whoami -o jsonpath='{.status.userInfo.username}') == bob ]] ||
  fail "bob whoami"
status=0
"$KS_BINARY" kubeconfig --group devs --data-dir "$data_dir" >/dev/null 2>&1 || status=$?
(( status == 2 )) || fail "--group without --user exits $status"
echo "kubeconfig --user: ok"
