#!/usr/bin/env bash
# The binary's entry points as a user meets them: exit codes, stderr, version output.
set -euo pipefail
bin=${KS_BINARY:?KS_BINARY must name the kube-sandbox binary}
fail() { echo "FAIL: $*" >&2; exit 1; }

set +e
err=$("$bin" --bogus 2>&1 >/dev/null); code=$?
set -e
[[ $code -eq 2 ]] || fail "--bogus exited $code, want 2"
[[ $(head -n1 <<<"$err") == "kube-sandbox: unknown flag: --bogus" ]] || fail "--bogus said: $err"
grep -q '^Usage:' <<<"$err" || fail "--bogus printed no usage"

grep -q 'Kubernetes API v1.32' <<<"$("$bin" version)" || fail "version does not print v1.32"
[[ $("$bin" version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kubernetesVersion"])') == v1.32 ]] \
  || fail "version -o json"
grep -q 'kubeconfig' <<<"$("$bin" --help)" || fail "--help lacks the command list"
echo "cli: ok"
