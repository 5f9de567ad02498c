#!/usr/bin/env bash
# Authorization as a learner meets it with kubectl 1.32: a second user (a client certificate
# signed by the sandbox's CA, made with openssl) is refused with kube-apiserver's exact text,
# allowed as soon as a Role and RoleBinding exist, and `kubectl auth can-i` (with --list, -n,
# --subresource and non-resource URLs) agrees with what the server enforces; SubjectAccessReview
# answers for another user; a Role granting more than its writer holds is refused; the cluster's
# own controllers, scheduler and kubelets are never refused; impersonation with --as, --as-group
# and --as-uid, and alice refused to impersonate until a role lets her. Run through with_sandbox.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
admin=$KUBECONFIG
out() { "$@" 2>&1 || true; }

# alice: CN=alice, O=devs, signed by the sandbox's CA (the data dir's pki/).
pki=$(dirname "$admin")/pki
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=alice/O=devs" \
  -keyout "$tmp/alice.key" -out "$tmp/alice.csr" 2>/dev/null || fail "alice's key"
openssl x509 -req -in "$tmp/alice.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
  -days 1 -out "$tmp/alice.crt" 2>/dev/null || fail "alice's certificate"
cp "$admin" "$tmp/alice.kubeconfig"
ka() { kubectl --kubeconfig "$tmp/alice.kubeconfig" "$@"; }
ka config set-credentials alice --client-certificate="$tmp/alice.crt" \
  --client-key="$tmp/alice.key" --embed-certs >/dev/null
ka config set-context --current --user=alice >/dev/null
[[ $(ka auth whoami -o jsonpath='{.status.userInfo.username}') == alice ]] || fail "whoami"

# Nothing granted yet: refused with upstream's words, and can-i says no.
msg='configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"'
grep -qF "$msg" <<<"$(out ka create configmap settings)" || fail "refusal: $(out ka create configmap settings)"
[[ $(out ka auth can-i create configmaps) == no ]] || fail "can-i before the binding"
grep -qF 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"' \
  <<<"$(out ka get pods)" || fail "list refusal"

# A Role and a RoleBinding: allowed at once, exactly as far as the Role goes.
kubectl create role configmap-writer --verb=create,get,list --resource=configmaps >/dev/null
kubectl create rolebinding alice-configmaps --role=configmap-writer --user=alice >/dev/null
[[ $(ka auth can-i create configmaps) == yes ]] || fail "can-i after the binding"
ka create configmap settings >/dev/null || fail "create after the binding"
[[ $(ka get configmap settings -o jsonpath='{.metadata.name}') == settings ]] || fail "get"
[[ $(out ka auth can-i delete configmaps) == no ]] || fail "can-i delete"
grep -qF 'configmaps "settings" is forbidden: User "alice" cannot delete resource "configmaps" in API group "" in the namespace "default"' \
  <<<"$(out ka delete configmap settings)" || fail "delete refusal"
[[ $(out ka auth can-i create configmaps -n kube-system) == no ]] || fail "can-i -n"
grep -q 'forbidden' <<<"$(out ka create configmap other -n kube-system)" || fail "other namespace"
list=$(ka auth can-i --list)
grep -qE '^configmaps +\[\] +\[\] +\[create get list\]' <<<"$list" || fail "can-i --list: $list"
grep -qE '^selfsubjectaccessreviews.authorization.k8s.io' <<<"$list" || fail "basic-user in --list"

# Subresources and non-resource URLs.
[[ $(out ka auth can-i get pods --subresource=log) == no ]] || fail "can-i pods/log"
kubectl create rolebinding alice-view --clusterrole=view --user=alice >/dev/null
[[ $(ka auth can-i get pods --subresource=log) == yes ]] || fail "can-i pods/log with view"
[[ $(out ka auth can-i get secrets) == no ]] || fail "view reads no secrets"
[[ $(ka auth can-i get /healthz) == yes ]] || fail "can-i /healthz"
[[ $(out ka auth can-i get /metrics) == no ]] || fail "can-i /metrics"
ka get --raw /healthz >/dev/null || fail "get /healthz"
grep -qF 'forbidden: User "alice" cannot get path "/metrics"' <<<"$(out ka get --raw /metrics)" ||
  fail "metrics refusal"

# SubjectAccessReview: the same answers for alice, asked by the admin.
sar() {
  printf '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice","groups":["devs"],"resourceAttributes":{"namespace":"default","verb":"%s","resource":"configmaps"}}}' "$1" \
    >"$tmp/sar.json"
  kubectl create -f "$tmp/sar.json" -o jsonpath='{.status.allowed} {.status.reason}'
}
[[ $(sar create) == 'true RBAC: allowed by RoleBinding "alice-configmaps/default" of Role "configmap-writer" to User "alice"' ]] ||
  fail "SAR create: $(sar create)"
[[ $(sar delete) == 'false ' ]] || fail "SAR delete: $(sar delete)"

# Escalation: alice may write Roles, but none granting what she does not hold.
kubectl create role role-writer --verb=create --resource=roles.rbac.authorization.k8s.io >/dev/null
kubectl create rolebinding alice-roles --role=role-writer --user=alice >/dev/null
ka create role readers --verb=get --resource=configmaps >/dev/null || fail "a role alice holds"
esc=$(out ka create role secrets --verb=get --resource=secrets)
grep -qF 'roles.rbac.authorization.k8s.io "secrets" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:' \
  <<<"$esc" || fail "escalation: $esc"
grep -qF '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}' <<<"$esc" || fail "missing rule: $esc"

# Impersonation: the admin acts as alice (and her group), RBAC then judges alice; alice herself
# may not act as anyone until a role grants her the impersonate verb on that user.
grep -qF 'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default"' \
  <<<"$(out kubectl --as alice get secrets)" || fail "--as refusal: $(out kubectl --as alice get secrets)"
[[ $(kubectl --as alice auth can-i list pods) == yes ]] || fail "can-i --as alice"
[[ $(out kubectl --as alice auth can-i get secrets) == no ]] || fail "can-i --as alice secrets"
[[ $(kubectl --as alice --as-group devs --as-uid 7 auth whoami -o jsonpath='{.status.userInfo.username} {.status.userInfo.uid} {.status.userInfo.groups}') == \
  'alice 7 ["devs","system:authenticated"]' ]] || fail "whoami --as"
[[ $(kubectl --as system:serviceaccount:default:default auth whoami -o jsonpath='{.status.userInfo.groups}') == \
  '["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"]' ]] ||
  fail "whoami --as a service account"
grep -qF 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' \
  <<<"$(out ka --as bob get pods)" || fail "alice impersonating: $(out ka --as bob get pods)"
kubectl create clusterrole act-as-bob --verb=impersonate --resource=users --resource-name=bob >/dev/null
kubectl create clusterrolebinding alice-as-bob --clusterrole=act-as-bob --user=alice >/dev/null
[[ $(ka --as bob auth whoami -o jsonpath='{.status.userInfo.username}') == bob ]] || fail "alice as bob"
grep -qF 'users "carol" is forbidden' <<<"$(out ka --as carol get pods)" || fail "alice as carol"
grep -qF 'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups"' \
  <<<"$(out ka --as bob --as-group admins get pods)" || fail "alice as a group"

# The cluster runs as its own users and is never refused.
kubectl create deployment web --image=nginx --replicas=2 >/dev/null
kubectl rollout status deployment/web --timeout=60s >/dev/null || fail "rollout"
kubectl scale deployment web --replicas=1 >/dev/null
kubectl create job once --image=busybox >/dev/null
kubectl wait --for=condition=Complete job/once --timeout=60s >/dev/null || fail "job"
kubectl delete deployment web >/dev/null
refused=$(kubectl get --raw /debug/requests | python3 -c '
import json, sys
for t in json.load(sys.stdin)["items"]:
    if t["code"] == 403 and t["user"] not in ("alice", "bob"):
        print(t["user"], t["method"], t["target"])')
[[ -z $refused ]] || fail "the cluster was refused: $refused"
echo "rbac: ok"
