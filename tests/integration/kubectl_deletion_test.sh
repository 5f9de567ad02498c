#!/usr/bin/env bash
# kubectl 1.32 against a sandbox: a pod bound to a node through pods/binding, graceful deletion
# (Terminating until something deletes the pod with grace 0) and the garbage collector's
# finalizers that --cascade leaves while no garbage collector runs. Run through with_sandbox.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k() { kubectl "$@"; }
out() { "$@" 2>&1 || true; }

pod() {
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  containers: [{name: c, image: nginx}]\n' "$1"
}
bind() {
  printf '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"%s"},"target":{"kind":"Node","name":"%s"}}' \
    "$1" "$2" >"$tmp/binding.json"
  k create --raw "/api/v1/namespaces/default/pods/$1/binding" -f "$tmp/binding.json"
}

# binding: the pod lands on the node; a second binding is a conflict
pod web | k create -f - >/dev/null || fail "create pod"
grep -q '"status":"Success"' <<<"$(bind web node-1)" || fail "binding"
[[ $(k get pod web -o jsonpath='{.spec.nodeName}') == node-1 ]] || fail "nodeName"
[[ $(k get pod web -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}') == True ]] ||
  fail "PodScheduled"
grep -q 'pod web is already assigned to node "node-1"' <<<"$(out bind web node-2)" || fail "second binding"

# graceful deletion: a scheduled pod stays Terminating until deleted with grace 0
[[ $(k delete pod web --wait=false) == 'pod "web" deleted' ]] || fail "delete pod"
grep -q '^web .*Terminating' <<<"$(out k get pod web --no-headers)" || fail "not Terminating: $(out k get pod web)"
[[ $(k get pod web -o jsonpath='{.metadata.deletionGracePeriodSeconds}') == 30 ]] || fail "grace period"
k delete pod web --grace-period=0 --force >/dev/null 2>&1 || fail "force delete"
grep -q 'NotFound\|not found' <<<"$(out k get pod web)" || fail "pod web still there"

# a pod no node runs goes at once
pod pending | k create -f - >/dev/null || fail "create pending pod"
k delete pod pending --wait=false >/dev/null || fail "delete pending pod"
grep -q 'not found' <<<"$(out k get pod pending)" || fail "pending pod still there"

# --cascade leaves the garbage collector's finalizer on the object it marks
k create deployment kept --image=nginx >/dev/null || fail "create deployment"
k delete deployment kept --cascade=orphan --wait=false >/dev/null || fail "delete --cascade=orphan"
yaml=$(k get deployment kept -o yaml)
grep -q '^  - orphan$' <<<"$yaml" || fail "no orphan finalizer: $yaml"
grep -q '^  deletionTimestamp: ' <<<"$yaml" || fail "no deletionTimestamp"
k create deployment first --image=nginx >/dev/null || fail "create deployment first"
k delete deployment first --cascade=foreground --wait=false >/dev/null || fail "delete --cascade=foreground"
grep -q '^  - foregroundDeletion$' <<<"$(k get deployment first -o yaml)" || fail "no foregroundDeletion"
# what a garbage collector would do when done: take the finalizer, and the object goes
k patch deployment kept --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null || fail "patch"
grep -q 'not found' <<<"$(out k get deployment kept)" || fail "deployment kept still there"
k create deployment plain --image=nginx >/dev/null || fail "create deployment plain"
k delete deployment plain >/dev/null || fail "delete deployment"
grep -q 'not found' <<<"$(out k get deployment plain)" || fail "background delete left it"
echo "kubectl deletion: ok"
